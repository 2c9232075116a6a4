/**
 * tq against DuckDB and a hand-written baseline, on one generated data set, in one process
 * (issue #7). Run: `npm run bench -- --calls 1000000` (node --expose-gc --import tsx).
 *
 * Measures
 *   1. load: tq's fixture load vs a bare JSON.parse-per-line loop over the same calls file;
 *   2. memory: heap (V8 heap + ArrayBuffers) per call after the load and a full GC;
 *   3. a query mix through the engine routes (route.run, lines drained), median and p95;
 *   4. the same mix as DuckDB SQL over the same JSONL, with a cross-check of the ids;
 *   5. the same mix as hand-written closures over JSON.parse'd objects (the ceiling);
 *   6. HTTP stream throughput of /calls/stream_query from the tq server.
 * Prints a table and writes bench/results.json (or --out FILE).
 *
 * Options: --calls N (100000), --runs N (20), --warmup N (3), --seed N (1), --out FILE,
 * --http-calls N (100000), --queries a,b (a subset), --skip duckdb,closure,http,
 * --data-root DIR (where generated data is cached; os.tmpdir()), --no-reexec.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, platform, release, totalmem } from 'node:os';
import { fileURLToPath } from 'node:url';
import { getHeapStatistics } from 'node:v8';
import type { Engine, RequestContext, Route } from '../src/api/types.ts';
import { createEngine } from '../src/engine.ts';
import { loadFixtures } from '../src/io/load-fixtures.ts';
import { forEachLine } from '../src/io/lines.ts';
import { openDuckDb, runSql, type DuckDbSide } from './duckdb.ts';
import { ensureBenchData, type BenchData } from './generate.ts';
import { measureHttp, type HttpResult } from './http.ts';
import { gc, heapBytes } from './memory.ts';
import { benchQueries, type CallObject, type ClosureData, type TableRowObject } from './queries.ts';
import { geometricMean, measure, round, summarise, type Timing } from './stats.ts';

export interface BenchOptions {
  calls: number;
  seed?: number;
  /** Timed runs per query (≥ 20 for real numbers). */
  runs?: number;
  /** Untimed runs per query after the first (cold) one. */
  warmup?: number;
  httpCalls?: number;
  httpRuns?: number;
  /** Query names to run (default: all). */
  queries?: readonly string[];
  skip?: ReadonlySet<'duckdb' | 'closure' | 'http'>;
  dataRoot?: string;
  log?: (message: string) => void;
}

export interface SideResult {
  timing: Timing | null;
  rows: number | null;
  error?: string;
}

export interface QueryResult {
  name: string;
  description: string;
  route: string;
  body: Record<string, unknown>;
  sql: string;
  tq: SideResult & {
    /** Median time until the route returned and the first line was produced. */
    first_row_median_ms: number | null;
  };
  duckdb: SideResult;
  closure: SideResult;
  tq_over_duckdb: number | null;
  tq_over_closure: number | null;
  /** null when a side did not run. */
  duckdb_ids_match: boolean | null;
  closure_ids_match: boolean | null;
}

export interface Mismatch {
  query: string;
  against: 'duckdb' | 'closure' | 'duckdb-thread-stats';
  detail: string;
}

export interface TargetResult {
  name: string;
  target: string;
  value: number | null;
  met: boolean | null;
}

export interface BenchResults {
  machine: { cpu: string; cores: number; node: string; os: string; total_memory_gib: number; load_average_start: number[]; load_average_end: number[] };
  config: { calls: number; seed: number; runs: number; warmup: number; data_dir: string; calls_file_bytes: number; avg_call_line_bytes: number; table_rows: number; started: string };
  load: {
    tq_ms: number;
    tq_mb_per_s: number;
    bare_parse_ms: number;
    bare_parse_mb_per_s: number;
    /** tq throughput / bare loop throughput. */
    ratio: number;
    table_rows: number;
    table_load_ms: number;
    duckdb_calls_load_ms: number | null;
    duckdb_table_load_ms: number | null;
  };
  memory: {
    heap_per_call_bytes: number;
    avg_call_line_bytes: number;
    /** heap per call / line bytes. */
    ratio: number;
    /** After the query mix: includes the per-path memo caches the queries filled. */
    heap_per_call_after_queries_bytes: number;
    closure_objects_heap_per_call_bytes: number | null;
  };
  queries: QueryResult[];
  geomean_tq_over_duckdb: number | null;
  geomean_tq_first_row_over_duckdb: number | null;
  http: (HttpResult & { available: true }) | { available: false; reason: string };
  targets: TargetResult[];
  mismatches: Mismatch[];
  errors: string[];
}

