/**
 * The benchmark's query mix, each as a tq request and as DuckDB SQL written the way a DuckDB
 * user who wants the same answer would write it (issue #12):
 *   - both sides produce one JSON text per result row with the same keys (DuckDB with
 *     `to_json`, the computed `summary.weave` merged in, unselected columns as tq renders them);
 *   - pages select rowids first and materialise only the page (late materialisation);
 *   - `plain` SQL reads the stored columns; `tuned` SQL reads the columns DuckDB precomputed
 *     for every path tq caches or stores apart (status, latency, trace name, `inputs.n`, the
 *     table's sort readings), so a warm tq meets a DuckDB that was given the same head start.
 *
 * tq's semantics are mirrored: deleted calls excluded, NULLs last in both directions, the
 * implicit `id` tie-break (semantics.md#calls-sort-tiebreak), the thread and table tie-breaks
 * (semantics.md#order-ties).
 */
import type { CallTable } from '../src/store/call-table.ts';

/**
 * The query parameters from a loaded calls table: ten ids spread over it, and among their
 * traces the one with the most calls (the trace filter's trace).
 */
export function paramsFromTable(table: CallTable, projectId: string, calls: number, tableDigest: string, rowDigests: readonly string[] = []): QueryParams {
  const sampleIds = Array.from({ length: Math.min(10, table.size) }, (_, i) => table.id(Math.floor(((i + 0.5) * table.size) / 10)));
  const traceId = sampleIds
    .map((id) => table.traceId(table.rowOf(id)!))
    .reduce((best, t) => ((table.byTrace.get(t)?.length ?? 0) > (table.byTrace.get(best)?.length ?? 0) ? t : best), table.traceId(0) ?? '');
  // The UI's time window: whole seconds around the middle tenth of the start times.
  const starts = Float64Array.from(table.startedAt.data.subarray(0, table.size)).sort();
  const at = (q: number) => starts[Math.min(starts.length - 1, Math.floor(q * starts.length))] ?? 0;
  const startRange: [number, number] = [Math.floor(at(0.45) / 1e6), Math.floor(at(0.55) / 1e6)];
  return { projectId, calls, sampleIds, traceId, tableDigest, startRange, rowDigests: rowDigests.slice(0, 1000) };
}

export interface QueryParams {
  projectId: string;
  /** Number of calls loaded (the offset query pages from the middle). */
  calls: number;
  /** About ten call ids spread over the data set. */
  sampleIds: string[];
  /** A trace id with several calls. */
  traceId: string;
  /** Digest of the generated table. */
  tableDigest: string;
  /** A started_at window, unix seconds [from, to): about a tenth of the calls. */
  startRange?: [number, number];
  /** Row digests for the table's digest filter (up to 1000, spread over the table). */
  rowDigests?: string[];
}

export type QueryRoute = '/calls/stream_query' | '/threads/stream_query' | '/table/query_stream' | '/calls/query_stats';

/** What a result row is canonicalised as for the content check. */
export type RowKind = 'call' | 'thread' | 'table_row' | 'stats';

export interface BenchQuery {
  name: string;
  description: string;
  route: QueryRoute;
  /** Which engine answers it: the calls engine (calls, objects, feedback) or the table engine. */
  engine: 'calls' | 'table';
  body: Record<string, unknown>;
  kind: RowKind;
  /** Columns the content check compares (null: every column). */
  columns: readonly string[] | null;
  sql: { plain: string; tuned: string };
  /**
   * The query reads JSON paths no other query of the mix reads: it also gets first-use runs,
   * each right after the path caches are dropped (the first of them on a path nothing touched
   * before), against DuckDB's plain SQL.
   */
  firstUse?: boolean;
}

/** Sizes of the one-shot section's queries: a filter and a sorted page (issue #12 §1). */
export const ONE_SHOT_QUERIES = ['op_wildcard', 'roots_page_100'] as const;

/**
 * The hook for `/calls/query_stats` (added in parallel): the count of the UI's roots view.
 * The bench runs it only when the route exists in allRoutes().
 */
export const QUERY_STATS_ROUTE = '/calls/query_stats';

