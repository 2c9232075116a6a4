/**
 * Memory and fairness under upload pressure (issue 22 §4): a `tq serve` process (from source,
 * heap limit fixed, so the figure is the server's own) receives N concurrent uploads of a
 * max-size valid body while a probe asks `GET /health` one request after another. Prints the
 * server's peak RSS (VmHWM from /proc), the probe's latency (p50, p99, max), and how the
 * uploads were answered (status counts). Not a test: run it by hand.
 *
 *   node --import tsx bench/upload-pressure.ts [--uploads 120] [--mib 32] [--route table]
 *
 * --retry: an upload answered 503 (or cut with EPIPE/ECONNRESET while sending) waits its
 * Retry-After and is sent again (until 200 or another status), as a well-behaved client does;
 * the answer counted is the last one.
 * --trace FILE: the server appends its event-loop gaps over 200 ms and, each second, its open
 * handles, CPU and RSS to FILE (bench/trace-loop.mjs); the report then lists the slowest probes
 * with the time they were sent (ms since the server started), to line the two up.
 * --route table posts /table/create with ~1 KiB rows; --route calls posts /call/upsert_batch
 * with ~1 KiB calls. The body is built once and sent N times (it is just under 32 MiB, the
 * default --max-body-bytes). Extra flags after `--` go to `tq serve` (e.g.
 * `-- --max-body-bytes-in-flight 64MiB`). Linux only (reads /proc/PID/status).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, readFileSync } from 'node:fs';
import { request, Agent } from 'node:http';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const { values, positionals } = parseArgs({
  options: {
    uploads: { type: 'string', default: '120' },
    mib: { type: 'string', default: '32' },
    route: { type: 'string', default: 'table' },
    heap: { type: 'string', default: '8192' },
    retry: { type: 'boolean', default: false },
    trace: { type: 'string' },
  },
  allowPositionals: true,
});
const UPLOADS = Number(values.uploads);
const BODY_BYTES = Number(values.mib) * 1024 * 1024 - 1024;
const PASSWORD = 'bench-pw';
const AUTH = 'Basic ' + Buffer.from(`api:${PASSWORD}`).toString('base64');

/** A valid body of just under BODY_BYTES: ~1 KiB items, each different (digests differ). */
function uploadBody(route: string): { path: string; body: Buffer } {
  const filler = 'x'.repeat(900);
  const items: string[] = [];
  const head = route === 'calls' ? '{"batch":[' : '{"table":{"project_id":"bench/uploads","rows":[';
  const tail = route === 'calls' ? ']}' : ']}}';
  let size = head.length + tail.length;
  for (let i = 0; ; i++) {
    const item =
      route === 'calls'
        ? JSON.stringify({ mode: 'start', req: { start: { project_id: 'bench/uploads', id: `c${i}`, trace_id: `t${i % 100}`, op_name: 'op', started_at: '2026-01-01T00:00:00Z', attributes: {}, inputs: { i, text: filler } } } })
        : JSON.stringify({ i, text: filler });
    if (size + item.length + 1 > BODY_BYTES) break;
    items.push(item);
    size += item.length + 1;
  }
  return { path: route === 'calls' ? '/call/upsert_batch' : '/table/create', body: Buffer.from(head + items.join(',') + tail) };
}

let serverStartedAt = 0;

function startServer(extra: string[]): Promise<{ child: ChildProcess; port: number }> {
  const bin = fileURLToPath(new URL('../bin/tq', import.meta.url));
  const trace = values.trace ? [`--import=${fileURLToPath(new URL('./trace-loop.mjs', import.meta.url))}`] : [];
  serverStartedAt = Date.now();
  // `-- --log json` logs every request (with the trace: to FILE.log): --quiet would refuse it.
  const quiet = extra.includes('--log') ? [] : ['--quiet'];
  const child = spawn(process.execPath, [`--max-old-space-size=${values.heap}`, ...trace, bin, 'serve', '--port', '0', ...quiet, '--user', 'api', '--password', PASSWORD, ...extra], {
    env: { ...process.env, TQ_FROM_SOURCE: '1', TQ_HEAP_SIZED: '1', ...(values.trace ? { TQ_TRACE_FILE: values.trace, TQ_TRACE_ORIGIN: String(serverStartedAt) } : {}) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let err = '';
    child.stderr!.on('data', (d: Buffer) => {
      if (values.trace) appendFileSync(`${values.trace}.log`, d);
      if (err.length > 4096) return;
      err += d.toString();
      const m = /http:\/\/127\.0\.0\.1:(\d+)/.exec(err);
      if (m) resolve({ child, port: Number(m[1]) });
    });
    child.on('exit', (code) => reject(new Error(`tq serve exited ${code}: ${err}`)));
  });
}

function statusKb(pid: number, field: string): number {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) : NaN;
}

/**
 * A refused upload whose connection the server closes while the body is still being sent may
 * reach its client as EPIPE or ECONNRESET instead of the 503: a retrying client retries those too.
 */
const RETRIED = /^(503 |error EPIPE|error ECONNRESET)/;

