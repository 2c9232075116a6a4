/**
 * A render micro-loop for working on the byte renderer: loads the bench data once, then runs
 * the named queries N times each and prints the median wall and CPU ms, rows, µs per row, and
 * op_wildcard's ratio to the copy ceiling measured in the same process, interleaved with it
 * (bench/copy-ceiling.ts: its result lines, one buffer each, copied into one buffer).
 * Run: node --expose-gc --import tsx bench/render-loop.ts --calls 100000 --queries op_wildcard --runs 15
 * `--profile FILE` writes a CPU profile of the measured runs alone (not of the load).
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import type { RequestContext, Route } from '../src/api/types.ts';
import { allRoutes } from '../src/routes.ts';
import { createEngine } from '../src/engine.ts';
import { loadFixtures } from '../src/io/load-fixtures.ts';
import { decodeLines } from '../src/api/line-stream.ts';
import { ensureBenchData } from './generate.ts';
import { optionReader } from './args.ts';
import { benchQueries, paramsFromTable } from './queries.ts';
import { chunkLines, median } from './stats.ts';
import { copyMeasurer } from './copy-ceiling.ts';

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const value = optionReader(argv);
  const calls = Number(value('--calls') ?? 100_000);
  const runs = Number(value('--runs') ?? 15);
  const names = (value('--queries') ?? 'op_wildcard').split(',');
  const profile = value('--profile');
  const data = await ensureBenchData({ calls, root: value('--data-root'), log: (m) => console.error(`[render-loop] ${m}`) });
  const engine = createEngine();
  await loadFixtures(engine, data.dir);
  const project = engine.store.project(data.projectId)!;
  const queries = benchQueries(paramsFromTable(project.calls, data.projectId, calls, '')).filter((q) => names.includes(q.name));
  const routes = new Map<string, Route>(allRoutes().map((r) => [r.path, r]));
  const ctx: RequestContext = { userId: 'bench', authorize() {}, canRead: () => true };
  const session = profile ? new Session() : null;
  if (session) {
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.start');
  }
  for (const q of queries) {
    const route = routes.get(q.route)!;
    const wall: number[] = [], cpu: number[] = [], ceiling: number[] = [], ceilingCpu: number[] = [];
    let rows = 0, bytes = 0;
    // The ceiling copies this query's own result lines (kept from the first run).
    const lines: string[] = [];
    let copy: ReturnType<typeof copyMeasurer> | null = null;
    for (let i = 0; i < runs + 2; i++) {
      rows = 0; bytes = 0;
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      const res = route.run(engine, { kind: 'value', value: structuredClone(q.body) }, ctx);
      if (res.kind === 'stream') {
        for (const chunk of res.chunks) {
          rows += chunkLines(chunk);
          bytes += chunk.length;
          if (i === 0) for (const line of decodeLines([chunk])) lines.push(line);
        }
      }
      const ms = performance.now() - t0;
      const c = process.cpuUsage(c0);
      if (i === 0) {
        copy = copyMeasurer(lines);
        lines.length = 0;
      }
      if (i >= 2) {
        wall.push(ms);
        cpu.push((c.user + c.system) / 1000);
        const t = copy!.measure();
        ceiling.push(t.ms);
        ceilingCpu.push(t.cpu);
      }
    }
    copy = null;
    const ms = median(wall), copyMs = median(ceiling);
    console.log(
      `${q.name}: ${ms.toFixed(2)} ms median (min ${Math.min(...wall).toFixed(2)}), CPU ${median(cpu).toFixed(2)} ms, ${rows} rows, ${(bytes / 1e6).toFixed(1)} MB, ` +
        `${((ms * 1000) / Math.max(rows, 1)).toFixed(2)} µs/row, ${(bytes / 1e3 / ms).toFixed(0)} MB/s; copy ceiling ${copyMs.toFixed(2)} ms (min ${Math.min(...ceiling).toFixed(2)}): ` +
        `${(ms / copyMs).toFixed(2)}x (min/min ${(Math.min(...wall) / Math.min(...ceiling)).toFixed(2)}x, CPU ${(median(cpu) / median(ceilingCpu)).toFixed(2)}x)`,
    );
  }
  if (session && profile) {
    const { profile: p } = await session.post('Profiler.stop');
    writeFileSync(profile, JSON.stringify(p));
    session.disconnect();
  }
}

main().catch((e: unknown) => {
  console.error((e as Error)?.stack ?? String(e));
  process.exitCode = 1;
});