export const sqlString = (s: string) => `'${s.replace(/'/g, "''")}'`;

/** The columns the Weave UI's calls table asks for on its default view. */
export const UI_COLUMNS = ['id', 'trace_id', 'op_name', 'display_name', 'started_at', 'ended_at', 'exception', 'parent_id', 'summary', 'svc_user_id'];

// ---------------------------------------------------------------------------------------------
// SQL builders for call rows.

const STATUS_PLAIN =
  `CASE WHEN c.exception IS NOT NULL AND c.exception <> '' THEN 'error' WHEN c.ended_at IS NULL THEN 'running' ` +
  `WHEN coalesce(TRY_CAST(json_extract(c.summary, '$.status_counts.error') AS BIGINT), 0) > 0 THEN 'descendant_error' ELSE 'success' END`;
/** The returned `summary.weave.latency_ms`: Python timedelta ms, a floor of the difference. */
const LATENCY_PLAIN = '(epoch_us(c.ended_at) - epoch_us(c.started_at)) // 1000';
/** The sort/filter side's latency: ClickHouse's dateDiff of whole ms, each end floored first. */
const LATENCY_SORT_PLAIN = '(epoch_us(c.ended_at) // 1000) - (epoch_us(c.started_at) // 1000)';
const TRACE_NAME_PLAIN = `regexp_extract(c.op_name, '/([^/:]*):[^/]*$', 1)`;

/**
 * ORDER BY of a dynamic-field sort (semantics.md#calls-sort-dynamic) in plain SQL: present and
 * not JSON null first, then the float reading, then the string reading, then id.
 */
function dynamicSortSql(column: string, path: string, direction: 'ASC' | 'DESC'): string {
  const p = sqlString(path);
  return (
    `coalesce(json_type(${column}, ${p}) <> 'NULL', false) DESC, TRY_CAST(json_extract_string(${column}, ${p}) AS DOUBLE) ${direction} NULLS LAST, ` +
    `json_extract_string(${column}, ${p}) ${direction} NULLS LAST, c.id ASC`
  );
}

/**
 * Threads by p50 turn duration, descending, NULLs last, then thread_id (semantics.md#threads-sort).
 * The median, not p99: a linear p99 is rounded differently by DuckDB and tq in the last bits, so
 * equal p99s could order apart; a median is a whole or half millisecond on both sides.
 */
const P50_DESC = 'quantile_cont(dur, 0.5) DESC NULLS LAST, thread_id ASC';

/** A started_at bound in SQL: unix seconds as a TIMESTAMP. */
const sqlTime = (seconds: number) => `make_timestamp(${seconds * 1_000_000})`;

/** The precomputed columns of the tuned variant (bench/duckdb.ts adds them after the load). */
export const TUNED_COLUMNS: ReadonlyArray<[string, string, string]> = [
  ['t_status', 'VARCHAR', STATUS_PLAIN],
  ['t_latency_ms', 'BIGINT', LATENCY_PLAIN],
  ['t_latency_sort', 'BIGINT', LATENCY_SORT_PLAIN],
  ['t_trace_name', 'VARCHAR', TRACE_NAME_PLAIN],
  ['t_inputs_n', 'DOUBLE', `TRY_CAST(json_extract_string(c.inputs, '$.n') AS DOUBLE)`],
];

/**
 * Rank columns of the tuned variant, the analogue of tq's start-order and roots indexes
 * (bench/duckdb.ts fills them with a window function after the load): each live call's
 * position in the default order (started_at, id), and each live trace root's position among
 * the roots newest first (started_at desc, id asc), NULL for the others. A page of either order
 * is then a range of ranks, as tq reads it by index distance.
 */
export const RANK_COLUMNS: ReadonlyArray<[string, string, string]> = [
  ['t_start_rank', 'deleted_at IS NULL', 'started_at ASC, id ASC'],
  ['t_root_rank', 'deleted_at IS NULL AND parent_id IS NULL', 'started_at DESC, id ASC'],
];

interface RowSqlOptions {
  tuned: boolean;
  /** Selected columns (tq's `columns`, after its ALWAYS and summary additions); null = all. */
  selected: ReadonlySet<string> | null;
  /** `inputs.prompt` replaced by the joined object `o` (expand_columns). */
  expandPrompt?: boolean;
  /** `summary.weave.feedback` from the joined feedback lists `f`. */
  feedback?: boolean;
}

