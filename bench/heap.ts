/**
 * Where the heap goes, per call. Memory as bench/memory.ts counts it (V8 heap + ArrayBuffers,
 * after a full GC), minus the baseline before anything was loaded.
 *
 *   node --import tsx bench/heap.ts [--calls N] [--breakdown]
 *     N generated calls (default 100k) stored line by line, every index built.
 *   node --import tsx bench/heap.ts --mix [--calls N]
 *     the bench's data set loaded as `npm run bench` loads it, then each calls query of the
 *     bench mix run once (output drained and dropped): the heap after each query, and the
 *     engine's derived caches (Store.derived.report()) at the end.
 */
import { parseCallRecord } from '../src/load/calls/call-record.ts';
import { generateCalls } from '../src/gen/generate.ts';
import { Store } from '../src/store/store.ts';
import { heapBytes, settledHeapBytes } from './memory.ts';

const argIndex = process.argv.indexOf('--calls');
const calls = argIndex > 0 ? Number(process.argv[argIndex + 1]) : 100_000;

if (process.argv.includes('--mix')) await mix(calls);
else storeOnly(calls);

function storeOnly(calls: number): void {
  const before = heapBytes();
  const store = new Store();
  const t0 = performance.now();
  let lineBytes = 0;
  // Lines are produced and dropped one at a time, so the baseline holds no input data.
  for (const line of generateCalls({ calls, seed: 1, projectId: 'bench/heap' })) {
    const buf = Buffer.from(line, 'utf8');
    lineBytes += buf.length;
    const { projectId, record } = parseCallRecord(JSON.parse(buf.toString('utf8')), 'svc_');
    store.projectForWrite(projectId).calls.load(record, buf, 0, buf.length);
  }
  const loadMs = performance.now() - t0;
  const after = heapBytes();
  const perCall = (after - before) / calls;
  console.log(
    JSON.stringify({
      calls,
      avg_line_bytes: Math.round(lineBytes / calls),
      heap_per_call_bytes: Math.round(perCall),
      load_ms: Math.round(loadMs),
      stored_calls: store.counts().calls,
    }),
  );
  if (process.argv.includes('--breakdown')) {
    const t = store.project('bench/heap')!.calls;
    console.log({ arena_per_call: Math.round(t.arenaBytes / calls), traces: t.byTrace.size, parents: t.byParent.size, threads: t.byThread.size, ops: t.opNames.values.length });
  }
}

async function mix(calls: number): Promise<void> {
  const { allRoutes } = await import('../src/routes.ts');
  const { createEngine } = await import('../src/engine.ts');
  const { loadFixtures } = await import('../src/io/load-fixtures.ts');
  const { ensureBenchData } = await import('./generate.ts');
  const { benchQueries } = await import('./queries.ts');
  const { startOrderBytes } = await import('../src/store/start-order.ts');
  const data = await ensureBenchData({ calls });
  const P = data.projectId;
  const before = heapBytes();
  const engine = createEngine();
  await loadFixtures(engine, data.dir);
  const perCall = (bytes: number) => Math.round((bytes - before) / calls);
  console.log(`loaded ${calls} calls: ${perCall(await settledHeapBytes())} B/call`);
  const t = engine.store.project(P)!.calls;
  const sampleIds = Array.from({ length: 10 }, (_, i) => t.id(Math.floor(((i + 0.5) * t.size) / 10)));
  const routes = new Map(allRoutes().map((r) => [r.path, r]));
  const ctx = { userId: 'bench', authorize() {}, canRead: () => true };
  for (const q of benchQueries({ projectId: P, calls, sampleIds, traceId: t.traceId(0), tableDigest: 'none' })) {
    if (q.engine !== 'calls') continue;
    const res = routes.get(q.route)!.run(engine, { kind: 'value', value: structuredClone(q.body) }, ctx);
    let rows = 0;
    if (res.kind === 'stream') for (const _ of res.lines) rows++;
    console.log(`${q.name.padEnd(16)} ${String(rows).padStart(7)} rows  ${perCall(await settledHeapBytes())} B/call`);
  }
  const report = engine.store.derived.report();
  // The start-order indexes live beside each call table (src/store/start-order.ts).
  report['start-order indexes'] = startOrderBytes(t);
  for (const [name, bytes] of Object.entries(report)) console.log(`  cache ${name.padEnd(28)} ${(bytes / calls).toFixed(1)} B/call`);
}