const CTX: RequestContext = { userId: 'bench', authorize() {}, canRead: () => true };

const mbPerS = (bytes: number, ms: number) => round(bytes / 1e6 / (ms / 1000), 1);

/** The routes by path: allRoutes() when it loads, else whichever query modules load. */
async function loadRoutes(errors: string[]): Promise<Map<string, Route>> {
  const byPath = new Map<string, Route>();
  try {
    const { allRoutes } = await import('../src/api/routes.ts');
    for (const r of allRoutes()) byPath.set(r.path, r);
    return byPath;
  } catch (e) {
    errors.push(`allRoutes() unavailable (${(e as Error).message.split('\n')[0]}); trying the query routes one by one`);
  }
  const modules: Array<[string, () => Promise<Route[]>]> = [
    ['calls', async () => [(await import('../src/query/calls/run.ts')).callsStreamQueryRoute]],
    ['threads', async () => (await import('../src/query/threads/route.ts')).threadsRoutes],
    ['table', async () => (await import('../src/query/table/route.ts')).tableRoutes],
  ];
  for (const [name, load] of modules) {
    try {
      for (const r of await load()) byPath.set(r.path, r);
    } catch (e) {
      errors.push(`${name} routes unavailable: ${(e as Error).message.split('\n')[0]}`);
    }
  }
  return byPath;
}

/** Runs a route and drains its lines. */
function runRoute(route: Route, engine: Engine, body: Record<string, unknown>): { ms: number; firstMs: number; lines: string[] } {
  const value = structuredClone(body);
  const t0 = performance.now();
  const res = route.run(engine, { kind: 'value', value }, CTX);
  if (res.kind !== 'stream') throw new Error(`${route.path} did not return a stream`);
  const it = res.lines[Symbol.iterator]();
  const lines: string[] = [];
  let next = it.next();
  const firstMs = performance.now() - t0;
  for (; !next.done; next = it.next()) lines.push(next.value);
  return { ms: performance.now() - t0, firstMs, lines };
}

/** Compares two id lists; null when equal, else a description naming the differing ids. */
export function diffIds(expected: readonly string[], actual: readonly string[]): string | null {
  if (expected.length === actual.length && expected.every((id, i) => id === actual[i])) return null;
  const exp = new Set(expected);
  const act = new Set(actual);
  const missing = expected.filter((id) => !act.has(id));
  const extra = actual.filter((id) => !exp.has(id));
  const firstDiff = expected.findIndex((id, i) => id !== actual[i]);
  const at = firstDiff < 0 ? Math.min(expected.length, actual.length) : firstDiff;
  const window = (list: readonly string[]) => JSON.stringify(list.slice(Math.max(0, at - 1), at + 4));
  return (
    `${expected.length} expected vs ${actual.length} actual; missing ${missing.length} ${JSON.stringify(missing.slice(0, 10))}; ` +
    `extra ${extra.length} ${JSON.stringify(extra.slice(0, 10))}; first order difference at position ${at}: ` +
    `expected ${window(expected)} got ${window(actual)}`
  );
}

/** µs since epoch of an ISO instant with a `Z` suffix and up to 6 fraction digits. */
function isoMicros(iso: string): number {
  const m = /^(.{19})(?:\.(\d{1,6}))?Z$/.exec(iso);
  if (!m) return NaN;
  return Date.parse(m[1] + 'Z') * 1000 + Number((m[2] ?? '').padEnd(6, '0'));
}