async function postRetrying(port: number, agent: Agent, path: string, body: Buffer, retries: { n: number; resets: number }): Promise<string> {
  for (;;) {
    const answer = await post(port, agent, path, body);
    if (!values.retry || !RETRIED.test(answer)) return answer;
    retries.n++;
    if (answer.startsWith('error')) retries.resets++;
    await new Promise((r) => setTimeout(r, 1000));
  }
}

function post(port: number, agent: Agent, path: string, body: Buffer): Promise<string> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, method: 'POST', path, agent, headers: { Authorization: AUTH, 'Content-Type': 'application/json', 'Content-Length': body.length } }, (res) => {
      let text = '';
      res.on('data', (d: Buffer) => (text.length < 200 ? (text += d.toString()) : undefined));
      res.on('end', () => resolve(res.statusCode === 200 ? '200' : `${res.statusCode} ${text.slice(0, 120)}`));
      res.on('error', (e) => resolve(`error ${e.message}`));
    });
    req.on('error', (e) => resolve(`error ${(e as NodeJS.ErrnoException).code ?? e.message}`));
    req.end(body);
  });
}

/**
 * The /health probe, in a process of its own (in this one, sending 120 bodies would delay the
 * probe's own timing): one request after another, 20 ms apart, until stdin closes; then it
 * prints the latencies (ms) as a JSON array.
 */
const PROBE = `
const { request } = require('node:http');
const port = Number(process.argv[1]);
const latencies = [];
let done = false;
process.stdin.on('end', () => (done = true)).resume();
const sentAt = [];
const connectMs = [];
const health = () => new Promise((resolve) => {
  const t0 = performance.now();
  sentAt.push(Math.round(performance.timeOrigin + t0));
  const i = connectMs.push(-1) - 1;
  const req = request({ host: '127.0.0.1', port, path: '/health', agent: false }, (res) => {
    res.resume();
    res.on('end', () => resolve(performance.now() - t0));
  });
  // When the TCP connection was up: a slow probe is slow in the kernel's accept or in the server.
  req.on('socket', (s) => s.once('connect', () => (connectMs[i] = Math.round(performance.now() - t0))));
  req.on('error', () => resolve(performance.now() - t0));
  req.end();
});
(async () => {
  while (!done) {
    latencies.push(await health());
    await new Promise((r) => setTimeout(r, 20));
  }
  process.stdout.write(JSON.stringify({ latencies, sentAt, connectMs }));
})();
`;

function startProbe(port: number): { stop: () => Promise<{ latencies: number[]; sentAt: number[]; connectMs: number[] }> } {
  const child = spawn(process.execPath, ['-e', PROBE, String(port)], { stdio: ['pipe', 'pipe', 'inherit'] });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d));
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  return {
    stop: async () => {
      child.stdin!.end();
      await exited;
      return JSON.parse(out) as { latencies: number[]; sentAt: number[]; connectMs: number[] };
    },
  };
}

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];

async function main(): Promise<void> {
  const { path, body } = uploadBody(values.route!);
  const { child, port } = await startServer(positionals);
  const pid = child.pid!;
  const rssAtStart = statusKb(pid, 'VmRSS');
  const agent = new Agent({ keepAlive: false, maxSockets: Infinity });
  const started = performance.now();
  const probe = startProbe(port);
  const retries = { n: 0, resets: 0 };
  const answers = await Promise.all(Array.from({ length: UPLOADS }, () => postRetrying(port, agent, path, body, retries)));
  const wallS = (performance.now() - started) / 1000;
  const probed = await probe.stop();
  const latencies = probed.latencies.slice();
  const slowest = probed.latencies
    .map((ms, i) => ({ sent_ms: probed.sentAt[i] - serverStartedAt, ms: Math.round(ms), connected_after_ms: probed.connectMs[i] }))
    .sort((a, b) => b.ms - a.ms)
    .slice(0, 5);
  const peakRssMb = statusKb(pid, 'VmHWM') / 1024;
  child.kill('SIGTERM');
  const counts: Record<string, number> = {};
  for (const a of answers) counts[a] = (counts[a] ?? 0) + 1;
  latencies.sort((a, b) => a - b);
  if (latencies.length === 0) latencies.push(NaN);
  const report = {
    uploads: UPLOADS,
    route: path,
    body_mib: +(body.length / 2 ** 20).toFixed(2),
    serve_flags: positionals.join(' '),
    wall_s: +wallS.toFixed(1),
    rss_at_start_mb: +(rssAtStart / 1024).toFixed(0),
    peak_rss_mb: +peakRssMb.toFixed(0),
    health_probes: latencies.length,
    health_p50_ms: +quantile(latencies, 0.5).toFixed(1),
    health_p99_ms: +quantile(latencies, 0.99).toFixed(1),
    health_max_ms: +latencies[latencies.length - 1].toFixed(1),
    answers: counts,
    retries_after_503: retries.n - retries.resets,
    retries_after_reset: retries.resets,
    ...(values.trace ? { slowest_probes: slowest } : {}),
  };
  console.log(JSON.stringify(report, null, 2));
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
