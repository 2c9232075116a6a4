/**
 * The HTTP stream bench alone (bench/http.ts): loads the bench data once, then streams
 * `--http-calls` calls over loopback from tq's server and from the prebuilt-bytes ceiling,
 * interleaved, and prints both and the ratio.
 * Run: node --expose-gc --import tsx bench/http-loop.ts --calls 100000 --runs 5
 */
import { allRoutes } from '../src/routes.ts';
import { createEngine } from '../src/engine.ts';
import { loadFixtures } from '../src/io/load-fixtures.ts';
import { ensureBenchData } from './generate.ts';
import { optionReader } from './args.ts';
import { measureHttp } from './http.ts';

async function main(): Promise<void> {
  const value = optionReader(process.argv.slice(2));
  const calls = Number(value('--calls') ?? 100_000);
  const httpCalls = Number(value('--http-calls') ?? calls);
  const runs = Number(value('--runs') ?? 5);
  const data = await ensureBenchData({ calls, root: value('--data-root'), log: (m) => console.error(`[http-loop] ${m}`) });
  const engine = createEngine();
  await loadFixtures(engine, data.dir);
  const c0 = process.cpuUsage();
  const r = await measureHttp(engine, allRoutes(), data.projectId, Math.min(httpCalls, calls), runs);
  const c = process.cpuUsage(c0);
  console.log(
    `http: ${r.calls} calls, ${(r.bytes / 1e6).toFixed(1)} MB: tq ${r.median_ms.toFixed(0)} ms (${r.mb_per_s} MB/s), ` +
      `prebuilt ${r.ceiling.median_ms.toFixed(0)} ms (${r.ceiling.mb_per_s} MB/s): ${r.tq_over_ceiling} of the ceiling; server CPU per request: tq ${r.cpu_ms.tq.toFixed(0)} ms, prebuilt ${r.cpu_ms.ceiling.toFixed(0)} ms (${(r.cpu_ms.ceiling / r.cpu_ms.tq).toFixed(3)}); process CPU ${((c.user + c.system) / 1000).toFixed(0)} ms`,
  );
}

main().catch((e: unknown) => {
  console.error((e as Error)?.stack ?? String(e));
  process.exitCode = 1;
});
