/**
 * A render micro-loop for working on the byte renderer: loads the bench data once, then runs
 * the named queries N times each and prints the median wall ms, rows and µs per row.
 * Run: node --expose-gc --import tsx bench/render-loop.ts --calls 100000 --queries op_wildcard --runs 15
 */
import type { RequestContext, Route } from '../src/api/types.ts';
import { allRoutes } from '../src/routes.ts';
import { createEngine } from '../src/engine.ts';
import { loadFixtures } from '../src/io/load-fixtures.ts';
import { countNewlines } from '../src/api/line-stream.ts';
import { ensureBenchData } from './generate.ts';
import { optionReader } from './args.ts';
import { benchQueries, paramsFromTable } from './queries.ts';
import { median } from './stats.ts';

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const value = optionReader(argv);
  const calls = Number(value('--calls') ?? 100_000);
  const runs = Number(value('--runs') ?? 15);
  const names = (value('--queries') ?? 'op_wildcard').split(',');
  const data = await ensureBenchData({ calls, log: (m) => console.error(`[render-loop] ${m}`) });
  const engine = createEngine();
  await loadFixtures(engine, data.dir);
  const project = engine.store.project(data.projectId)!;
  const queries = benchQueries(paramsFromTable(project.calls, data.projectId, calls, '')).filter((q) => names.includes(q.name));
  const routes = new Map<string, Route>(allRoutes().map((r) => [r.path, r]));
  const ctx: RequestContext = { userId: 'bench', authorize() {}, canRead: () => true };
  for (const q of queries) {
    const route = routes.get(q.route)!;
    const samples: number[] = [];
    let rows = 0, bytes = 0;
    for (let i = 0; i < runs + 2; i++) {
      rows = 0; bytes = 0;
      const t0 = performance.now();
      const res = route.run(engine, { kind: 'value', value: structuredClone(q.body) }, ctx);
      if (res.kind === 'stream') for (const chunk of res.chunks) { rows += countNewlines(chunk); bytes += chunk.length; }
      if (i >= 2) samples.push(performance.now() - t0);
    }
    const ms = median(samples);
    console.log(`${q.name}: ${ms.toFixed(2)} ms median (min ${Math.min(...samples).toFixed(2)}), ${rows} rows, ${(bytes / 1e6).toFixed(1)} MB, ${((ms * 1000) / Math.max(rows, 1)).toFixed(2)} µs/row, ${(bytes / 1e3 / ms).toFixed(0)} MB/s`);
  }
}

main().catch((e: unknown) => {
  console.error((e as Error)?.stack ?? String(e));
  process.exitCode = 1;
});
