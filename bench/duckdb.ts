/**
 * The DuckDB side of the benchmark, set up as a DuckDB user would: typed columns, the JSON
 * bodies as JSON columns, `PRIMARY KEY (id)` and ART indexes where tq has hash indexes (trace,
 * thread), the objects keyed by ref URI and the feedback grouped per call ref (what a user
 * joins against). The tuned variant's precomputed columns are added to the same table (unused
 * columns cost the plain queries nothing in a column store), with rank columns standing for
 * tq's start-order and roots indexes (queries.ts RANK_COLUMNS).
 *
 * A query's result is read the way tq's lines are consumed: one JSON text per row, counted and
 * dropped (kept only when the caller asks, for the cross-check).
 */
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { BenchData } from './generate.ts';
import { RANK_COLUMNS, TUNED_COLUMNS } from './queries.ts';

export interface DuckDbSide {
  conn: DuckDBConnection;
  callsLoadMs: number;
  tunedColumnsMs: number;
  tableLoadMs: number;
  /** DuckDB's worker threads (tq answers on one). */
  threads: number;
  close(): void;
}

const sqlPath = (p: string) => `'${p.replace(/'/g, "''")}'`;

/** The calls.jsonl columns, typed; user/run fields spelled with the default `svc_` prefix. */
export const CALL_COLUMNS =
  "{id: 'VARCHAR', project_id: 'VARCHAR', op_name: 'VARCHAR', display_name: 'VARCHAR', trace_id: 'VARCHAR', " +
  "parent_id: 'VARCHAR', thread_id: 'VARCHAR', turn_id: 'VARCHAR', started_at: 'TIMESTAMP', ended_at: 'TIMESTAMP', " +
  "deleted_at: 'TIMESTAMP', exception: 'VARCHAR', attributes: 'JSON', inputs: 'JSON', output: 'JSON', summary: 'JSON', " +
  "svc_user_id: 'VARCHAR', svc_run_id: 'VARCHAR', svc_run_step: 'BIGINT', svc_run_step_end: 'BIGINT'}";

const CALLS_DDL =
  'CREATE TABLE calls (id VARCHAR PRIMARY KEY, project_id VARCHAR, op_name VARCHAR, display_name VARCHAR, trace_id VARCHAR, ' +
  'parent_id VARCHAR, thread_id VARCHAR, turn_id VARCHAR, started_at TIMESTAMP, ended_at TIMESTAMP, deleted_at TIMESTAMP, ' +
  'exception VARCHAR, attributes JSON, inputs JSON, output JSON, summary JSON, svc_user_id VARCHAR, svc_run_id VARCHAR, ' +
  'svc_run_step BIGINT, svc_run_step_end BIGINT)';

/**
 * `rowDigests`: the table's row digests in table order (tq computed them on load; a DuckDB user
 * would have them from the server that stored the rows), so DuckDB's rows carry `digest` too.
 */
export async function openDuckDb(data: BenchData, withTable: boolean, objectRefs: ReadonlyMap<string, string>, rowDigests: readonly string[] = []): Promise<DuckDbSide> {
  const instance = await DuckDBInstance.create(':memory:');
  const conn = await instance.connect();
  let t0 = performance.now();
  await conn.run(CALLS_DDL);
  await conn.run(
    `INSERT INTO calls SELECT id, project_id, op_name, display_name, trace_id, parent_id, thread_id, turn_id, started_at, ended_at, ` +
      `deleted_at, exception, attributes, inputs, output, summary, svc_user_id, svc_run_id, svc_run_step, svc_run_step_end ` +
      `FROM read_json(${sqlPath(data.callsFile)}, format = 'newline_delimited', columns = ${CALL_COLUMNS})`,
  );
  await conn.run('CREATE INDEX calls_trace ON calls (trace_id)');
  await conn.run('CREATE INDEX calls_thread ON calls (thread_id)');
  await loadRefTables(conn, data, objectRefs);
  const callsLoadMs = performance.now() - t0;

  t0 = performance.now();
  for (const [name, type, expr] of TUNED_COLUMNS) {
    await conn.run(`ALTER TABLE calls ADD COLUMN ${name} ${type}`);
    await conn.run(`UPDATE calls c SET ${name} = ${expr}`);
  }
  // Rank columns (the analogue of tq's start-order and roots indexes): positions by a window
  // function, written by id.
  for (const [name, where, order] of RANK_COLUMNS) {
    await conn.run(`ALTER TABLE calls ADD COLUMN ${name} BIGINT`);
    await conn.run(`UPDATE calls SET ${name} = r.rk FROM (SELECT id, row_number() OVER (ORDER BY ${order}) AS rk FROM calls WHERE ${where}) r WHERE calls.id = r.id`);
  }
  const tunedColumnsMs = performance.now() - t0;

  let tableLoadMs = 0;
  if (withTable) {
    // tables.jsonl holds one record whose `rows` array is the table; idx is original_index.
    t0 = performance.now();
    await conn.run(
      `CREATE TABLE table_rows AS SELECT generate_subscripts(rows, 1) - 1 AS idx, unnest(rows) AS val ` +
        `FROM read_json(${sqlPath(data.tablesFile)}, format = 'newline_delimited', ` +
        `columns = {project_id: 'VARCHAR', rows: 'JSON[]'}, maximum_object_size = 2000000000)`,
    );
    const digestFile = join(mkdtempSync(join(tmpdir(), 'tq-bench-digests-')), 'digests.csv');
    writeFileSync(digestFile, 'idx,digest\n' + rowDigests.map((d, i) => `${i},${d}`).join('\n') + '\n');
    await conn.run(
      `ALTER TABLE table_rows ADD COLUMN digest VARCHAR; UPDATE table_rows SET digest = d.digest ` +
        `FROM read_csv(${sqlPath(digestFile)}, header = true, columns = {idx: 'BIGINT', digest: 'VARCHAR'}) d WHERE d.idx = table_rows.idx`,
    );
    rmSync(dirname(digestFile), { recursive: true, force: true });
    // Tuned: the three sort readings of meta.difficulty, precomputed (tq caches them per path).
    await conn.run(
      `ALTER TABLE table_rows ADD COLUMN t_present BOOLEAN; ALTER TABLE table_rows ADD COLUMN t_float DOUBLE; ` +
        `ALTER TABLE table_rows ADD COLUMN t_text VARCHAR; ` +
        `UPDATE table_rows SET t_present = coalesce(json_type(val, '$.meta.difficulty') <> 'NULL', false), ` +
        `t_float = TRY_CAST(json_extract_string(val, '$.meta.difficulty') AS DOUBLE), t_text = json_extract_string(val, '$.meta.difficulty')`,
    );
    tableLoadMs = performance.now() - t0;
  }
  const threads = await conn.runAndReadAll(`SELECT current_setting('threads')`);
  return {
    conn,
    callsLoadMs,
    tunedColumnsMs,
    tableLoadMs,
    threads: Number(threads.getRows()[0][0]),
    close() {
      conn.closeSync();
      instance.closeSync();
    },
  };
}