/** `to_json` of one call row `c`, keys and computed summary as tq renders them. */
function callRowJson(o: RowSqlOptions): string {
  const has = (col: string) => o.selected === null || o.selected.has(col);
  const status = o.tuned ? 'c.t_status' : STATUS_PLAIN;
  const latency = o.tuned ? 'c.t_latency_ms' : LATENCY_PLAIN;
  const traceName = o.tuned ? 'c.t_trace_name' : TRACE_NAME_PLAIN;
  let weave = `json_object('status', ${status}, 'latency_ms', ${latency}, 'trace_name', coalesce(c.display_name, ${traceName})`;
  if (o.feedback) weave += `, 'feedback', coalesce(f.items, '[]'::JSON)`;
  weave += ')';
  const summary = `json_merge_patch(coalesce(c.summary, '{}'::JSON), json_object('weave', ${weave}))`;
  let inputs = has('inputs') ? `coalesce(c.inputs, '{}'::JSON)` : `'{}'::JSON`;
  if (o.expandPrompt && has('inputs')) {
    inputs = `CASE WHEN o.ref IS NULL THEN ${inputs} ELSE json_merge_patch(${inputs}, json_object('prompt', json_merge_patch(o.val, json_object('_ref', o.ref)))) END`;
  }
  const col = (name: string, expr: string, absent = 'NULL') => `${name}: ${has(name) ? expr : absent}`;
  return (
    `to_json({id: c.id, project_id: c.project_id, op_name: c.op_name, ${col('display_name', 'c.display_name')}, trace_id: c.trace_id, ` +
    `${col('parent_id', 'c.parent_id')}, ${col('thread_id', 'c.thread_id')}, ${col('turn_id', 'c.turn_id')}, started_at: c.started_at, ` +
    `${col('attributes', `coalesce(c.attributes, '{}'::JSON)`, `'{}'::JSON`)}, inputs: ${inputs}, ${col('ended_at', 'c.ended_at')}, ` +
    `${col('exception', 'c.exception')}, ${col('output', 'c.output')}, summary: ${has('summary') ? summary : 'NULL'}, ` +
    `${col('svc_user_id', 'c.svc_user_id')}, ${col('svc_run_id', 'c.svc_run_id')}, ${col('svc_run_step', 'c.svc_run_step')}, ` +
    `${col('svc_run_step_end', 'c.svc_run_step_end')}, deleted_at: NULL, storage_size_bytes: NULL, total_storage_size_bytes: NULL})`
  );
}

/** tq's column selection: the requested columns plus id/project/trace/op/start, and what summary needs. */
function selectedSet(columns: readonly string[] | null): ReadonlySet<string> | null {
  if (columns === null) return null;
  const s = new Set(['id', 'project_id', 'trace_id', 'op_name', 'started_at', ...columns]);
  if (s.has('summary')) for (const c of ['ended_at', 'exception', 'display_name']) s.add(c);
  return s;
}

interface CallSqlSpec {
  where: string;
  /** ORDER BY over `c` (and `k` for the page key when the order needs a computed key). */
  orderBy: string;
  limit?: number;
  offset?: number;
  columns?: readonly string[] | null;
  expandPrompt?: boolean;
  feedback?: boolean;
  /** A different WHERE / ORDER BY for the tuned variant. */
  tunedWhere?: string;
  tunedOrderBy?: string;
  /** The tuned variant's offset, when its rank columns place the page directly. */
  tunedOffset?: number;
  /**
   * The tuned variant's source of rows instead of `calls c`: a key lookup written key-first
   * (the key predicate alone in its own SELECT, where DuckDB can use its ART index).
   */
  tunedFrom?: string;
}

/**
 * Both SQL variants of a calls query. With a limit the page's rowids are selected first and
 * only the page is rendered (and joined to objects/feedback); without one every match is.
 */
