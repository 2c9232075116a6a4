/**
 * How fast the viewer shows data (issue #28): time to first paint of the calls view and of a
 * 10,000-call trace, in Debian's chromium (playwright-core), against `tq serve` on generated calls.
 * Run: `node --import tsx bench/viewer-paint.ts --calls 1000000 [--trace-calls 10000] [--runs 3]`.
 *
 * The data: `--calls` generated calls (src/gen/generate.ts, project bench/gen, traces of 1-30
 * calls) plus one trace of `--trace-calls` calls written through /call/upsert_batch after the
 * load: a root, 99 children, each with its share of the rest as leaves. Each run opens a fresh
 * tab on the view's URL (page, script, style sheet, sign-in from sessionStorage, the API requests)
 * and reads `performance.now()` after the first animation frame that follows the view drawing
 * its rows: navigation start to painted data. The view's own time (route start to rows drawn,
 * i.e. mostly the API) is printed beside it.
 */
import { spawn, spawnSync } from 'node:child_process';
import { createWriteStream, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { generateCalls } from '../src/gen/generate.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i < 0 ? fallback : Number(process.argv[i + 1]);
};
const CALLS = arg('calls', 100_000);
const TRACE_CALLS = arg('trace-calls', 10_000);
const RUNS = arg('runs', 3);
const CHROMIUM = [process.env.TQ_CHROMIUM, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => p && existsSync(p));
if (!CHROMIUM) {
  console.error('viewer-paint: no chromium (apt-get install -y chromium, or TQ_CHROMIUM)');
  process.exit(2);
}

const work = mkdtempSync(join(tmpdir(), 'tq-viewer-bench-'));
const fixtures = join(work, 'fixtures');
spawnSync('mkdir', ['-p', fixtures]);
const t0 = performance.now();
const out = createWriteStream(join(fixtures, 'calls.jsonl'));
for (const line of generateCalls({ calls: CALLS, seed: 1, projectId: 'bench/gen' })) {
  if (!out.write(line + '\n')) await once(out, 'drain');
}
out.end();
await once(out, 'finish');
console.log(`generated ${CALLS} calls in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
const built = spawnSync(process.execPath, [join(ROOT, 'scripts', 'build-viewer.mjs'), join(work, 'ui')], { encoding: 'utf8' });
if (built.status !== 0) throw new Error(built.stderr);
writeFileSync(join(work, 'users.json'), JSON.stringify({ users: [{ name: 'api', password: 'pw', projects: ['*'] }] }));

const env: NodeJS.ProcessEnv = { ...process.env, TQ_VIEWER_DIR: join(work, 'ui') };
delete env.TQ_FIXTURES;
const child = spawn(process.execPath, [join(ROOT, 'bin', 'tq'), 'serve', '--fixtures', fixtures, '--port', '0', '--users', join(work, 'users.json'), '--quiet'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
let stderr = '';
child.stderr!.on('data', (c) => (stderr += c));
const loadStart = performance.now();
while (!/tq listening on (\S+)/.test(stderr)) {
  if (child.exitCode !== null) throw new Error(stderr);
  await new Promise((r) => setTimeout(r, 100));
}
const base = /tq listening on (\S+)/.exec(stderr)![1];
console.log(`tq serve loaded them in ${((performance.now() - loadStart) / 1000).toFixed(1)} s`);
const AUTH = 'Basic ' + Buffer.from('api:pw').toString('base64');

// The big trace: root → 99 children → leaves, one second apart, 50 ms each.
const traceId = 'big-trace-0000';
const batch: unknown[] = [];
const at = (ms: number) => new Date(Date.UTC(2030, 0, 1) + ms).toISOString();
const call = (id: string, parent: string | null, startMs: number, endMs: number) => {
  batch.push({ mode: 'start', req: { start: { project_id: 'bench/gen', id, op_name: 'weave:///bench/gen/op/big_step:*', trace_id: traceId, parent_id: parent, started_at: at(startMs), attributes: {}, inputs: { i: id } } } });
  batch.push({ mode: 'end', req: { end: { project_id: 'bench/gen', id, ended_at: at(endMs), output: { ok: true }, summary: {} } } });
};
const mids = 99;
call('big-root', null, 0, TRACE_CALLS * 10 + 1000);
let made = 1;
for (let m = 0; m < mids; m++) call(`big-mid-${m}`, 'big-root', m * 10, m * 10 + 5);
made += mids;
for (let i = 0; made < TRACE_CALLS; i++, made++) call(`big-leaf-${i}`, `big-mid-${i % mids}`, 100 + i, 100 + i + 50);
const wrote = await fetch(base + '/call/upsert_batch', { method: 'POST', headers: { Authorization: AUTH }, body: JSON.stringify({ batch }) });
if (wrote.status !== 200) throw new Error(`upsert_batch: ${wrote.status} ${await wrote.text()}`);

const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--disable-gpu', '--disable-dev-shm-usage'] });
const token = Buffer.from('api:pw').toString('base64');
async function measure(fragment: string): Promise<{ paint: number; view: number }> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  // Signed in before the page's script runs, as a returning tab would be.
  await page.addInitScript(`sessionStorage.setItem('tq.viewer.session', JSON.stringify({ user: 'api', token: '${token}' }))`);
  await page.goto(`${base}/${fragment}`);
  // A function, not a string: the page's CSP forbids eval.
  await page.waitForFunction(() => ((globalThis as unknown as { document: any }).document.body.dataset.rendered || '').includes(':'), undefined, { timeout: 600_000 });
  const rendered = (await page.evaluate('document.body.dataset.rendered')) as string;
  if (rendered.endsWith(':error')) throw new Error(`${fragment}: ${(await page.evaluate("document.querySelector('main').textContent")) as string}`);
  const paint = (await page.evaluate('new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r(performance.now()))))')) as number;
  await page.close();
  return { paint, view: Number(rendered.split(':')[1]) };
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
for (const [label, fragment] of [['calls view (50 newest roots, counted)', '#/calls/bench%2Fgen'], [`trace of ${TRACE_CALLS} calls (root + first 200 children)`, `#/trace/bench%2Fgen/${traceId}`]] as const) {
  const runs: Array<{ paint: number; view: number }> = [];
  for (let r = 0; r < RUNS; r++) runs.push(await measure(fragment));
  console.log(`${label}: first paint with data ${median(runs.map((x) => x.paint)).toFixed(0)} ms (median of ${RUNS}; runs ${runs.map((x) => x.paint.toFixed(0)).join(', ')}), view alone ${median(runs.map((x) => x.view)).toFixed(0)} ms`);
}
await browser.close();
child.kill('SIGTERM');
await once(child, 'exit');
rmSync(work, { recursive: true, force: true });