/** Thread statistics of tq's lines against DuckDB's rows (same order already checked). */
function diffThreadStats(lines: readonly string[], rows: readonly unknown[][]): string | null {
  const byId = new Map(rows.map((r) => [String(r[0]), r]));
  const problems: string[] = [];
  const close = (a: number, b: number) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));
  for (const line of lines) {
    const t = JSON.parse(line) as Record<string, unknown>;
    const r = byId.get(t.thread_id as string);
    if (!r) continue;
    const [, count, startUs, lastUs, first, last, p50, p99] = r;
    const checks: Array<[string, unknown, unknown, boolean]> = [
      ['turn_count', t.turn_count, Number(count), t.turn_count === Number(count)],
      ['start_time', t.start_time, Number(startUs), isoMicros(t.start_time as string) === Number(startUs)],
      ['last_updated', t.last_updated, Number(lastUs), isoMicros(t.last_updated as string) === Number(lastUs)],
      ['first_turn_id', t.first_turn_id, first, t.first_turn_id === first],
      ['last_turn_id', t.last_turn_id, last, t.last_turn_id === last],
      ['p50_turn_duration_ms', t.p50_turn_duration_ms, p50, close(t.p50_turn_duration_ms as number, Number(p50))],
      ['p99_turn_duration_ms', t.p99_turn_duration_ms, p99, close(t.p99_turn_duration_ms as number, Number(p99))],
    ];
    for (const [field, tq, duck, ok] of checks) if (!ok) problems.push(`${t.thread_id}.${field}: tq ${JSON.stringify(tq)} vs DuckDB ${String(duck)}`);
    if (problems.length >= 10) break;
  }
  return problems.length ? problems.join('; ') : null;
}

/** Reads calls.jsonl and the table into plain objects (the closures' data). */
async function loadClosureData(data: BenchData): Promise<ClosureData> {
  const calls: CallObject[] = [];
  await forEachLine(data.callsFile, ({ buf, start, end }) => {
    calls.push(JSON.parse(buf.toString('utf8', start, end)) as CallObject);
  });
  const tables = readFileSync(data.tablesFile, 'utf8').split('\n').filter((l) => l.trim() !== '');
  const tableRows = tables.length ? ((JSON.parse(tables[0]) as { rows: TableRowObject[] }).rows ?? []) : [];
  return { calls, tableRows };
}

const ratio = (a: number | null | undefined, b: number | null | undefined) =>
  a == null || b == null || !(b > 0) ? null : round(a / b, 3);

