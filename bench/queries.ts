/**
 * The benchmark's query mix, each in three equivalent forms:
 *   - the tq request (route path + body), timed through `route.run` to the last line;
 *   - DuckDB SQL returning the same ids in the same order (tq's semantics mirrored: deleted
 *     calls excluded, NULLs last in both directions, the implicit `id` tie-break of
 *     semantics.md#calls-sort-tiebreak, the thread and table tie-breaks of
 *     semantics.md#order-ties);
 *   - a hand-written closure over the JSON.parse'd objects (the ceiling for a scan).
 *
 * tq and DuckDB produce whole rows (tq its JSON lines, DuckDB every column of the matching
 * calls, or the row value for tables: the same work of producing the answer); the first
 * column is the id the cross-check compares. Closures return ids only: they are the ceiling
 * for the scan, not for producing answers.
 */

/** A call as JSON.parse gives it from calls.jsonl (only the fields the closures read). */
export interface CallObject {
  id: string;
  project_id: string;
  op_name: string;
  trace_id: string;
  parent_id: string | null;
  thread_id: string | null;
  turn_id: string | null;
  started_at: string;
  ended_at: string | null;
  deleted_at: string | null;
  inputs: Record<string, unknown> | null;
}

/** A table row as JSON.parse gives it. */
export type TableRowObject = Record<string, unknown>;

export interface ClosureData {
  calls: CallObject[];
  tableRows: TableRowObject[];
}

export interface QueryParams {
  projectId: string;
  /** Number of calls loaded (the offset query pages from the middle). */
  calls: number;
  /** About ten call ids spread over the data set. */
  sampleIds: string[];
  /** Digest of the generated table. */
  tableDigest: string;
}

export type QueryRoute = '/calls/stream_query' | '/threads/stream_query' | '/table/query_stream';

export interface BenchQuery {
  name: string;
  description: string;
  route: QueryRoute;
  body: Record<string, unknown>;
  /** The id a result line stands for. */
  lineId(line: string): string;
  /** DuckDB SQL whose first column is the id, in result order. */
  sql: string;
  closure(data: ClosureData): string[];
}

const sqlString = (s: string) => `'${s.replace(/'/g, "''")}'`;

// ---------------------------------------------------------------------------------------------
// Closure helpers: what a developer would write by hand over parsed call objects.

/**
 * Generated datetimes all have the form `YYYY-MM-DDTHH:MM:SS.ffffffZ`, so comparing the
 * strings compares the instants; the closures rely on that, as a hand-written filter would.
 */
const cmpStr = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const byStartThenId = (a: CallObject, b: CallObject) => cmpStr(a.started_at, b.started_at) || cmpStr(a.id, b.id);

/** Whole milliseconds of an ISO instant (Date.parse truncates the microseconds). */
const epochMs = (iso: string) => Date.parse(iso);

/** The best `k` items offered under `cmp`, kept in a sorted array (k is small). */
class BestK<T> {
  readonly items: T[] = [];
  constructor(private readonly k: number, private readonly cmp: (a: T, b: T) => number) {}

  offer(item: T): void {
    const best = this.items;
    if (best.length === this.k && this.cmp(item, best[this.k - 1]) >= 0) return;
    let lo = 0, hi = best.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.cmp(best[mid], item) <= 0) lo = mid + 1;
      else hi = mid;
    }
    best.splice(lo, 0, item);
    if (best.length > this.k) best.pop();
  }
}

const isLive = (c: CallObject, projectId: string) => c.deleted_at === null && c.project_id === projectId;

/** toFloat64OrNull of a JSON value's rendering, for the numbers and numeric strings of the data. */
function asDouble(v: unknown): number | null {
  if (typeof v === 'number') return v;
  if (typeof v === 'string' && v.trim() !== '') {
    const n = Number(v);
    return Number.isNaN(n) ? null : n;
  }
  return null;
}

/** numpy's default (linear) percentile of sorted values. */
function percentileLinear(sorted: readonly number[], q: number): number {
  const pos = q * (sorted.length - 1);
  const lo = Math.floor(pos);
  const hi = Math.min(lo + 1, sorted.length - 1);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
}

export interface ThreadSummary {
  thread_id: string;
  turn_count: number;
  start_time: string;
  last_updated: string;
  first_turn_id: string;
  last_turn_id: string;
  p50: number;
  p99: number;
}

