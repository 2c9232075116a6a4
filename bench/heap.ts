/**
 * Heap per call after loading N generated calls (default 100k), with every index built.
 * Run: node --import tsx bench/heap.ts [--calls N]
 * Memory as bench/memory.ts counts it, after loading minus before.
 */
import { parseCallRecord } from '../src/load/call-record.ts';
import { generateCalls } from '../src/gen/generate.ts';
import { Store } from '../src/store/store.ts';
import { heapBytes } from './memory.ts';

const argIndex = process.argv.indexOf('--calls');
const calls = argIndex > 0 ? Number(process.argv[argIndex + 1]) : 100_000;
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