function callSql(spec: CallSqlSpec, P: string, opts: { objects: string; feedback: string }): { plain: string; tuned: string } {
  const build = (tuned: boolean) => {
    const where = tuned && spec.tunedWhere ? spec.tunedWhere : spec.where;
    const orderBy = tuned && spec.tunedOrderBy ? spec.tunedOrderBy : spec.orderBy;
    const from = tuned && spec.tunedFrom ? spec.tunedFrom : 'calls c';
    const offset = tuned && spec.tunedOffset !== undefined ? spec.tunedOffset : spec.offset;
    const live = `c.project_id = ${sqlString(P)} AND c.deleted_at IS NULL`;
    const row = callRowJson({ tuned, selected: selectedSet(spec.columns ?? null), expandPrompt: spec.expandPrompt, feedback: spec.feedback });
    const joins =
      (spec.expandPrompt ? ` LEFT JOIN ${opts.objects} o ON o.ref = json_extract_string(c.inputs, '$.prompt')` : '') +
      (spec.feedback ? ` LEFT JOIN ${opts.feedback} f ON f.weave_ref = 'weave:///' || c.project_id || '/call/' || c.id` : '');
    if (spec.limit === undefined) return `SELECT ${row} FROM ${from}${joins} WHERE ${live} AND ${where} ORDER BY ${orderBy}`;
    const page =
      `SELECT c.rowid AS r, row_number() OVER () AS pos FROM (SELECT c.rowid FROM ${from} WHERE ${live} AND ${where} ` +
      `ORDER BY ${orderBy} LIMIT ${spec.limit}${offset ? ` OFFSET ${offset}` : ''}) c`;
    return `SELECT ${row} FROM (${page}) p JOIN calls c ON c.rowid = p.r${joins} ORDER BY p.pos`;
  };
  return { plain: build(false), tuned: build(true) };
}

/** Objects keyed by their ref URI, and feedback lists per call ref (bench/duckdb.ts creates both). */
const JOINED = { objects: 'objects', feedback: 'feedback_lists' };

// ---------------------------------------------------------------------------------------------

/** A calls stream query of project `P`, its SQL built from the spec (joined with the objects and feedback-list tables). */
function callsQueryIn(P: string) {
  return (q: Omit<BenchQuery, 'route' | 'engine' | 'kind' | 'sql' | 'columns'> & { sql: CallSqlSpec }): BenchQuery => ({
    ...q,
    route: '/calls/stream_query',
    engine: 'calls',
    kind: 'call',
    columns: q.sql.columns ?? null,
    sql: callSql(q.sql, P, JOINED),
  });
}