/**
 * The objects table (ref URI → value) and the feedback lists (call ref → JSON list of feedback
 * items as tq renders them). The object digests are tq's (a DuckDB user would have them from
 * the server that wrote the objects); `refs` maps object_id to ref URI.
 */
async function loadRefTables(conn: DuckDBConnection, data: BenchData, refs: ReadonlyMap<string, string>): Promise<void> {
  const values = [...refs].map(([objectId, ref]) => `('${objectId.replace(/'/g, "''")}', '${ref.replace(/'/g, "''")}')`).join(', ');
  await conn.run(`CREATE TABLE object_refs (object_id VARCHAR, ref VARCHAR)${values ? `; INSERT INTO object_refs VALUES ${values}` : ''}`);
  await conn.run(
    `CREATE TABLE objects AS SELECT r.ref, o.val FROM read_json(${sqlPath(`${data.dir}/objects.jsonl`)}, format = 'newline_delimited', ` +
      `columns = {project_id: 'VARCHAR', object_id: 'VARCHAR', val: 'JSON'}) o JOIN object_refs r USING (object_id)`,
  );
  await conn.run('CREATE INDEX objects_ref ON objects (ref)');
  await conn.run(
    `CREATE TABLE feedback_lists AS SELECT weave_ref, to_json(list({id: id, feedback_type: feedback_type, weave_ref: weave_ref, ` +
      `payload: payload, creator: creator, created_at: created_at, svc_user_id: svc_user_id, runnable_ref: NULL, call_ref: NULL, ` +
      `trigger_ref: NULL, annotation_ref: NULL} ORDER BY created_at, id)) AS items ` +
      `FROM read_json(${sqlPath(`${data.dir}/feedback.jsonl`)}, format = 'newline_delimited', columns = {id: 'VARCHAR', ` +
      `project_id: 'VARCHAR', weave_ref: 'VARCHAR', feedback_type: 'VARCHAR', payload: 'JSON', creator: 'VARCHAR', ` +
      `created_at: 'TIMESTAMP', svc_user_id: 'VARCHAR'}) GROUP BY weave_ref`,
  );
  await conn.run('CREATE INDEX feedback_ref ON feedback_lists (weave_ref)');
}

export interface SqlRun {
  ms: number;
  rows: number;
  bytes: number;
  /** The JSON texts, when asked for. */
  texts: string[] | null;
}

/**
 * Runs `sql` (one JSON text column) to completion and reads every row's text into JavaScript,
 * counting and dropping them unless `keep`.
 */
export async function runJsonSql(conn: DuckDBConnection, sql: string, keep = false): Promise<SqlRun> {
  const t0 = performance.now();
  const result = await conn.run(sql);
  let rows = 0;
  let bytes = 0;
  const texts: string[] | null = keep ? [] : null;
  for (let chunk = await result.fetchChunk(); chunk !== null && chunk.rowCount > 0; chunk = await result.fetchChunk()) {
    const values = chunk.getColumnValues(0) as Array<string | null>;
    for (const v of values) {
      const text = v ?? 'null';
      rows++;
      bytes += text.length;
      texts?.push(text);
    }
  }
  return { ms: performance.now() - t0, rows, bytes, texts };
}