/** Thread statistics by hand (semantics.md#threads), default order. */
export function closureThreads(data: ClosureData, projectId: string): ThreadSummary[] {
  interface Acc {
    count: number;
    first: CallObject;
    last: CallObject | null;
    durations: number[];
  }
  const byThread = new Map<string, Acc>();
  for (const c of data.calls) {
    if (!isLive(c, projectId) || c.id !== c.turn_id || c.thread_id === null || c.thread_id === '') continue;
    let acc = byThread.get(c.thread_id);
    if (!acc) byThread.set(c.thread_id, (acc = { count: 0, first: c, last: null, durations: [] }));
    acc.count++;
    if (c.started_at < acc.first.started_at) acc.first = c;
    if (c.ended_at !== null) {
      if (acc.last === null || c.ended_at > acc.last.ended_at!) acc.last = c;
      acc.durations.push(epochMs(c.ended_at) - epochMs(c.started_at));
    }
  }
  const out: ThreadSummary[] = [];
  for (const [thread_id, acc] of byThread) {
    if (acc.last === null) continue;
    const d = acc.durations.sort((a, b) => a - b);
    out.push({
      thread_id,
      turn_count: acc.count,
      start_time: acc.first.started_at,
      last_updated: acc.last.ended_at!,
      first_turn_id: acc.first.id,
      last_turn_id: acc.last.id,
      p50: percentileLinear(d, 0.5),
      p99: percentileLinear(d, 0.99),
    });
  }
  return out.sort((a, b) => cmpStr(b.last_updated, a.last_updated) || cmpStr(a.thread_id, b.thread_id));
}

// ---------------------------------------------------------------------------------------------

const callId = (line: string) => (JSON.parse(line) as { id: string }).id;