/** The query mix (issue #12). */
export function benchQueries(p: QueryParams): BenchQuery[] {
  const P = p.projectId;
  const opPrefix = `weave:///${P}/op/retrieve:`;
  const offset = Math.floor(p.calls / 2);
  const byStart = 'c.started_at ASC, c.id ASC';
  // Equal start times are listed by id ascending in both directions (semantics.md#calls-sort-tiebreak).
  const byStartDesc = 'c.started_at DESC, c.id ASC';
  const calls = callsQueryIn(P);
  const exprBody = {
    $expr: {
      $and: [
        { $gt: [{ $convert: { input: { $getField: 'inputs.n' }, to: 'double' } }, { $literal: 500 }] },
        { $contains: { input: { $getField: 'op_name' }, substr: { $literal: 'retrieve' } } },
      ],
    },
  };
  const roots = { project_id: P, filter: { trace_roots_only: true }, sort_by: [{ field: 'started_at', direction: 'desc' }] };
  /** A page of the newest trace roots, with request extras and the matching SQL options. */
  const rootsPage = (name: string, description: string, limit: number, extra: Record<string, unknown>, sql: Partial<CallSqlSpec>) =>
    calls({ name, description, body: { ...roots, limit, ...extra }, sql: { where: 'c.parent_id IS NULL', orderBy: byStartDesc, tunedWhere: 'c.t_root_rank <= ' + limit, tunedOrderBy: 'c.t_root_rank', limit, ...sql } });

  return [
    calls({
      name: 'id_filter',
      description: `filter.call_ids (${p.sampleIds.length} ids), default order`,
      body: { project_id: P, filter: { call_ids: p.sampleIds } },
      sql: {
        where: `c.id IN (${p.sampleIds.map(sqlString).join(', ')})`,
        orderBy: byStart,
        tunedWhere: 'TRUE',
        tunedFrom: `(${p.sampleIds.map((id) => `SELECT * FROM calls WHERE id = ${sqlString(id)}`).join(' UNION ALL ') || 'SELECT * FROM calls WHERE FALSE'}) c`,
      },
    }),
    calls({
      name: 'trace_filter',
      description: 'filter.trace_ids (one trace), default order',
      body: { project_id: P, filter: { trace_ids: [p.traceId] } },
      sql: { where: `c.trace_id = ${sqlString(p.traceId)}`, orderBy: byStart, tunedWhere: 'TRUE', tunedFrom: `(SELECT * FROM calls WHERE trace_id = ${sqlString(p.traceId)}) c` },
    }),
    rootsPage('roots_page_50', 'UI default view: trace roots, started_at desc, limit 50, columns subset', 50, { columns: UI_COLUMNS }, { columns: UI_COLUMNS }),
    rootsPage('roots_page_100', 'UI default view: trace roots, started_at desc, limit 100, columns subset', 100, { columns: UI_COLUMNS }, { columns: UI_COLUMNS }),
    rootsPage('roots_expand', 'trace roots, started_at desc, limit 50, expand_columns inputs.prompt (an object ref)', 50, { expand_columns: ['inputs.prompt'] }, { expandPrompt: true }),
    rootsPage('roots_feedback', 'trace roots, started_at desc, limit 100, include_feedback', 100, { include_feedback: true }, { feedback: true }),
    calls({
      name: 'op_wildcard',
      description: `filter.op_names ['${opPrefix}*'], default order, all matches`,
      body: { project_id: P, filter: { op_names: [`${opPrefix}*`] } },
      sql: { where: `starts_with(c.op_name, ${sqlString(opPrefix)})`, orderBy: byStart },
    }),
    calls({
      name: 'expr_scan',
      description: '$expr: double(inputs.n) > 500 AND $contains(op_name, "retrieve"), default order, all matches',
      body: { project_id: P, query: exprBody },
      sql: {
        where: `TRY_CAST(json_extract_string(c.inputs, '$.n') AS DOUBLE) > 500 AND contains(c.op_name, 'retrieve')`,
        tunedWhere: `c.t_inputs_n > 500 AND contains(c.op_name, 'retrieve')`,
        orderBy: byStart,
      },
    }),
    calls({
      name: 'latency_top',
      description: 'sort summary.weave.latency_ms desc (NULLs last, then id asc), limit 50',
      body: { project_id: P, sort_by: [{ field: 'summary.weave.latency_ms', direction: 'desc' }], limit: 50 },
      sql: {
        where: 'TRUE',
        orderBy: `${LATENCY_SORT_PLAIN} DESC NULLS LAST, c.id ASC`,
        tunedOrderBy: 'c.t_latency_sort DESC NULLS LAST, c.id ASC',
        limit: 50,
      },
    }),
    calls({
      name: 'offset_page',
      description: `default order, offset ${offset}, limit 100`,
      body: { project_id: P, offset, limit: 100 },
      sql: { where: 'TRUE', orderBy: byStart, limit: 100, offset, tunedWhere: `c.t_start_rank > ${offset} AND c.t_start_rank <= ${offset + 100}`, tunedOrderBy: 'c.t_start_rank', tunedOffset: 0 },
    }),
    {
      name: 'threads_all',
      description: '/threads/stream_query, every thread, default order (last_updated desc, thread_id asc)',
      route: '/threads/stream_query',
      engine: 'calls',
      body: { project_id: P },
      kind: 'thread',
      columns: null,
      sql: { plain: threadsSql(P), tuned: threadsSql(P) },
    },
    {
      name: 'table_sort',
      description: '/table/query_stream, sort meta.difficulty desc (ties: original_index asc), limit 100',
      route: '/table/query_stream',
      engine: 'table',
      body: { project_id: P, digest: p.tableDigest, sort_by: [{ field: 'meta.difficulty', order: 'desc' }], limit: 100 },
      kind: 'table_row',
      columns: null,
      // semantics.md#table-sort-keys: presence first (both directions), then the float
      // reading, then the text, then table order.
      sql: {
        plain:
          `SELECT to_json({digest: t.digest, val: t.val, original_index: t.idx}) FROM (SELECT rowid AS r FROM table_rows ORDER BY ` +
          `coalesce(json_type(val, '$.meta.difficulty') <> 'NULL', false) DESC, ` +
          `TRY_CAST(json_extract_string(val, '$.meta.difficulty') AS DOUBLE) DESC NULLS LAST, ` +
          `json_extract_string(val, '$.meta.difficulty') DESC NULLS LAST, idx ASC LIMIT 100) p JOIN table_rows t ON t.rowid = p.r ` +
          `ORDER BY coalesce(json_type(t.val, '$.meta.difficulty') <> 'NULL', false) DESC, ` +
          `TRY_CAST(json_extract_string(t.val, '$.meta.difficulty') AS DOUBLE) DESC NULLS LAST, ` +
          `json_extract_string(t.val, '$.meta.difficulty') DESC NULLS LAST, t.idx ASC`,
        tuned:
          `SELECT to_json({digest: t.digest, val: t.val, original_index: t.idx}) FROM (SELECT rowid AS r FROM table_rows ORDER BY ` +
          `t_present DESC, t_float DESC NULLS LAST, t_text DESC NULLS LAST, idx ASC LIMIT 100) p JOIN table_rows t ON t.rowid = p.r ` +
          `ORDER BY t.t_present DESC, t.t_float DESC NULLS LAST, t.t_text DESC NULLS LAST, t.idx ASC`,
      },
    },
  ];
}

