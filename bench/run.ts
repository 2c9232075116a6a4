/**
 * tq against DuckDB, measured so that a skeptical DuckDB user would accept it (issue #12).
 * Run: `npm run bench -- --calls 1000000` (node --expose-gc --import tsx).
 *
 * In one process, on one generated data set:
 *   1. load: tq's fixture load vs a bare JSON.parse-per-line loop over the same files;
 *   2. memory: heap (V8 heap + ArrayBuffers) per call after the load, and after the query mix
 *      (per-path caches included);
 *   3. the query mix, sides interleaved per run (tq warm, DuckDB plain, DuckDB tuned, tq, ...):
 *      both produce one JSON text per result row, counted and dropped; tq also measured cold
 *      (first run after every derived query cache is dropped, as after a load); keys, order and a canonical sample of row
 *      content cross-checked against both DuckDB variants (bench/check.ts); the calls engine
 *      holds only calls, objects and feedback, the table lives in an engine of its own;
 *      First-use queries (issue #25: a path no earlier query read) run first, and also get
 *      --first-use-runs runs each right after the caches are dropped, against DuckDB plain SQL;
 *   4. HTTP stream throughput of /calls/stream_query from the tq server;
 *   5. one-shot: whole processes (tq, DuckDB read_json_auto, jq when installed) at each size
 *      of --oneshot-calls.
 * Prints a report (with markdown tables for bench/RESULTS.md) and writes bench/results.json.
 *
 * Options: --calls N (100000), --runs N (7), --warmup N (1), --first-use-runs N (3), --seed N (1), --out FILE,
 * --http-calls N (100000), --http-runs N (3), --queries a,b (a subset), --skip duckdb,cold,http,oneshot,
 * --oneshot-calls a,b (100000 and --calls), --oneshot-runs N (3), --data-root DIR, --no-reexec.
 */
