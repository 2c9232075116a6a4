/**
 * The DuckDB side of the benchmark: the same JSONL files loaded once into in-memory tables
 * (explicit columns; the JSON bodies as JSON columns), then each query's SQL timed to the last
 * row read back into JavaScript.
 */
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import type { BenchData } from './generate.ts';

export interface DuckDbSide {
  conn: DuckDBConnection;
  callsLoadMs: number;
  tableLoadMs: number;
  threads: number;
  close(): void;
}

const sqlPath = (p: string) => `'${p.replace(/'/g, "''")}'`;

/** The calls.jsonl columns, typed; user/run fields spelled with the default `svc_` prefix. */
const CALL_COLUMNS =
  "{id: 'VARCHAR', project_id: 'VARCHAR', op_name: 'VARCHAR', display_name: 'VARCHAR', trace_id: 'VARCHAR', " +
  "parent_id: 'VARCHAR', thread_id: 'VARCHAR', turn_id: 'VARCHAR', started_at: 'TIMESTAMP', ended_at: 'TIMESTAMP', " +
  "deleted_at: 'TIMESTAMP', exception: 'VARCHAR', attributes: 'JSON', inputs: 'JSON', output: 'JSON', summary: 'JSON', " +
  "svc_user_id: 'VARCHAR', svc_run_id: 'VARCHAR', svc_run_step: 'BIGINT', svc_run_step_end: 'BIGINT'}";

export async function openDuckDb(data: BenchData): Promise<DuckDbSide> {
  const instance = await DuckDBInstance.create(':memory:');
  const conn = await instance.connect();
  let t0 = performance.now();
  await conn.run(
    `CREATE TABLE calls AS SELECT * FROM read_json(${sqlPath(data.callsFile)}, format = 'newline_delimited', ` +
      `columns = ${CALL_COLUMNS})`,
  );
  const callsLoadMs = performance.now() - t0;
  // tables.jsonl holds one record whose `rows` array is the table; idx is original_index.
  t0 = performance.now();
  await conn.run(
    `CREATE TABLE table_rows AS SELECT generate_subscripts(rows, 1) - 1 AS idx, unnest(rows) AS val ` +
      `FROM read_json(${sqlPath(data.tablesFile)}, format = 'newline_delimited', ` +
      `columns = {project_id: 'VARCHAR', rows: 'JSON[]'}, maximum_object_size = 2000000000)`,
  );
  const tableLoadMs = performance.now() - t0;
  const count = await conn.runAndReadAll(`SELECT count(DISTINCT thread_id) FROM calls`);
  return {
    conn,
    callsLoadMs,
    tableLoadMs,
    threads: Number(count.getRows()[0][0]),
    close() {
      conn.closeSync();
      instance.closeSync();
    },
  };
}

/** Runs `sql` to completion and reads every row; returns all columns as JS values. */
export async function runSql(conn: DuckDBConnection, sql: string): Promise<{ ms: number; rows: unknown[][] }> {
  const t0 = performance.now();
  const reader = await conn.runAndReadAll(sql);
  const rows = reader.getRowsJS() as unknown[][];
  return { ms: performance.now() - t0, rows };
}