/**
 * A table sort page in plain SQL (semantics.md#table-sort-keys: presence first in both
 * directions, the float reading, the text, then table order), rows chosen first by rowid.
 */
function tableSortSql(path: string, direction: 'ASC' | 'DESC', limit: number, where = 'TRUE'): string {
  const p = sqlString(`$.${path}`);
  const order = (t: string) =>
    `coalesce(json_type(${t}val, ${p}) <> 'NULL', false) DESC, TRY_CAST(json_extract_string(${t}val, ${p}) AS DOUBLE) ${direction} NULLS LAST, ` +
    `json_extract_string(${t}val, ${p}) ${direction} NULLS LAST, ${t}idx ASC`;
  return (
    `SELECT to_json({digest: t.digest, val: t.val, original_index: t.idx}) FROM (SELECT rowid AS r FROM table_rows WHERE ${where} ORDER BY ${order('')} ` +
    `LIMIT ${limit}) p JOIN table_rows t ON t.rowid = p.r ORDER BY ${order('t.')}`
  );
}

/** A `/calls/query_stats` count in SQL. */
function countSql(P: string, where: string): string {
  return `SELECT to_json({count: count(*), total_storage_size_bytes: NULL}) FROM calls c WHERE c.project_id = ${sqlString(P)} AND c.deleted_at IS NULL AND ${where}`;
}

/**
 * The first-use queries (each reads JSON paths no other query reads) and the UI-shaped requests
 * of issue #25: time windows with roots only, counts over them, a deep offset under a computed
 * sort, two nested input paths, threads by a percentile, a table digest filter with a nested sort.
 */