export async function runBench(o: BenchOptions): Promise<BenchResults> {
  const log = o.log ?? (() => {});
  const seed = o.seed ?? 1;
  const runs = o.runs ?? 20;
  const warmup = o.warmup ?? 3;
  const skip = o.skip ?? new Set();
  const errors: string[] = [];
  const mismatches: Mismatch[] = [];
  // Other work on the machine skews every figure; the load averages say how much there was.
  const loadStart = loadavg().map((v) => round(v, 2));

  const data = await ensureBenchData({ calls: o.calls, seed, root: o.dataRoot, log });
  const P = data.projectId;

  // 1 + 2. Load and memory. The page cache is warmed first so both loops read from memory.
  const baseline = heapBytes();
  await forEachLine(data.callsFile, () => {});
  log('load: bare JSON.parse loop ...');
  let sink = 0;
  let t0 = performance.now();
  await forEachLine(data.callsFile, ({ buf, start, end }) => {
    const v = JSON.parse(buf.toString('utf8', start, end)) as unknown;
    if (v !== null) sink++;
  });
  const bareMs = performance.now() - t0;
  if (sink !== data.calls) throw new Error(`bare loop parsed ${sink} lines, expected ${data.calls}`);
  gc();
  log('load: tq loadFixtures ...');
  let engine: Engine | null = createEngine();
  t0 = performance.now();
  await loadFixtures(engine, data.callsFile);
  const tqLoadMs = performance.now() - t0;
  const heapPerCall = (heapBytes() - baseline) / data.calls;
  const avgLine = data.callsBytes / data.calls;
  log(`load: tq ${tqLoadMs.toFixed(0)} ms, bare ${bareMs.toFixed(0)} ms; heap ${heapPerCall.toFixed(0)} B/call`);

  // The table takes long to load (row digests); it is loaded only when a table query runs.
  t0 = performance.now();
  let tableLoadMs = NaN;
  if (!o.queries || o.queries.includes('table_sort')) {
    try {
      await loadFixtures(engine, data.tableOnlyDir);
      tableLoadMs = performance.now() - t0;
    } catch (e) {
      errors.push(`table load failed: ${(e as Error).message.split('\n')[0]}`);
    }
  }
  const project = engine.store.project(P);
  if (!project) throw new Error(`project ${P} not loaded`);
  const callTable = project.calls;
  const sampleIds = Array.from({ length: Math.min(10, callTable.size) }, (_, i) => callTable.ids[Math.floor(((i + 0.5) * callTable.size) / 10)]);
  const tableDigest = [...project.tables.keys()][0] ?? 'no-table-loaded';
  const queries = benchQueries({ projectId: P, calls: data.calls, sampleIds, tableDigest }).filter(
    (q) => !o.queries || o.queries.includes(q.name),
  );

  // 3. The query mix through the engine routes.
  const routes = await loadRoutes(errors);
  const results: QueryResult[] = [];
  const tqLines = new Map<string, string[]>();
  for (const q of queries) {
    const r: QueryResult = {
      name: q.name,
      description: q.description,
      route: q.route,
      body: q.body,
      sql: q.sql,
      tq: { timing: null, rows: null, first_row_median_ms: null },
      duckdb: { timing: null, rows: null },
      closure: { timing: null, rows: null },
      tq_over_duckdb: null,
      tq_over_closure: null,
      duckdb_ids_match: null,
      closure_ids_match: null,
    };
    results.push(r);
    const route = routes.get(q.route);
    if (!route) {
      r.tq.error = `route ${q.route} not available`;
      continue;
    }
    log(`tq: ${q.name} ...`);
    try {
      const firsts: number[] = [];
      const m = await measure(() => {
        const out = runRoute(route, engine!, q.body);
        firsts.push(out.firstMs);
        return { ms: out.ms, result: out.lines };
      }, warmup, runs);
      r.tq.timing = m.timing;
      r.tq.rows = m.result.length;
      r.tq.first_row_median_ms = summarise(firsts[0], firsts.slice(1 + warmup)).median_ms;
      tqLines.set(q.name, m.result);
    } catch (e) {
      r.tq.error = (e as Error).stack?.split('\n').slice(0, 3).join(' | ') ?? String(e);
    }
  }
  const heapAfterQueries = (heapBytes() - baseline) / data.calls;

  // 6. HTTP, while the engine is still loaded.
  let http: BenchResults['http'] = { available: false, reason: 'skipped' };
  if (!skip.has('http')) {
    const httpCalls = Math.min(o.httpCalls ?? 100_000, data.calls);
    log(`http: streaming ${httpCalls} calls ...`);
    try {
      http = { available: true, ...(await measureHttp(engine, [...routes.values()], P, httpCalls, o.httpRuns ?? 3)) };
    } catch (e) {
      http = { available: false, reason: (e as Error).message.split('\n')[0] };
    }
  }
  engine = null;

  // 4. DuckDB.
  let duck: DuckDbSide | null = null;
  if (!skip.has('duckdb')) {
    log('duckdb: loading ...');
    duck = await openDuckDb(data);
    for (const q of queries) {
      const r = results.find((x) => x.name === q.name)!;
      log(`duckdb: ${q.name} ...`);
      try {
        const m = await measure(async () => {
          const out = await runSql(duck!.conn, q.sql);
          return { ms: out.ms, result: out.rows };
        }, warmup, runs);
        r.duckdb.timing = m.timing;
        r.duckdb.rows = m.result.length;
        const ids = m.result.map((row) => String(row[0]));
        const lines = tqLines.get(q.name);
        if (lines) {
          const diff = diffIds(ids, lines.map(q.lineId));
          r.duckdb_ids_match = diff === null;
          if (diff) mismatches.push({ query: q.name, against: 'duckdb', detail: diff });
          if (q.route === '/threads/stream_query' && diff === null) {
            const statsDiff = diffThreadStats(lines, m.result);
            if (statsDiff) {
              r.duckdb_ids_match = false;
              mismatches.push({ query: q.name, against: 'duckdb-thread-stats', detail: statsDiff });
            }
          }
        }
        (r as QueryResult & { duckIds?: string[] }).duckIds = ids;
      } catch (e) {
        r.duckdb.error = (e as Error).message.split('\n')[0];
      }
    }
  }
  const duckLoad = duck ? { calls: duck.callsLoadMs, table: duck.tableLoadMs } : null;
  duck?.close();

  // 5. Closures over parsed objects.
  let closureHeapPerCall: number | null = null;
  if (!skip.has('closure')) {
    log('closure: parsing objects ...');
    const before = heapBytes();
    const closureData = await loadClosureData(data);
    closureHeapPerCall = (heapBytes() - before) / data.calls;
    for (const q of queries) {
      const r = results.find((x) => x.name === q.name)! as QueryResult & { duckIds?: string[] };
      log(`closure: ${q.name} ...`);
      try {
        const m = await measure(() => {
          const t = performance.now();
          const ids = q.closure(closureData);
          return { ms: performance.now() - t, result: ids };
        }, warmup, runs);
        r.closure.timing = m.timing;
        r.closure.rows = m.result.length;
        const reference = r.duckIds ?? tqLines.get(q.name)?.map(q.lineId);
        if (reference) {
          const diff = diffIds(reference, m.result);
          r.closure_ids_match = diff === null;
          if (diff) mismatches.push({ query: q.name, against: 'closure', detail: diff });
        }
      } catch (e) {
        r.closure.error = (e as Error).message.split('\n')[0];
      }
    }
  }
  for (const r of results as Array<QueryResult & { duckIds?: string[] }>) {
    delete r.duckIds;
    r.tq_over_duckdb = ratio(r.tq.timing?.median_ms, r.duckdb.timing?.median_ms);
    r.tq_over_closure = ratio(r.tq.timing?.median_ms, r.closure.timing?.median_ms);
  }

  const loadRatio = round(bareMs / tqLoadMs, 3);
  const memRatio = round(heapPerCall / avgLine, 3);
  const geo = geometricMean(results.map((r) => r.tq_over_duckdb ?? NaN));
  const geoFirst = geometricMean(results.map((r) => ratio(r.tq.first_row_median_ms, r.duckdb.timing?.median_ms) ?? NaN));
  const expr = results.find((r) => r.name === 'expr_scan');
  const exprSpeed = expr?.tq_over_closure ? round(1 / expr.tq_over_closure, 3) : null;
  // Supplementary views of the same target: without rendering the matches as lines, and cold.
  const closureMs = expr?.closure.timing?.median_ms;
  const exprScanOnly = ratio(closureMs, expr?.tq.first_row_median_ms);
  const exprCold = ratio(closureMs, expr?.tq.timing?.first_ms);
  const targets: TargetResult[] = [
    { name: 'query mix geometric mean, tq / DuckDB', target: '<= 1.0', value: Number.isNaN(geo) ? null : round(geo, 3), met: Number.isNaN(geo) ? null : geo <= 1 },
    { name: '$expr scan speed, closure time / tq time', target: '>= 0.5', value: exprSpeed, met: exprSpeed === null ? null : exprSpeed >= 0.5 },
    {
      name: '(supplementary) $expr scan speed to tq\'s first line (scan + sort, matches not yet rendered)',
      target: '>= 0.5',
      value: exprScanOnly,
      met: exprScanOnly === null ? null : exprScanOnly >= 0.5,
    },
    {
      name: '(supplementary) $expr scan speed, first (cold) tq run: per-path caches empty',
      target: '>= 0.5',
      value: exprCold,
      met: exprCold === null ? null : exprCold >= 0.5,
    },
    { name: 'load throughput, tq / bare JSON.parse loop', target: '>= 0.9', value: loadRatio, met: loadRatio >= 0.9 },
    {
      name: 'heap per call, bytes per byte of call line (1.5 KB per 1.1 KB)',
      target: `<= ${round(1.5 / 1.1, 3)}`,
      value: memRatio,
      met: memRatio <= 1.5 / 1.1,
    },
  ];

  return {
    machine: { cpu: cpus()[0]?.model ?? 'unknown', cores: cpus().length, node: process.version, os: `${platform()} ${release()}`, total_memory_gib: round(totalmem() / 2 ** 30, 1),
      load_average_start: loadStart,
      load_average_end: loadavg().map((v) => round(v, 2)),
    },
    config: {
      calls: data.calls,
      seed,
      runs,
      warmup,
      data_dir: data.dir,
      calls_file_bytes: data.callsBytes,
      avg_call_line_bytes: Math.round(avgLine),
      table_rows: data.tableRows,
      started: new Date().toISOString(),
    },
    load: {
      tq_ms: round(tqLoadMs, 1),
      tq_mb_per_s: mbPerS(data.callsBytes, tqLoadMs),
      bare_parse_ms: round(bareMs, 1),
      bare_parse_mb_per_s: mbPerS(data.callsBytes, bareMs),
      ratio: loadRatio,
      table_rows: data.tableRows,
      table_load_ms: round(tableLoadMs, 1),
      duckdb_calls_load_ms: duckLoad ? round(duckLoad.calls, 1) : null,
      duckdb_table_load_ms: duckLoad ? round(duckLoad.table, 1) : null,
    },
    memory: {
      heap_per_call_bytes: Math.round(heapPerCall),
      avg_call_line_bytes: Math.round(avgLine),
      ratio: memRatio,
      heap_per_call_after_queries_bytes: Math.round(heapAfterQueries),
      closure_objects_heap_per_call_bytes: closureHeapPerCall === null ? null : Math.round(closureHeapPerCall),
    },
    queries: results,
    geomean_tq_over_duckdb: Number.isNaN(geo) ? null : round(geo, 3),
    geomean_tq_first_row_over_duckdb: Number.isNaN(geoFirst) ? null : round(geoFirst, 3),
    http,
    targets,
    mismatches,
    errors,
  };
}

