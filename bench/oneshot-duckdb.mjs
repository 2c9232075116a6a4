/**
 * The DuckDB side of the one-shot section, as its own process: open DuckDB, run one SQL
 * statement over the JSONL with `read_json_auto` (what a user types for a one-off question),
 * write one JSON text per row to stdout, exit. Plain JavaScript, so node starts it without a
 * TypeScript transform. Usage: node bench/oneshot-duckdb.mjs SQL
 */
import { DuckDBInstance } from '@duckdb/node-api';
import { once } from 'node:events';

/** @param {string} sql */
async function main(sql) {
  const instance = await DuckDBInstance.create(':memory:');
  const conn = await instance.connect();
  const result = await conn.run(sql);
  for (let chunk = await result.fetchChunk(); chunk !== null && chunk.rowCount > 0; chunk = await result.fetchChunk()) {
    const texts = chunk.getColumnValues(0);
    if (!process.stdout.write(texts.join('\n') + '\n')) await once(process.stdout, 'drain');
  }
  conn.closeSync();
  instance.closeSync();
}

main(process.argv[2] ?? '').catch((e) => {
  process.stderr.write(`${e?.message ?? String(e)}\n`);
  process.exitCode = 1;
});