export function uiQueries(p: QueryParams): BenchQuery[] {
  const P = p.projectId;
  const [from, to] = p.startRange ?? [0, 0];
  const rowDigests = p.rowDigests ?? [];
  const calls = callsQueryIn(P);
  const latencyDesc = `${LATENCY_SORT_PLAIN} DESC NULLS LAST, c.id ASC`;
  const window = { $and: [{ $gte: [{ $getField: 'started_at' }, { $literal: from }] }, { $lt: [{ $getField: 'started_at' }, { $literal: to }] }] };
  const windowSql = `c.started_at >= ${sqlTime(from)} AND c.started_at < ${sqlTime(to)}`;
  const stats = (name: string, description: string, body: Record<string, unknown>, where: string): BenchQuery => ({
    name,
    description,
    route: QUERY_STATS_ROUTE,
    engine: 'calls',
    body: { project_id: P, ...body },
    kind: 'stats',
    columns: null,
    sql: { plain: countSql(P, where), tuned: countSql(P, where) },
  });
  const nested = {
    $and: [
      { $gte: [{ $convert: { input: { $getField: 'inputs.config.retries' }, to: 'double' } }, { $literal: 2 }] },
      { $eq: [{ $getField: 'inputs.config.stream' }, { $literal: 'true' }] },
    ],
  };
  const digests = rowDigests.map(sqlString).join(', ') || 'NULL';
  // 10,000 deep, or half the calls on a small data set (the smoke test's), so the page has rows.
  const deep = Math.min(10_000, Math.floor(p.calls / 2));
  return [
    calls({
      name: 'first_sort_calls',
      description: 'first use: sort by output.score desc (a path no other query reads), limit 50, UI columns',
      firstUse: true,
      body: { project_id: P, sort_by: [{ field: 'output.score', direction: 'desc' }], limit: 50, columns: UI_COLUMNS },
      sql: { where: 'TRUE', orderBy: dynamicSortSql('c.output', '$.score', 'DESC'), limit: 50, columns: UI_COLUMNS },
    }),
    calls({
      name: 'first_expr_calls',
      description: 'first use: $expr inputs.model = "gpt-4o-mini" AND double(inputs.max_tokens) > 256, sort latency desc, limit 50',
      firstUse: true,
      body: {
        project_id: P,
        query: {
          $expr: {
            $and: [
              { $eq: [{ $getField: 'inputs.model' }, { $literal: 'gpt-4o-mini' }] },
              { $gt: [{ $convert: { input: { $getField: 'inputs.max_tokens' }, to: 'double' } }, { $literal: 256 }] },
            ],
          },
        },
        sort_by: [{ field: 'summary.weave.latency_ms', direction: 'desc' }],
        limit: 50,
      },
      sql: {
        where: `coalesce(json_extract_string(c.inputs, '$.model'), '') = 'gpt-4o-mini' AND TRY_CAST(json_extract_string(c.inputs, '$.max_tokens') AS DOUBLE) > 256`,
        orderBy: latencyDesc,
        tunedOrderBy: 'c.t_latency_sort DESC NULLS LAST, c.id ASC',
        limit: 50,
      },
    }),
    {
      name: 'first_sort_table',
      description: '/table/query_stream, first use: sort expected desc (a path no other query reads), limit 100',
      route: '/table/query_stream',
      engine: 'table',
      firstUse: true,
      body: { project_id: P, digest: p.tableDigest, sort_by: [{ field: 'expected', order: 'desc' }], limit: 100 },
      kind: 'table_row',
      columns: null,
      sql: { plain: tableSortSql('expected', 'DESC', 100), tuned: tableSortSql('expected', 'DESC', 100) },
    },
    calls({
      name: 'ui_roots_window',
      description: `UI: trace roots started in [${from}, ${to}) s, started_at desc, limit 50, UI columns`,
      body: { project_id: P, filter: { trace_roots_only: true }, query: { $expr: window }, sort_by: [{ field: 'started_at', direction: 'desc' }], limit: 50, columns: UI_COLUMNS },
      sql: { where: `c.parent_id IS NULL AND ${windowSql}`, orderBy: 'c.started_at DESC, c.id ASC', tunedWhere: `c.t_root_rank IS NOT NULL AND ${windowSql}`, tunedOrderBy: 'c.t_root_rank', limit: 50, columns: UI_COLUMNS },
    }),
    stats('ui_count_roots_window', '/calls/query_stats: trace roots in the time window', { filter: { trace_roots_only: true }, query: { $expr: window } }, `c.parent_id IS NULL AND ${windowSql}`),
    stats('ui_count_window', '/calls/query_stats: calls in the time window', { query: { $expr: window } }, windowSql),
    calls({
      name: 'ui_offset_latency',
      description: `UI: sort summary.weave.latency_ms desc, offset ${deep}, limit 50, UI columns`,
      body: { project_id: P, sort_by: [{ field: 'summary.weave.latency_ms', direction: 'desc' }], offset: deep, limit: 50, columns: UI_COLUMNS },
      sql: { where: 'TRUE', orderBy: latencyDesc, tunedOrderBy: 'c.t_latency_sort DESC NULLS LAST, c.id ASC', limit: 50, offset: deep, columns: UI_COLUMNS },
    }),
    calls({
      name: 'ui_nested_inputs',
      description: 'UI: double(inputs.config.retries) >= 2 AND inputs.config.stream = "true", started_at desc, limit 50',
      body: { project_id: P, query: { $expr: nested }, sort_by: [{ field: 'started_at', direction: 'desc' }], limit: 50 },
      sql: {
        where: `TRY_CAST(json_extract_string(c.inputs, '$.config.retries') AS DOUBLE) >= 2 AND coalesce(json_extract_string(c.inputs, '$.config.stream'), '') = 'true'`,
        orderBy: 'c.started_at DESC, c.id ASC',
        limit: 50,
      },
    }),
    {
      name: 'ui_threads_p50',
      description: '/threads/stream_query sorted by p50_turn_duration_ms desc',
      route: '/threads/stream_query',
      engine: 'calls',
      body: { project_id: P, sort_by: [{ field: 'p50_turn_duration_ms', direction: 'desc' }] },
      kind: 'thread',
      columns: null,
      sql: { plain: threadsSql(P, P50_DESC), tuned: threadsSql(P, P50_DESC) },
    },
    {
      name: 'ui_table_digests',
      description: `/table/query_stream, row_digests (${rowDigests.length}) and sort meta.difficulty asc, limit 100`,
      route: '/table/query_stream',
      engine: 'table',
      body: { project_id: P, digest: p.tableDigest, filter: { row_digests: rowDigests }, sort_by: [{ field: 'meta.difficulty', order: 'asc' }], limit: 100 },
      kind: 'table_row',
      columns: null,
      sql: { plain: tableSortSql('meta.difficulty', 'ASC', 100, `digest IN (${digests})`), tuned: tableSortSql('meta.difficulty', 'ASC', 100, `digest IN (${digests})`) },
    },
  ];
}