/** The query mix (issue #7). */
export function benchQueries(p: QueryParams): BenchQuery[] {
  const P = p.projectId;
  const liveSql = `project_id = ${sqlString(P)} AND deleted_at IS NULL`;
  const opPrefix = `weave:///${P}/op/retrieve:`;
  const offset = Math.floor(p.calls / 2);
  const latencySql = '(epoch_us(ended_at) // 1000) - (epoch_us(started_at) // 1000)';

  return [
    {
      name: 'id_filter',
      description: `filter.call_ids (${p.sampleIds.length} ids), default order`,
      route: '/calls/stream_query',
      body: { project_id: P, filter: { call_ids: p.sampleIds } },
      lineId: callId,
      sql: `SELECT id, * FROM calls WHERE ${liveSql} AND id IN (${p.sampleIds.map(sqlString).join(', ')}) ORDER BY started_at ASC, id ASC`,
      closure(data) {
        const wanted = new Set(p.sampleIds);
        const hits: CallObject[] = [];
        for (const c of data.calls) if (isLive(c, P) && wanted.has(c.id)) hits.push(c);
        return hits.sort(byStartThenId).map((c) => c.id);
      },
    },
    {
      name: 'op_wildcard',
      description: `filter.op_names ['${opPrefix}*'], default order, all matches`,
      route: '/calls/stream_query',
      body: { project_id: P, filter: { op_names: [`${opPrefix}*`] } },
      lineId: callId,
      sql: `SELECT id, * FROM calls WHERE ${liveSql} AND starts_with(op_name, ${sqlString(opPrefix)}) ORDER BY started_at ASC, id ASC`,
      closure(data) {
        const hits: CallObject[] = [];
        for (const c of data.calls) if (isLive(c, P) && c.op_name.startsWith(opPrefix)) hits.push(c);
        return hits.sort(byStartThenId).map((c) => c.id);
      },
    },
    {
      name: 'expr_scan',
      description: '$expr: double(inputs.n) > 500 AND $contains(op_name, "retrieve"), default order, all matches',
      route: '/calls/stream_query',
      body: {
        project_id: P,
        query: {
          $expr: {
            $and: [
              { $gt: [{ $convert: { input: { $getField: 'inputs.n' }, to: 'double' } }, { $literal: 500 }] },
              { $contains: { input: { $getField: 'op_name' }, substr: { $literal: 'retrieve' } } },
            ],
          },
        },
      },
      lineId: callId,
      sql:
        `SELECT id, * FROM calls WHERE ${liveSql} AND TRY_CAST(json_extract_string(inputs, '$.n') AS DOUBLE) > 500 ` +
        `AND contains(op_name, 'retrieve') ORDER BY started_at ASC, id ASC`,
      closure(data) {
        const hits: CallObject[] = [];
        for (const c of data.calls) {
          if (!isLive(c, P)) continue;
          const n = asDouble(c.inputs?.n);
          if (n !== null && n > 500 && c.op_name.includes('retrieve')) hits.push(c);
        }
        return hits.sort(byStartThenId).map((c) => c.id);
      },
    },
    {
      name: 'roots_recent',
      description: 'trace_roots_only, sort started_at desc (then id desc), limit 100',
      route: '/calls/stream_query',
      body: { project_id: P, filter: { trace_roots_only: true }, sort_by: [{ field: 'started_at', direction: 'desc' }], limit: 100 },
      lineId: callId,
      sql: `SELECT id, * FROM calls WHERE ${liveSql} AND parent_id IS NULL ORDER BY started_at DESC, id DESC LIMIT 100`,
      closure(data) {
        const top = new BestK<CallObject>(100, (a, b) => -byStartThenId(a, b));
        for (const c of data.calls) if (isLive(c, P) && c.parent_id === null) top.offer(c);
        return top.items.map((c) => c.id);
      },
    },
    {
      name: 'latency_top',
      description: 'sort summary.weave.latency_ms desc (NULLs last, then id desc), limit 50',
      route: '/calls/stream_query',
      body: { project_id: P, sort_by: [{ field: 'summary.weave.latency_ms', direction: 'desc' }], limit: 50 },
      lineId: callId,
      sql: `SELECT id, * FROM calls WHERE ${liveSql} ORDER BY ${latencySql} DESC NULLS LAST, id DESC LIMIT 50`,
      closure(data) {
        type Keyed = { id: string; latency: number | null };
        const top = new BestK<Keyed>(50, (a, b) => {
          if (a.latency === null || b.latency === null) {
            if (a.latency !== b.latency) return a.latency === null ? 1 : -1;
          } else if (a.latency !== b.latency) return b.latency - a.latency;
          return cmpStr(b.id, a.id);
        });
        for (const c of data.calls) {
          if (isLive(c, P)) top.offer({ id: c.id, latency: c.ended_at === null ? null : epochMs(c.ended_at) - epochMs(c.started_at) });
        }
        return top.items.map((c) => c.id);
      },
    },
    {
      name: 'offset_page',
      description: `default order, offset ${offset}, limit 100`,
      route: '/calls/stream_query',
      body: { project_id: P, offset, limit: 100 },
      lineId: callId,
      sql: `SELECT id, * FROM calls WHERE ${liveSql} ORDER BY started_at ASC, id ASC LIMIT 100 OFFSET ${offset}`,
      closure(data) {
        return data.calls.filter((c) => isLive(c, P)).sort(byStartThenId).slice(offset, offset + 100).map((c) => c.id);
      },
    },
    {
      name: 'threads_all',
      description: '/threads/stream_query, every thread, default order (last_updated desc, thread_id asc)',
      route: '/threads/stream_query',
      body: { project_id: P },
      lineId: (line) => (JSON.parse(line) as { thread_id: string }).thread_id,
      sql: threadsSql(liveSql),
      closure: (data) => closureThreads(data, P).map((t) => t.thread_id),
    },
    {
      name: 'table_sort',
      description: `/table/query_stream, sort meta.difficulty desc (ties: original_index asc), limit 100`,
      route: '/table/query_stream',
      body: { project_id: P, digest: p.tableDigest, sort_by: [{ field: 'meta.difficulty', order: 'desc' }], limit: 100 },
      lineId: (line) => String((JSON.parse(line) as { original_index: number }).original_index),
      // semantics.md#table-sort-keys: presence first (both directions), then the float
      // reading, then the text, then table order.
      sql:
        `SELECT idx, val FROM table_rows ORDER BY ` +
        `coalesce(json_type(val, '$.meta.difficulty') <> 'NULL', false) DESC, ` +
        `TRY_CAST(json_extract_string(val, '$.meta.difficulty') AS DOUBLE) DESC NULLS LAST, ` +
        `json_extract_string(val, '$.meta.difficulty') DESC NULLS LAST, idx ASC LIMIT 100`,
      closure(data) {
        type Keyed = { i: number; d: number | null };
        const top = new BestK<Keyed>(100, (a, b) => {
          if (a.d === null || b.d === null) {
            if (a.d !== b.d) return a.d === null ? 1 : -1;
          } else if (a.d !== b.d) return b.d - a.d;
          return a.i - b.i;
        });
        const rows = data.tableRows;
        for (let i = 0; i < rows.length; i++) {
          const meta = rows[i].meta as Record<string, unknown> | null | undefined;
          top.offer({ i, d: asDouble(meta?.difficulty) });
        }
        return top.items.map((r) => String(r.i));
      },
    },
  ];
}

/**
 * Threads by SQL: turns (id = turn_id, thread id neither null nor empty) grouped by thread,
 * threads without a finished turn left out, whole-ms durations as ClickHouse's dateDiff
 * counts them (floor of each end), linear percentiles.
 */
export function threadsSql(liveSql: string): string {
  return (
    `WITH turns AS (SELECT thread_id, id, started_at, ended_at, ` +
    `(epoch_us(ended_at) // 1000) - (epoch_us(started_at) // 1000) AS dur FROM calls ` +
    `WHERE ${liveSql} AND id = turn_id AND thread_id IS NOT NULL AND thread_id <> '') ` +
    `SELECT thread_id, count(*) AS turn_count, epoch_us(min(started_at)) AS start_us, epoch_us(max(ended_at)) AS last_us, ` +
    `arg_min(id, started_at) AS first_turn_id, arg_max(id, ended_at) AS last_turn_id, ` +
    `quantile_cont(dur, 0.5) AS p50, quantile_cont(dur, 0.99) AS p99 ` +
    `FROM turns GROUP BY thread_id HAVING max(ended_at) IS NOT NULL ORDER BY max(ended_at) DESC, thread_id ASC`
  );
}
