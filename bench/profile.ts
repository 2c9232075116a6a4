/**
 * CPU profiles of the benchmark: the load, then each query of the mix, each in its own
 * .cpuprofile (open in Chrome DevTools or speedscope), with the hottest functions printed.
 * The data set is loaded once; the profiler runs only around what it names.
 *
 * Run: node --expose-gc --import tsx bench/profile.ts --calls 1000000 [--queries a,b]
 *      [--runs 5] [--dir /tmp/tq-profiles] [--top 15] [--no-load-profile]
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RequestContext, Route } from '../src/api/types.ts';
import { allRoutes } from '../src/routes.ts';
import { createEngine } from '../src/engine.ts';
import { loadFixtures } from '../src/io/load-fixtures.ts';
import { ensureBenchData } from './generate.ts';
import { optionReader } from './args.ts';
import { benchQueries, paramsFromTable, uiQueries } from './queries.ts';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Frames that say nothing about tq: the event loop, the profiler itself, this script. */
const NOISE = /^(\(root\)|\(program\)|\(idle\)|dispatch|runMicrotasks|processTicksAndRejections) |bench\/profile\.ts|node:inspector|node:internal\/util:/;

/** Self and inclusive milliseconds per function (name + file), hottest first. */
export function hotFunctions(profile: Profile, top: number): { total: number; self: Array<[string, number]>; inclusive: Array<[string, number]> } {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const label = (n: ProfileNode) => {
    const file = n.callFrame.url.split('/').slice(-2).join('/');
    return `${n.callFrame.functionName || '(anonymous)'} ${file}${file ? `:${n.callFrame.lineNumber + 1}:${n.callFrame.columnNumber + 1}` : ''}`;
  };
  const perNode = new Map<number, number>();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const dt = profile.timeDeltas[i] ?? 0;
    total += dt;
    perNode.set(id, (perNode.get(id) ?? 0) + dt);
  });
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  for (const [id, dt] of perNode) {
    const leaf = label(byId.get(id)!);
    self.set(leaf, (self.get(leaf) ?? 0) + dt);
    const seen = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const l = label(byId.get(cur)!);
      if (seen.has(l)) continue;
      seen.add(l);
      inclusive.set(l, (inclusive.get(l) ?? 0) + dt);
    }
  }
  const ms = (m: Map<string, number>) =>
    [...m]
      .filter(([k]) => !NOISE.test(k))
      .sort((a, b) => b[1] - a[1])
      .slice(0, top).map(([k, us]): [string, number] => [k, Math.round(us / 100) / 10]);
  return { total: total / 1000, self: ms(self), inclusive: ms(inclusive) };
}

function printHot(title: string, profile: Profile, top: number): void {
  const h = hotFunctions(profile, top);
  console.log(`\n== ${title}: ${h.total.toFixed(0)} ms sampled`);
  console.log('  self:');
  for (const [k, ms] of h.self) console.log(`    ${ms.toFixed(1).padStart(9)} ms  ${k}`);
  console.log('  inclusive:');
  for (const [k, ms] of h.inclusive) console.log(`    ${ms.toFixed(1).padStart(9)} ms  ${k}`);
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const value = optionReader(argv);
  const calls = Number(value('--calls') ?? 100_000);
  const runs = Number(value('--runs') ?? 5);
  const top = Number(value('--top') ?? 15);
  const dir = value('--dir') ?? join(tmpdir(), 'tq-profiles');
  const only = value('--queries')?.split(',');
  mkdirSync(dir, { recursive: true });

  const data = await ensureBenchData({ calls, log: (m) => console.error(`[profile] ${m}`) });
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 200 });
  const profiled = async (name: string, fn: () => Promise<void> | void) => {
    await session.post('Profiler.start');
    const t0 = performance.now();
    await fn();
    const ms = performance.now() - t0;
    const { profile } = (await session.post('Profiler.stop')) as unknown as { profile: Profile };
    const file = join(dir, `${name}.cpuprofile`);
    writeFileSync(file, JSON.stringify(profile));
    printHot(`${name} (${ms.toFixed(0)} ms wall; ${file})`, profile, top);
  };

  const engine = createEngine();
  if (argv.includes('--no-load-profile')) await loadFixtures(engine, data.dir);
  else await profiled('load-calls', () => loadFixtures(engine, data.dir).then(() => {}));
  const mix = (p: Parameters<typeof benchQueries>[0]) => [...benchQueries(p), ...uiQueries(p)];
  const all = mix({ projectId: '', calls, sampleIds: [], traceId: '', tableDigest: '' });
  const names = only ?? all.map((q) => q.name);
  // The table takes long to load; only when a table query is profiled.
  if (all.some((q) => q.engine === 'table' && names.includes(q.name))) await loadFixtures(engine, data.tableOnlyDir);
  const project = engine.store.project(data.projectId)!;
  const queries = mix(paramsFromTable(project.calls, data.projectId, calls, [...project.tables.keys()][0] ?? '')).filter((q) => names.includes(q.name));
  const routes = new Map<string, Route>(allRoutes().map((r) => [r.path, r]));
  const ctx: RequestContext = { userId: 'bench', authorize() {}, canRead: () => true };
  const drain = (route: Route, body: Record<string, unknown>) => {
    const res = route.run(engine, { kind: 'value', value: structuredClone(body) }, ctx);
    if (res.kind === 'stream') for (const chunk of res.chunks) void chunk;
  };
  for (const q of queries) {
    const route = routes.get(q.route)!;
    // The first run fills per-path caches; it is profiled on its own.
    await profiled(`${q.name}-cold`, () => drain(route, q.body));
    await profiled(`${q.name}-x${runs}`, () => {
      for (let i = 0; i < runs; i++) drain(route, q.body);
    });
  }
  session.disconnect();
}

main().catch((e: unknown) => {
  console.error((e as Error)?.stack ?? String(e));
  process.exitCode = 1;
});