import { spawnSync } from 'node:child_process';
import { statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, platform, release, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { getHeapStatistics } from 'node:v8';
import type { Engine, RequestContext, Route } from '../src/api/types.ts';
import { allRoutes } from '../src/routes.ts';
import { createEngine } from '../src/engine.ts';
import { loadFixtures } from '../src/io/load-fixtures.ts';
import { dropQueryCaches } from '../src/query/caches.ts';
import { decodeLines } from '../src/api/line-stream.ts';
import { forEachLine } from '../src/io/lines.ts';
import { crossCheck, type CheckResult } from './check.ts';
import { openDuckDb, runJsonSql, type DuckDbSide } from './duckdb.ts';
import { ensureBenchData, type BenchData } from './generate.ts';
import { measureHttp, type HttpResult } from './http.ts';
import { copyMeasurer } from './copy-ceiling.ts';
import { gc, heapBytes, settledHeapBytes } from './memory.ts';
import { measureOneShot, type OneShotResult } from './oneshot.ts';
import { benchQueries, paramsFromTable, QUERY_STATS_ROUTE, queryStatsQuery, uiQueries, type BenchQuery } from './queries.ts';
import { chunkLines, geometricMean, median, round } from './stats.ts';

export type SkipPart = 'duckdb' | 'cold' | 'http' | 'oneshot';

export interface BenchOptions {
  calls: number;
  seed?: number;
  /** Timed runs per query and side (interleaved). */
  runs?: number;
  /** Untimed runs per query and side before the timed ones; the first is also the checked one. */
  warmup?: number;
  /** First-use samples per first-use query (BenchQuery.firstUse); at least 3 by default. */
  firstUseRuns?: number;
  httpCalls?: number;
  httpRuns?: number;
  /** Query names to run (default: all). */
  queries?: readonly string[];
  skip?: ReadonlySet<SkipPart>;
  /** Data set sizes of the one-shot section. */
  oneShotCalls?: readonly number[];
  oneShotRuns?: number;
  /** jq's command (tests point it at a missing one to check the skip). */
  jqCommand?: string;
  dataRoot?: string;
  log?: (message: string) => void;
}

export interface Timing {
  median_ms: number;
  min_ms: number;
  max_ms: number;
  runs: number;
  /**
   * Median CPU time of the process over the run (user + system, every thread: DuckDB's
   * workers included). On a shared machine it shows the work apart from waiting for a core.
   */
  cpu_median_ms: number;
}

export interface QueryResult {
  description: string;
  route: string;
  body: Record<string, unknown>;
  sql: { plain: string; tuned: string };
  rows: number | null;
  /** UTF-8 bytes of tq's lines (without newlines). */
  bytes: number | null;
  tq: { cold_ms: number | null; warm: Timing | null };
  duckdb: { plain: Timing | null; tuned: Timing | null };
  ratios: { warm_over_plain: number | null; warm_over_tuned: number | null; cold_over_plain: number | null; cold_over_tuned: number | null };
  check: { plain: CheckResult | null; tuned: CheckResult | null };
  /**
   * First-use queries only (BenchQuery.firstUse): tq runs each right after every derived cache
   * is dropped (the first on a path no query touched before), interleaved with DuckDB's plain
   * SQL, which keeps no per-path state.
   */
  first_use: { tq: Timing | null; plain: Timing | null; first_ms: number | null; tq_over_plain: number | null } | null;
  errors: string[];
}

export interface TargetResult {
  name: string;
  target: string;
  value: number | null;
  met: boolean | null;
  note: string;
}

export interface BenchResults {
  machine: { cpu: string; cores: number; node: string; os: string; total_memory_gib: number; load_average_start: number[]; load_average_end: number[]; duckdb_threads: number | null };
  config: { calls: number; seed: number; runs: number; warmup: number; data_dir: string; fixture_bytes: number; calls_file_bytes: number; avg_call_line_bytes: number; table_rows: number; started: string; finished: string };
  load: {
    tq_ms: number;
    tq_mb_per_s: number;
    bare_parse_ms: number;
    bare_parse_mb_per_s: number;
    /** tq throughput / bare loop throughput. */
    ratio: number;
    table_rows: number;
    table_load_ms: number | null;
    duckdb_calls_load_ms: number | null;
    duckdb_tuned_columns_ms: number | null;
    duckdb_table_load_ms: number | null;
  };
  memory: {
    heap_per_call_bytes: number;
    avg_call_line_bytes: number;
    /** After the query mix: per-path caches included. */
    heap_per_call_after_queries_bytes: number;
  };
  queries: Record<string, QueryResult>;
  geomean: { warm_over_plain: number | null; warm_over_tuned: number | null; cold_over_plain: number | null; cold_over_tuned: number | null };
  /** Copying op_wildcard's result bytes into one buffer: the floor for producing them. */
  /**
   * op_wildcard's result lines (one buffer each) gathered into one buffer, once after each of
   * its warm runs: median wall and CPU ms, and tq's warm medians over them.
   */
  copy_ceiling: { query: string; bytes: number; ms: number; cpu_ms: number; tq_over_ceiling: number | null; tq_cpu_over_ceiling_cpu: number | null } | null;
  http: (HttpResult & { available: true }) | { available: false; reason: string };
  oneshot: Record<string, OneShotResult>;
  targets: TargetResult[];
  mismatches: Array<{ query: string; against: string; detail: string }>;
  errors: string[];
}

/** The queries the table engine answers: it is loaded when any of them runs. */
const TABLE_QUERIES = ['table_sort', 'first_sort_table', 'ui_table_digests'];

const CTX: RequestContext = { userId: 'bench', authorize() {}, canRead: () => true };

const mbPerS = (bytes: number, ms: number) => round(bytes / 1e6 / (ms / 1000), 1);
const ratio = (a: number | null | undefined, b: number | null | undefined) => (a == null || b == null || !(b > 0) ? null : round(a / b, 3));

function timingOf(samples: readonly number[], cpu: readonly number[]): Timing | null {
  if (samples.length === 0) return null;
  return { median_ms: round(median(samples)), min_ms: round(Math.min(...samples)), max_ms: round(Math.max(...samples)), runs: samples.length, cpu_median_ms: round(median(cpu)) };
}

/** Wall and CPU milliseconds of `fn`. */
async function timed(fn: () => unknown): Promise<{ ms: number; cpu: number }> {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  await fn();
  const ms = performance.now() - t0;
  const c = process.cpuUsage(c0);
  return { ms, cpu: (c.user + c.system) / 1000 };
}

interface TqRun {
  ms: number;
  rows: number;
  bytes: number;
  texts: string[] | null;
}

/** Runs a route and consumes its output as one JSON text per row: counted, dropped unless kept. */
function runRoute(route: Route, engine: Engine, body: Record<string, unknown>, keep: boolean): TqRun {
  const value = structuredClone(body);
  const texts: string[] | null = keep ? [] : null;
  let rows = 0;
  let bytes = 0;
  const t0 = performance.now();
  const res = route.run(engine, { kind: 'value', value }, CTX);
  if (res.kind === 'stream') {
    // What a front end sends: the byte chunks, counted (rows = newlines) and dropped. The texts
    // kept for the cross-check are those bytes decoded.
    for (const chunk of res.chunks) {
      const lines = chunkLines(chunk);
      rows += lines;
      bytes += chunk.length - lines;
      if (texts) for (const line of decodeLines([chunk])) texts.push(line);
    }
  } else {
    const text = res.kind === 'json' ? (res.text ?? JSON.stringify(res.body)) : new TextDecoder().decode(res.bytes);
    rows = 1;
    bytes = text.length;
    texts?.push(text);
  }
  return { ms: performance.now() - t0, rows, bytes, texts };
}

/** The fixture files of the calls engine (calls, objects, feedback) and their total size. */
function fixtureFiles(data: BenchData): { files: string[]; bytes: number } {
  const files = ['calls.jsonl', 'objects.jsonl', 'feedback.jsonl'].map((f) => join(data.dir, f));
  return { files, bytes: files.reduce((a, f) => a + statSync(f).size, 0) };
}

/** object_id → ref URI of each latest object version (the digests tq computed on load). */
function objectRefs(engine: Engine, projectId: string): Map<string, string> {
  const refs = new Map<string, string>();
  for (const [objectId, versions] of engine.store.project(projectId)?.objects ?? []) {
    const v = versions[versions.length - 1];
    refs.set(objectId, `weave:///${projectId}/${v.kind}/${objectId}:${v.digest}`);
  }
  return refs;
}

export async function runBench(o: BenchOptions): Promise<BenchResults> {
  const log = o.log ?? (() => {});
  const seed = o.seed ?? 1;
  const runs = Math.max(1, o.runs ?? 7);
  const warmup = Math.max(1, o.warmup ?? 1);
  const firstUseRuns = Math.max(1, o.firstUseRuns ?? 3);
  const skip = o.skip ?? new Set<SkipPart>();
  const errors: string[] = [];
  const mismatches: BenchResults['mismatches'] = [];
  const started = new Date().toISOString();
  // Other work on the machine skews every figure; the load averages say how much there was.
  const loadStart = loadavg().map((v) => round(v, 2));

  const data = await ensureBenchData({ calls: o.calls, seed, root: o.dataRoot, log });
  const P = data.projectId;
  const fixtures = fixtureFiles(data);

  // 1 + 2. Load and memory. The page cache is warmed first so both loops read from memory.
  const baseline = heapBytes();
  for (const f of fixtures.files) await forEachLine(f, () => {});
  log('load: bare JSON.parse loop ...');
  let sink = 0;
  let t0 = performance.now();
  for (const f of fixtures.files) {
    await forEachLine(f, ({ buf, start, end }) => {
      const v = JSON.parse(buf.toString('utf8', start, end)) as unknown;
      if (v !== null) sink++;
    });
  }
  const bareMs = performance.now() - t0;
  if (sink < data.calls) throw new Error(`bare loop parsed ${sink} lines, expected at least ${data.calls}`);
  gc();
  log('load: tq loadFixtures ...');
  let engine: Engine | null = createEngine();
  t0 = performance.now();
  await loadFixtures(engine, data.dir);
  const tqLoadMs = performance.now() - t0;
  const heapPerCall = ((await settledHeapBytes()) - baseline) / data.calls;
  const avgLine = data.callsBytes / data.calls;
  log(`load: tq ${tqLoadMs.toFixed(0)} ms, bare ${bareMs.toFixed(0)} ms; heap ${heapPerCall.toFixed(0)} B/call`);

  const callTable = engine.store.project(P)!.calls;
  const wanted = (name: string) => !o.queries || o.queries.includes(name);
  // The table lives in an engine of its own: the calls engine's heap holds no table.
  let tableEngine: Engine | null = null;
  let tableLoadMs: number | null = null;
  if (TABLE_QUERIES.some(wanted)) {
    tableEngine = createEngine();
    t0 = performance.now();
    await loadFixtures(tableEngine, data.tableOnlyDir);
    tableLoadMs = performance.now() - t0;
  }
  const tableDigest = tableEngine ? ([...(tableEngine.store.project(P)?.tables.keys() ?? [])][0] ?? 'no-table') : 'no-table';

  const routes = new Map(allRoutes().map((r) => [r.path, r]));
  const rowDigests = tableEngine?.store.project(P)?.tables.get(tableDigest) ?? [];
  // Row digests for the digest filter, spread over the table.
  const sampleDigests = Array.from({ length: Math.min(1000, rowDigests.length) }, (_, i) => rowDigests[Math.floor(((i + 0.5) * rowDigests.length) / Math.min(1000, rowDigests.length))]);
  const params = paramsFromTable(callTable, P, data.calls, tableDigest, sampleDigests);
  // First-use queries run first: their paths are met here for the first time.
  const queries = [...uiQueries(params).filter((q) => q.firstUse), ...benchQueries(params), ...uiQueries(params).filter((q) => !q.firstUse)].filter((q) => wanted(q.name));
  // The hook for /calls/query_stats: measured once the route exists.
  if (routes.has(QUERY_STATS_ROUTE) && wanted('query_stats_roots')) queries.push(queryStatsQuery(P));

  let duck: DuckDbSide | null = null;
  if (!skip.has('duckdb')) {
    log('DuckDB: loading ...');
    try {
      duck = await openDuckDb(data, tableEngine !== null, objectRefs(engine, P), rowDigests);
    } catch (e) {
      errors.push(`DuckDB unavailable: ${(e as Error).message.split('\n')[0]}`);
    }
  }

  // 3. The query mix, interleaved.
  const results: Record<string, QueryResult> = {};
  // Out here, and cleared after the loop: a loop-scoped binding is kept by the loop's closures,
  // one of which an interpreter register still held after the loop, and with it the table engine.
  let warmEngine: Engine | null = null;
  let copy: BenchResults['copy_ceiling'] = null;
  // op_wildcard's lines for its copy ceiling (about twice its result bytes): out here and
  // cleared after the loop, for the same reason.
  let copier: ReturnType<typeof copyMeasurer> | null = null;
  for (const q of queries) {
    const r: QueryResult = {
      description: q.description,
      route: q.route,
      body: q.body,
      sql: q.sql,
      rows: null,
      bytes: null,
      tq: { cold_ms: null, warm: null },
      duckdb: { plain: null, tuned: null },
      ratios: { warm_over_plain: null, warm_over_tuned: null, cold_over_plain: null, cold_over_tuned: null },
      check: { plain: null, tuned: null },
      first_use: null,
      errors: [],
    };
    results[q.name] = r;
    const route = routes.get(q.route);
    warmEngine = q.engine === 'table' ? tableEngine : engine;
    if (!route || !warmEngine) {
      r.errors.push(`route ${q.route} not available`);
      continue;
    }
    try {
      if (q.firstUse) {
        log(`${q.name}: ${firstUseRuns} first-use runs ...`);
        const wall = { tq: [] as number[], plain: [] as number[] };
        const cpu = { tq: [] as number[], plain: [] as number[] };
        for (let i = 0; i < firstUseRuns; i++) {
          dropQueryCaches(warmEngine.store);
          gc();
          const t = await timed(() => runRoute(route, warmEngine!, q.body, false));
          wall.tq.push(t.ms);
          cpu.tq.push(t.cpu);
          if (duck) {
            const conn = duck.conn;
            const d = await timed(() => runJsonSql(conn, q.sql.plain));
            wall.plain.push(d.ms);
            cpu.plain.push(d.cpu);
          }
        }
        const tq = timingOf(wall.tq, cpu.tq);
        const plain = timingOf(wall.plain, cpu.plain);
        r.first_use = { tq, plain, first_ms: round(wall.tq[0]), tq_over_plain: ratio(tq?.median_ms, plain?.median_ms) };
      }
      if (!skip.has('cold')) {
        // Cold: every derived cache dropped first, as right after a load (reloading a 1M-call
        // engine per query would take most of the run's time budget).
        log(`${q.name}: tq cold ...`);
        dropQueryCaches(warmEngine.store);
        gc();
        r.tq.cold_ms = round(runRoute(route, warmEngine, q.body, false).ms);
      }
      log(`${q.name}: warm-up and check ...`);
      let tqTexts: string[] = [];
      const duckTexts: { plain: string[] | null; tuned: string[] | null } = { plain: null, tuned: null };
      for (let i = 0; i < warmup; i++) {
        const keep = i === 0;
        const t = runRoute(route, warmEngine, q.body, keep);
        if (keep) {
          tqTexts = t.texts!;
          r.rows = t.rows;
          r.bytes = t.bytes;
        }
        if (duck) {
          for (const variant of ['plain', 'tuned'] as const) {
            const d = await runJsonSql(duck.conn, q.sql[variant], keep);
            if (keep) duckTexts[variant] = d.texts;
          }
        }
      }
      for (const variant of ['plain', 'tuned'] as const) {
        const texts = duckTexts[variant];
        if (!texts) continue;
        const c = crossCheck(q.kind, q.columns, tqTexts, texts);
        r.check[variant] = c;
        if (c.detail) mismatches.push({ query: q.name, against: `duckdb-${variant}`, detail: c.detail });
      }
      copier = q.name === 'op_wildcard' ? copyMeasurer(tqTexts) : null;
      tqTexts = [];
      duckTexts.plain = duckTexts.tuned = null;

      log(`${q.name}: ${runs} interleaved runs ...`);
      const wall = { tq: [] as number[], plain: [] as number[], tuned: [] as number[], copy: [] as number[] };
      const cpu = { tq: [] as number[], plain: [] as number[], tuned: [] as number[], copy: [] as number[] };
      const sample = (side: 'tq' | 'plain' | 'tuned' | 'copy', t: { ms: number; cpu: number }) => {
        wall[side].push(t.ms);
        cpu[side].push(t.cpu);
      };
      for (let i = 0; i < runs; i++) {
        sample('tq', await timed(() => runRoute(route, warmEngine!, q.body, false)));
        if (copier) sample('copy', copier.measure());
        if (duck) {
          const conn = duck.conn;
          sample('plain', await timed(() => runJsonSql(conn, q.sql.plain)));
          sample('tuned', await timed(() => runJsonSql(conn, q.sql.tuned)));
        }
      }
      r.tq.warm = timingOf(wall.tq, cpu.tq);
      const c = copier ? timingOf(wall.copy, cpu.copy) : null;
      if (copier && c) {
        copy = {
          query: q.name,
          bytes: copier.bytes,
          ms: c.median_ms,
          cpu_ms: c.cpu_median_ms,
          tq_over_ceiling: ratio(r.tq.warm?.median_ms, c.median_ms),
          tq_cpu_over_ceiling_cpu: ratio(r.tq.warm?.cpu_median_ms, c.cpu_median_ms),
        };
        copier = null;
      }
      r.duckdb.plain = timingOf(wall.plain, cpu.plain);
      r.duckdb.tuned = timingOf(wall.tuned, cpu.tuned);
      r.ratios = {
        warm_over_plain: ratio(r.tq.warm?.median_ms, r.duckdb.plain?.median_ms),
        warm_over_tuned: ratio(r.tq.warm?.median_ms, r.duckdb.tuned?.median_ms),
        cold_over_plain: ratio(r.tq.cold_ms, r.duckdb.plain?.median_ms),
        cold_over_tuned: ratio(r.tq.cold_ms, r.duckdb.tuned?.median_ms),
      };
    } catch (e) {
      r.errors.push((e as Error).message.split('\n')[0]);
    }
  }

  tableEngine = warmEngine = null;
  copier = null;
  const heapAfterQueries = ((await settledHeapBytes()) - baseline) / data.calls;
  const duckLoad = duck ? { calls: duck.callsLoadMs, tuned: duck.tunedColumnsMs, table: duck.tableLoadMs, threads: duck.threads } : null;
  duck?.close();
  duck = null;

  // 4. HTTP throughput.
  let http: BenchResults['http'] = { available: false, reason: 'skipped' };
  if (!skip.has('http')) {
    log('http: /calls/stream_query ...');
    try {
      http = { available: true, ...(await measureHttp(engine, [...routes.values()], P, Math.min(o.httpCalls ?? 100_000, data.calls), o.httpRuns ?? 3)) };
    } catch (e) {
      http = { available: false, reason: (e as Error).message.split('\n')[0] };
    }
  }
  engine = null;
  gc();

  // 5. One-shot processes (the in-process engine is released first).
  const oneshot: Record<string, OneShotResult> = {};
  if (!skip.has('oneshot')) {
    const sizes = o.oneShotCalls ?? [...new Set([Math.min(100_000, o.calls), o.calls])];
    for (const n of sizes) {
      const d = n === data.calls ? data : await ensureBenchData({ calls: n, seed, root: o.dataRoot, log });
      const res = await measureOneShot(d, o.oneShotRuns ?? 3, log, o.jqCommand);
      oneshot[String(n)] = res;
      for (const [name, qr] of Object.entries(res.queries)) for (const e of qr.errors) mismatches.push({ query: `oneshot ${n} ${name}`, against: 'tools', detail: e });
    }
  }

  const list = Object.entries(results);
  const geo = (key: keyof QueryResult['ratios']) => {
    const g = geometricMean(list.map(([, r]) => r.ratios[key] ?? NaN));
    return Number.isNaN(g) ? null : round(g, 3);
  };
  const geomean = { warm_over_plain: geo('warm_over_plain'), warm_over_tuned: geo('warm_over_tuned'), cold_over_plain: geo('cold_over_plain'), cold_over_tuned: geo('cold_over_tuned') };
  const targets = computeTargets({ results, geomean, copy, loadRatio: bareMs / tqLoadMs, http, oneshot, heapAfter: heapAfterQueries });

  return {
    machine: {
      cpu: cpus()[0]?.model ?? 'unknown',
      cores: cpus().length,
      node: process.version,
      os: `${platform()} ${release()}`,
      total_memory_gib: round(totalmem() / 2 ** 30, 1),
      load_average_start: loadStart,
      load_average_end: loadavg().map((v) => round(v, 2)),
      duckdb_threads: duckLoad?.threads ?? null,
    },
    config: {
      calls: data.calls,
      seed,
      runs,
      warmup,
      data_dir: data.dir,
      fixture_bytes: fixtures.bytes,
      calls_file_bytes: data.callsBytes,
      avg_call_line_bytes: Math.round(avgLine),
      table_rows: data.tableRows,
      started,
      finished: new Date().toISOString(),
    },
    load: {
      tq_ms: round(tqLoadMs, 1),
      tq_mb_per_s: mbPerS(fixtures.bytes, tqLoadMs),
      bare_parse_ms: round(bareMs, 1),
      bare_parse_mb_per_s: mbPerS(fixtures.bytes, bareMs),
      ratio: round(bareMs / tqLoadMs, 3),
      table_rows: data.tableRows,
      table_load_ms: tableLoadMs === null ? null : round(tableLoadMs, 1),
      duckdb_calls_load_ms: duckLoad ? round(duckLoad.calls, 1) : null,
      duckdb_tuned_columns_ms: duckLoad ? round(duckLoad.tuned, 1) : null,
      duckdb_table_load_ms: duckLoad && tableLoadMs !== null ? round(duckLoad.table, 1) : null,
    },
    memory: {
      heap_per_call_bytes: Math.round(heapPerCall),
      avg_call_line_bytes: Math.round(avgLine),
      heap_per_call_after_queries_bytes: Math.round(heapAfterQueries),
    },
    queries: results,
    geomean,
    copy_ceiling: copy,
    http,
    oneshot,
    targets,
    mismatches,
    errors: [...errors, ...list.flatMap(([name, r]) => r.errors.map((e) => `${name}: ${e}`))],
  };
}

/** Issue #12 §2's targets, each from this run's figures. */
function computeTargets(f: {
  results: Record<string, QueryResult>;
  geomean: BenchResults['geomean'];
  copy: BenchResults['copy_ceiling'];
  loadRatio: number;
  http: BenchResults['http'];
  oneshot: Record<string, OneShotResult>;
  heapAfter: number;
}): TargetResult[] {
  const t = (name: string, target: string, value: number | null, ok: (v: number) => boolean, note = ''): TargetResult => ({
    name,
    target,
    value: value === null ? null : round(value, 3),
    met: value === null ? null : ok(value),
    note,
  });
  const warmTuned = Object.entries(f.results).filter(([, r]) => r.ratios.warm_over_tuned !== null);
  const worst = warmTuned.reduce<[string, number] | null>((w, [n, r]) => (w === null || r.ratios.warm_over_tuned! > w[1] ? [n, r.ratios.warm_over_tuned!] : w), null);
  const firstUse = Object.entries(f.results).filter(([, r]) => r.first_use?.tq_over_plain != null);
  const worstFirst = firstUse.reduce<[string, number] | null>((w, [n, r]) => (w === null || r.first_use!.tq_over_plain! > w[1] ? [n, r.first_use!.tq_over_plain!] : w), null);
  const ui = Object.entries(f.results).filter(([n, r]) => n.startsWith('ui_') && r.ratios.warm_over_tuned !== null);
  const worstUi = ui.reduce<[string, number] | null>((w, [n, r]) => (w === null || r.ratios.warm_over_tuned! > w[1] ? [n, r.ratios.warm_over_tuned!] : w), null);
  const pages = ['roots_page_50', 'roots_page_100'].map((n) => f.results[n]?.tq.warm?.median_ms).filter((v): v is number => v != null);
  const sizes = Object.keys(f.oneshot).map(Number).sort((a, b) => a - b);
  const largest = sizes.length ? f.oneshot[String(sizes[sizes.length - 1])] : null;
  const oneShotRatios = largest ? Object.values(largest.queries).map((q) => q.tq_over_duckdb).filter((v): v is number => v !== null) : [];
  const oneShotTq = largest ? Object.values(largest.queries).map((q) => q.tq_repeat?.median_ms).filter((v): v is number => v != null) : [];
  return [
    t('every warm query, tq / tuned DuckDB (the worst)', '<= 1.0', worst?.[1] ?? null, (v) => v <= 1, worst ? `worst: ${worst[0]}` : ''),
    t('geomean warm tq / tuned DuckDB', '<= 0.5', f.geomean.warm_over_tuned, (v) => v <= 0.5),
    t('first use of a new path, tq / DuckDB plain SQL (the worst median)', '<= 1.0', worstFirst?.[1] ?? null, (v) => v <= 1, worstFirst ? `worst: ${worstFirst[0]}` : ''),
    t('every UI-shaped query, tq warm / tuned DuckDB (the worst)', '<= 1.0', worstUi?.[1] ?? null, (v) => v <= 1, worstUi ? `worst: ${worstUi[0]}` : ''),
    t('op_wildcard, tq warm / gather-copy of its result lines', '<= 3', f.copy?.tq_over_ceiling ?? null, (v) => v <= 3, f.copy ? `${f.copy.ms} ms ceiling; CPU: ${f.copy.tq_cpu_over_ceiling_cpu}` : ''),
    t('roots page (limit 50/100), tq warm ms (the slower)', '<= 1', pages.length ? Math.max(...pages) : null, (v) => v <= 1),
    t(`one-shot at ${largest?.calls ?? 'n/a'} calls, tq / DuckDB read_json_auto (the worst)`, '<= 1.0', oneShotRatios.length ? Math.max(...oneShotRatios) : null, (v) => v <= 1),
    t('repeated one-shot over unchanged fixtures, tq ms (the slower)', '<= 1000', oneShotTq.length ? Math.max(...oneShotTq) : null, (v) => v <= 1000, largest?.snapshot_bytes != null ? `load snapshot of ${(largest.snapshot_bytes / 1e6).toFixed(1)} MB reused` : 'no load snapshot written'),
    t('load throughput, tq / bare JSON.parse loop', '>= 1.5', f.loadRatio, (v) => v >= 1.5),
    t('HTTP stream MB/s', '>= 500', f.http.available ? f.http.mb_per_s : null, (v) => v >= 500),
    t('HTTP stream, tq / a node:http server writing the same bytes prebuilt', '>= 0.6', f.http.available ? f.http.tq_over_ceiling : null, (v) => v >= 0.6, f.http.available ? `ceiling ${f.http.ceiling.mb_per_s} MB/s` : ''),
    t('heap per call after the whole mix, bytes', '<= 1536', f.heapAfter, (v) => v <= 1536),
  ];
}

// ---------------------------------------------------------------------------------------------
// Report.

const fmt = (v: number | null | undefined, digits = 2) => (v == null || Number.isNaN(v) ? 'n/a' : v >= 100 ? v.toFixed(0) : v.toFixed(digits));
const span = (t: Timing | null) => (t ? `${fmt(t.median_ms)} (${fmt(t.min_ms)}–${fmt(t.max_ms)})` : 'n/a');
const checkCell = (r: QueryResult) => {
  const cs = [r.check.plain, r.check.tuned].filter((c): c is CheckResult => c !== null);
  if (r.errors.length) return 'error';
  if (cs.length === 0) return 'n/a';
  return cs.every((c) => c.ids_match && c.content_match) ? `ok (${cs[0].content_sampled} rows)` : 'MISMATCH';
};

function table(headers: string[], rows: string[][], markdown: boolean): string {
  if (markdown) {
    return [`| ${headers.join(' | ')} |`, `|${headers.map((_, i) => (i === 0 ? '---' : '---:')).join('|')}|`, ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');
  }
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  return [line(headers), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

/** The query table and the one-shot table (plain text, or markdown for bench/RESULTS.md). */
export function formatTables(r: BenchResults, markdown: boolean): string {
  const out: string[] = [];
  out.push(
    table(
      ['query', 'rows', 'tq warm ms (range)', 'tq cold ms', 'DuckDB ms (range)', 'DuckDB tuned ms (range)', 'warm/DuckDB', 'warm/tuned', 'cold/DuckDB', 'CPU ms tq/DuckDB/tuned', 'check'],
      Object.entries(r.queries).map(([name, q]) => [
        name,
        String(q.rows ?? 'n/a'),
        span(q.tq.warm),
        fmt(q.tq.cold_ms),
        span(q.duckdb.plain),
        span(q.duckdb.tuned),
        fmt(q.ratios.warm_over_plain, 3),
        fmt(q.ratios.warm_over_tuned, 3),
        fmt(q.ratios.cold_over_plain, 3),
        [q.tq.warm, q.duckdb.plain, q.duckdb.tuned].map((t) => fmt(t?.cpu_median_ms)).join(' / '),
        checkCell(q),
      ]),
      markdown,
    ),
  );
  const firsts = Object.entries(r.queries).filter(([, q]) => q.first_use !== null);
  if (firsts.length) {
    out.push('');
    out.push(
      table(
        ['first use', 'tq ms (range)', 'tq first-ever ms', 'DuckDB plain ms (range)', 'tq/DuckDB', 'CPU ms tq/DuckDB'],
        firsts.map(([name, q]) => [
          name,
          span(q.first_use!.tq),
          fmt(q.first_use!.first_ms),
          span(q.first_use!.plain),
          fmt(q.first_use!.tq_over_plain, 3),
          [q.first_use!.tq, q.first_use!.plain].map((t) => fmt(t?.cpu_median_ms)).join(' / '),
        ]),
        markdown,
      ),
    );
  }
  out.push('');
  out.push(
    `geomean tq/DuckDB: warm ${fmt(r.geomean.warm_over_plain, 3)}, warm vs tuned ${fmt(r.geomean.warm_over_tuned, 3)}, ` +
      `cold ${fmt(r.geomean.cold_over_plain, 3)}, cold vs tuned ${fmt(r.geomean.cold_over_tuned, 3)}`,
  );
  const shots = Object.entries(r.oneshot);
  if (shots.length) {
    out.push('');
    const tool = (t: { median_ms: number; min_ms: number; max_ms: number } | null) => (t ? `${fmt(t.median_ms / 1000)} (${fmt(t.min_ms / 1000)}–${fmt(t.max_ms / 1000)})` : 'n/a');
    out.push(
      table(
        ['one-shot', 'calls', 'rows', 'tq s (range)', 'DuckDB read_json_auto s', 'jq s', 'tq/DuckDB', 'tq/jq', 'ids', 'tq first, writes snapshot s', 'snapshot writer after it s', 'tq repeat, snapshot s', 'snapshot MB'],
        shots.flatMap(([n, s]) =>
          Object.entries(s.queries).map(([name, q]) => [
            name,
            n,
            String(q.tq?.rows ?? q.duckdb?.rows ?? 'n/a'),
            tool(q.tq),
            tool(q.duckdb),
            s.jq.startsWith('skipped') ? 'skipped' : tool(q.jq),
            fmt(q.tq_over_duckdb, 3),
            fmt(q.tq_over_jq, 3),
            q.ids_match ? 'same' : 'DIFFER',
            tool(q.tq_snapshot_first),
            q.snapshot_writer_ms === null ? 'n/a' : fmt(q.snapshot_writer_ms / 1000),
            tool(q.tq_repeat),
            s.snapshot_bytes === null ? 'n/a' : fmt(s.snapshot_bytes / 1e6, 1),
          ]),
        ),
        markdown,
      ),
    );
  }
  return out.join('\n');
}

export function formatReport(r: BenchResults): string {
  const out: string[] = [];
  out.push(`tq bench: ${r.config.calls} calls (${r.config.avg_call_line_bytes} B/line avg), ${r.config.table_rows}-row table; ${r.config.runs} interleaved runs per query and side after ${r.config.warmup} warm-up`);
  out.push(
    `machine: ${r.machine.cpu}, ${r.machine.cores} cores, ${r.machine.total_memory_gib} GiB, node ${r.machine.node}, ${r.machine.os}; ` +
      `load average ${r.machine.load_average_start.join(' ')} at start, ${r.machine.load_average_end.join(' ')} at end; ${r.config.started} – ${r.config.finished}`,
  );
  out.push('');
  out.push(
    `load:   tq ${fmt(r.load.tq_ms, 0)} ms (${fmt(r.load.tq_mb_per_s, 1)} MB/s) vs bare JSON.parse loop ${fmt(r.load.bare_parse_ms, 0)} ms ` +
      `(${fmt(r.load.bare_parse_mb_per_s, 1)} MB/s) -> ${fmt(r.load.ratio, 3)}x the bare loop`,
  );
  out.push(
    `        table: ${r.load.table_rows} rows in ${fmt(r.load.table_load_ms, 0)} ms; DuckDB: calls ${fmt(r.load.duckdb_calls_load_ms, 0)} ms ` +
      `(+ tuned columns ${fmt(r.load.duckdb_tuned_columns_ms, 0)} ms), table ${fmt(r.load.duckdb_table_load_ms, 0)} ms`,
  );
  out.push(`memory: ${r.memory.heap_per_call_bytes} B heap per ${r.memory.avg_call_line_bytes} B call; ${r.memory.heap_per_call_after_queries_bytes} B after the query mix`);
  if (r.copy_ceiling) out.push(`copy ceiling: ${r.copy_ceiling.query}'s ${(r.copy_ceiling.bytes / 1e6).toFixed(1)} MB copied in ${fmt(r.copy_ceiling.ms)} ms (CPU ${fmt(r.copy_ceiling.cpu_ms)} ms), after each warm run: tq warm ${fmt(r.copy_ceiling.tq_over_ceiling)}x of it (CPU ${fmt(r.copy_ceiling.tq_cpu_over_ceiling_cpu)}x)`);
  out.push('');
  out.push(formatTables(r, false));
  out.push('');
  out.push(
    r.http.available
      ? `http:   /calls/stream_query, ${r.http.calls} calls, ${(r.http.bytes / 1e6).toFixed(1)} MB in ${fmt(r.http.median_ms, 0)} ms -> ${fmt(r.http.mb_per_s, 1)} MB/s; ` +
        `the same bytes prebuilt from plain node:http ${fmt(r.http.ceiling.median_ms, 0)} ms -> ${fmt(r.http.ceiling.mb_per_s, 1)} MB/s: ${fmt(r.http.tq_over_ceiling, 3)} of it ` +
        `(server CPU per request ${fmt(r.http.cpu_ms.tq, 0)} against ${fmt(r.http.cpu_ms.ceiling, 0)} ms)`
      : `http:   n/a (${r.http.reason})`,
  );
  for (const [n, s] of Object.entries(r.oneshot)) out.push(`one-shot ${n}: jq ${s.jq}`);
  out.push('');
  out.push('targets:');
  for (const t of r.targets) out.push(`  ${t.met === null ? '  n/a' : t.met ? '  met' : 'MISSED'}  ${t.name}: ${fmt(t.value, 3)} (target ${t.target})${t.note ? `; ${t.note}` : ''}`);
  for (const e of r.errors) out.push(`error: ${e}`);
  for (const m of r.mismatches) out.push(`\n!!!!!!!! MISMATCH: ${m.query} vs ${m.against}: ${m.detail}`);
  out.push('');
  out.push('markdown:');
  out.push(formatTables(r, true));
  return out.join('\n');
}

// ---------------------------------------------------------------------------------------------
// Command line.

interface CliOptions extends BenchOptions {
  out: string;
  reexec: boolean;
}

const SKIPPABLE: readonly SkipPart[] = ['duckdb', 'cold', 'http', 'oneshot'];

export function parseArgs(argv: readonly string[]): CliOptions {
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
  for (const s of skip) if (!SKIPPABLE.includes(s as SkipPart)) throw new Error(`--skip takes ${SKIPPABLE.join(', ')}; got '${s}'`);
  const calls = int('--calls', 100_000);
  if (calls < 10) throw new Error('--calls must be at least 10');
  const oneShot = list('--oneshot-calls')?.map((s) => {
    const n = Number(s);
    if (!Number.isInteger(n) || n < 10) throw new Error(`--oneshot-calls takes sizes of at least 10, got '${s}'`);
    return n;
  });
  return {
    calls,
    seed: int('--seed', 1),
    runs: Math.max(1, int('--runs', 7)),
    warmup: Math.max(1, int('--warmup', 1)),
    firstUseRuns: Math.max(1, int('--first-use-runs', 3)),
    httpCalls: int('--http-calls', 100_000),
    httpRuns: Math.max(1, int('--http-runs', 3)),
    queries: list('--queries'),
    skip: skip as Set<SkipPart>,
    oneShotCalls: oneShot,
    oneShotRuns: Math.max(1, int('--oneshot-runs', 3)),
    dataRoot: value('--data-root'),
    out: value('--out') ?? fileURLToPath(new URL('./results.json', import.meta.url)),
    reexec: !argv.includes('--no-reexec'),
    log: (m) => process.stderr.write(`[bench +${(performance.now() / 1000).toFixed(0)}s] ${m}\n`),
  };
}

/** Heap the run needs: the tq store and its caches, the table engine, headroom. */
function neededHeapMb(calls: number): number {
  return Math.ceil((calls * 4 * 1024) / 2 ** 20) + 2048;
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