// ---------------------------------------------------------------------------------------------
// Report.

const fmt = (v: number | null | undefined, digits = 2) => (v == null || Number.isNaN(v) ? 'n/a' : v.toFixed(digits));

function table(headers: string[], rows: string[][]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  return [line(headers), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

export function formatReport(r: BenchResults): string {
  const out: string[] = [];
  out.push(`tq bench: ${r.config.calls} calls (${r.config.avg_call_line_bytes} B/line avg), ${r.config.table_rows}-row table; ${r.config.runs} runs per query after ${r.config.warmup} warm-up`);
  out.push(
    `machine: ${r.machine.cpu}, ${r.machine.cores} cores, node ${r.machine.node}, ${r.machine.os}; ` +
      `load average ${r.machine.load_average_start.join(' ')} at start, ${r.machine.load_average_end.join(' ')} at end`,
  );
  out.push('');
  out.push(
    `load:   tq ${fmt(r.load.tq_ms, 0)} ms (${fmt(r.load.tq_mb_per_s, 1)} MB/s)  vs  bare JSON.parse loop ${fmt(r.load.bare_parse_ms, 0)} ms ` +
      `(${fmt(r.load.bare_parse_mb_per_s, 1)} MB/s)  -> ${fmt(r.load.ratio * 100, 1)}% of the bare loop`,
  );
  out.push(`        table: ${r.load.table_rows} rows in ${fmt(r.load.table_load_ms, 0)} ms; DuckDB load: calls ${fmt(r.load.duckdb_calls_load_ms, 0)} ms, table ${fmt(r.load.duckdb_table_load_ms, 0)} ms`);
  out.push(
    `memory: ${r.memory.heap_per_call_bytes} B heap per ${r.memory.avg_call_line_bytes} B call (${fmt(r.memory.ratio, 3)}x); ` +
      `${r.memory.heap_per_call_after_queries_bytes} B after the query mix; parsed objects: ${r.memory.closure_objects_heap_per_call_bytes ?? 'n/a'} B/call`,
  );
  out.push('');
  out.push(
    table(
      ['query', 'rows', 'tq ms', 'tq p95', 'tq 1st row', 'tq cold', 'DuckDB ms', 'DuckDB p95', 'closure ms', 'tq/DuckDB', 'tq/closure', 'check'],
      r.queries.map((q) => [
        q.name,
        String(q.tq.rows ?? q.duckdb.rows ?? 'n/a'),
        fmt(q.tq.timing?.median_ms),
        fmt(q.tq.timing?.p95_ms),
        fmt(q.tq.first_row_median_ms),
        fmt(q.tq.timing?.first_ms),
        fmt(q.duckdb.timing?.median_ms),
        fmt(q.duckdb.timing?.p95_ms),
        fmt(q.closure.timing?.median_ms),
        fmt(q.tq_over_duckdb),
        fmt(q.tq_over_closure),
        q.duckdb_ids_match === false || q.closure_ids_match === false
          ? 'MISMATCH'
          : q.duckdb_ids_match === null && q.closure_ids_match === null
            ? (q.tq.error ?? q.duckdb.error ? 'error' : 'n/a')
            : 'ok',
      ]),
    ),
  );
  out.push('');
  out.push(`geometric mean tq/DuckDB: ${fmt(r.geomean_tq_over_duckdb, 3)} (to tq's first row: ${fmt(r.geomean_tq_first_row_over_duckdb, 3)})`);
  out.push(
    r.http.available
      ? `http:   /calls/stream_query, ${r.http.calls} calls, ${(r.http.bytes / 1e6).toFixed(1)} MB in ${fmt(r.http.median_ms, 0)} ms -> ${fmt(r.http.mb_per_s, 1)} MB/s`
      : `http:   n/a (${r.http.reason})`,
  );
  out.push('');
  out.push('targets:');
  for (const t of r.targets) out.push(`  ${t.met === null ? '  n/a' : t.met ? '  met' : 'MISSED'}  ${t.name}: ${fmt(t.value, 3)} (target ${t.target})`);
  for (const q of r.queries) {
    for (const [side, s] of [['tq', q.tq], ['DuckDB', q.duckdb], ['closure', q.closure]] as const) {
      if (s.error) out.push(`error: ${q.name} (${side}): ${s.error}`);
    }
  }
  for (const e of r.errors) out.push(`error: ${e}`);
  for (const m of r.mismatches) out.push(`\n!!!!!!!! MISMATCH: ${m.query} vs ${m.against}: ${m.detail}`);
  return out.join('\n');
}

// ---------------------------------------------------------------------------------------------
// Command line.

interface CliOptions extends BenchOptions {
  out: string;
  reexec: boolean;
}

function parseArgs(argv: readonly string[]): CliOptions {
  const value = (name: string) => {
    const i = argv.indexOf(name);
    if (i < 0) return undefined;
    const v = argv[i + 1];
    if (v === undefined) throw new Error(`${name} needs a value`);
    return v;
  };
  const int = (name: string, dflt: number) => {
    const v = value(name);
    if (v === undefined) return dflt;
    const n = Number(v);
    if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a non-negative integer, got '${v}'`);
    return n;
  };
  const list = (name: string) => value(name)?.split(',').map((s) => s.trim()).filter(Boolean);
  const skip = new Set(list('--skip') ?? []);
  for (const s of skip) if (!['duckdb', 'closure', 'http'].includes(s)) throw new Error(`--skip takes duckdb, closure, http; got '${s}'`);
  const calls = int('--calls', 100_000);
  if (calls < 10) throw new Error('--calls must be at least 10');
  return {
    calls,
    seed: int('--seed', 1),
    runs: Math.max(1, int('--runs', 20)),
    warmup: int('--warmup', 3),
    httpCalls: int('--http-calls', 100_000),
    queries: list('--queries'),
    skip: skip as Set<'duckdb' | 'closure' | 'http'>,
    dataRoot: value('--data-root'),
    out: value('--out') ?? fileURLToPath(new URL('./results.json', import.meta.url)),
    reexec: !argv.includes('--no-reexec'),
    log: (m) => process.stderr.write(`[bench] ${m}\n`),
  };
}

/**
 * Heap the run needs: the tq store and its query caches (about 2.5 KB a call), later the
 * parsed objects of the closure baseline (about 1.7 KB a call) and the parsed table, plus
 * headroom. Node's default limit is far lower than that at 1M calls.
 */
function neededHeapMb(calls: number): number {
  return Math.ceil((calls * 5 * 1024) / 2 ** 20) + 2048;
}

async function main(): Promise<void> {
  const opts = parseArgs(process.argv.slice(2));
  const needMb = neededHeapMb(opts.calls);
  const haveMb = getHeapStatistics().heap_size_limit / 2 ** 20;
  if (opts.reexec && haveMb < needMb) {
    const mb = Math.min(needMb, Math.floor((totalmem() / 2 ** 20) * 0.8));
    process.stderr.write(`[bench] heap limit ${haveMb.toFixed(0)} MB < ${needMb} MB needed: re-running with --max-old-space-size=${mb}\n`);
    const child = spawnSync(process.execPath, [...process.execArgv, `--max-old-space-size=${mb}`, fileURLToPath(import.meta.url), ...process.argv.slice(2), '--no-reexec'], {
      stdio: 'inherit',
    });
    process.exitCode = child.status ?? 1;
    return;
  }
  const results = await runBench(opts);
  console.log(formatReport(results));
  writeFileSync(opts.out, JSON.stringify(results, null, 2) + '\n');
  console.log(`\nwrote ${opts.out}`);
  if (results.mismatches.length) process.exitCode = 1;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main().catch((e: unknown) => {
    process.stderr.write(`bench failed: ${(e as Error)?.stack ?? String(e)}\n`);
    process.exitCode = 1;
  });
}