/** The `/calls/query_stats` count of the UI's roots view, for when the route exists. */
export function queryStatsQuery(P: string): BenchQuery {
  // CallsQueryStatsRes always carries total_storage_size_bytes (null unless asked for).
  const sql = `SELECT to_json({count: count(*), total_storage_size_bytes: NULL}) FROM calls c WHERE c.project_id = ${sqlString(P)} AND c.deleted_at IS NULL AND c.parent_id IS NULL`;
  return {
    name: 'query_stats_roots',
    description: '/calls/query_stats: count of trace roots',
    route: QUERY_STATS_ROUTE,
    engine: 'calls',
    body: { project_id: P, filter: { trace_roots_only: true } },
    kind: 'stats',
    columns: null,
    sql: { plain: sql, tuned: sql },
  };
}

/**
 * Threads by SQL: turns (id = turn_id, thread id neither null nor empty) grouped by thread,
 * threads without a finished turn left out, whole-ms durations as ClickHouse's dateDiff
 * counts them (floor of each end), linear percentiles; one JSON text per thread.
 */
export function threadsSql(P: string, orderBy = 'max(ended_at) DESC, thread_id ASC'): string {
  return (
    `WITH turns AS (SELECT thread_id, id, started_at, ended_at, ` +
    `(epoch_us(ended_at) // 1000) - (epoch_us(started_at) // 1000) AS dur FROM calls ` +
    `WHERE project_id = ${sqlString(P)} AND deleted_at IS NULL AND id = turn_id AND thread_id IS NOT NULL AND thread_id <> '') ` +
    `SELECT to_json({thread_id: thread_id, turn_count: count(*), start_time: min(started_at), last_updated: max(ended_at), ` +
    `first_turn_id: arg_min(id, started_at), last_turn_id: arg_max(id, ended_at), ` +
    `p50_turn_duration_ms: quantile_cont(dur, 0.5), p99_turn_duration_ms: quantile_cont(dur, 0.99)}) ` +
    `FROM turns GROUP BY thread_id HAVING max(ended_at) IS NOT NULL ORDER BY ${orderBy}`
  );
}
