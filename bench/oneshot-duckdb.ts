/**
 * The DuckDB side of the one-shot section, as its own process: open DuckDB, run one SQL
 * statement over the JSONL with `read_json_auto` (what a user types for a one-off question),
 * write one JSON text per row to stdout, exit. Usage: node --import tsx bench/oneshot-duckdb.ts SQL
 */
import { DuckDBInstance } from '@duckdb/node-api';
import { once } from 'node:events';

async function main(sql: string): Promise<void> {
  const instance = await DuckDBInstance.create(':memory:');
  const conn = await instance.connect();
  const result = await conn.run(sql);
  for (let chunk = await result.fetchChunk(); chunk !== null && chunk.rowCount > 0; chunk = await result.fetchChunk()) {
    const texts = chunk.getColumnValues(0) as Array<string | null>;
    if (!process.stdout.write(texts.join('\n') + '\n')) await once(process.stdout, 'drain');
  }
  conn.closeSync();
  instance.closeSync();
}

main(process.argv[2] ?? '').catch((e: unknown) => {
  process.stderr.write(`${(e as Error)?.message ?? String(e)}\n`);
  process.exitCode = 1;
});
