/**
 * HTTP stream throughput: `tq serve`'s server (createTqServer) on a free local port, one
 * `/calls/stream_query` request for `calls` calls, bytes and lines counted as they arrive,
 * against its ceiling: a plain node:http server in the same process answering the same request
 * with the same bytes, prebuilt (64 KiB buffers written with backpressure, chunked as tq's
 * stream is). The client runs in a child process, as a real client would (in the server's
 * process it would share its event loop and its core), and alternates between the two servers
 * request by request; each request is timed there, from sending it to the last byte.
 */
import { spawn } from 'node:child_process';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Engine, Route } from '../src/api/types.ts';
import { median, round } from './stats.ts';

export interface HttpResult {
  calls: number;
  bytes: number;
  lines: number;
  median_ms: number;
  mb_per_s: number;
  runs: number;
  /** The plain node:http server writing the same bytes prebuilt (interleaved with tq's runs). */
  ceiling: { median_ms: number; mb_per_s: number };
  /** tq's throughput over the ceiling's (goal: >= 0.6). */
  tq_over_ceiling: number;
  /**
   * The server process's CPU ms per request (median; all its threads, from the request to the
   * response's end), tq's and the ceiling's: what the wall ratio would be with a core to
   * spare. On a loaded machine the wall times wait for a core; these do not.
   */
  cpu_ms: { tq: number; ceiling: number };
}

const USER = 'bench';
const PASSWORD = 'bench-password';
/** The ceiling's buffer size: what a server streaming prebuilt data would write at a time. */
const CEILING_CHUNK = 64 * 1024;

/**
 * The client: `runs` rounds, each one request to every port in turn (timed from sending it to
 * the last byte); prints one JSON object per request. Plain JavaScript, run by `node -e`.
 */
const CLIENT = `
const { request } = require('node:http');
const [ports, body, auth, runs] = process.argv.slice(1);
function fetchStream(port) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const req = request({ host: '127.0.0.1', port: Number(port), method: 'POST', path: '/calls/stream_query',
      headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body), Authorization: auth } }, (res) => {
      let bytes = 0, lines = 0;
      res.on('data', (chunk) => {
        bytes += chunk.length;
        for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, i + 1)) lines++;
      });
      res.on('end', () => resolve({ port: Number(port), ms: performance.now() - t0, bytes, lines, status: res.statusCode }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}
(async () => {
  for (let i = 0; i < Number(runs); i++) for (const port of ports.split(',')) console.log(JSON.stringify(await fetchStream(port)));
})().catch((e) => { console.error(e.message); process.exit(1); });
`;

interface Fetched {
  port: number;
  ms: number;
  bytes: number;
  lines: number;
  status: number;
}

/** Runs the client in a child process for `runs` rounds over `ports` (the servers answer meanwhile). */
function fetchStreams(ports: readonly number[], body: string, runs: number): Promise<Fetched[]> {
  return new Promise((resolve, reject) => {
    const auth = 'Basic ' + Buffer.from(`${USER}:${PASSWORD}`).toString('base64');
    const child = spawn(process.execPath, ['-e', CLIENT, ports.join(','), body, auth, String(runs)], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '', err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) reject(new Error(`HTTP client exited with ${code}: ${err.trim()}`));
      else resolve(out.trim().split('\n').map((l) => JSON.parse(l) as Fetched));
    });
  });
}

/** Records the process CPU ms of each request `server` answers, from its arrival to the response's end. */
function cpuPerRequest(server: Server): number[] {
  const samples: number[] = [];
  server.prependListener('request', (_req, res: ServerResponse) => {
    const c0 = process.cpuUsage();
    res.once('finish', () => {
      const c = process.cpuUsage(c0);
      samples.push((c.user + c.system) / 1000);
    });
  });
  return samples;
}

/** Writes `buffers` with backpressure (write until refused, then wait for 'drain'), then ends. */
function writeBuffers(res: ServerResponse, buffers: readonly Buffer[]): void {
  let i = 0;
  const more = () => {
    while (i < buffers.length) if (!res.write(buffers[i++])) return void res.once('drain', more);
    res.end();
  };
  more();
}

/** The ceiling server: answers every request with `body` as prebuilt CEILING_CHUNK buffers. */
async function ceilingServer(body: Buffer): Promise<{ server: Server; port: number }> {
  const buffers: Buffer[] = [];
  for (let at = 0; at < body.length; at += CEILING_CHUNK) buffers.push(Buffer.from(body.subarray(at, at + CEILING_CHUNK)));
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'Content-Type': 'application/jsonl' });
      writeBuffers(res, buffers);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

/** The bytes tq sends for `body` (the route's chunks, joined), for the ceiling server. */
function renderedBody(engine: Engine, routes: readonly Route[], body: Record<string, unknown>): Buffer {
  const route = routes.find((r) => r.path === '/calls/stream_query');
  if (!route) throw new Error('route /calls/stream_query not available');
  const res = route.run(engine, { kind: 'value', value: structuredClone(body) }, { userId: USER, authorize() {}, canRead: () => true });
  if (res.kind !== 'stream') throw new Error(`/calls/stream_query answered ${res.kind}, not a stream`);
  return Buffer.concat([...res.chunks]);
}

/**
 * Streams `calls` calls (default order) `runs` times after one warm-up, each run followed by
 * one of the ceiling server. The server module is imported here, so a missing or broken
 * server is an error the caller reports as "n/a".
 */
export async function measureHttp(engine: Engine, routes: readonly Route[], projectId: string, calls: number, runs: number): Promise<HttpResult> {
  const { createTqServer } = await import('../src/server/server.ts');
  const { Users } = await import('../src/server/basic-auth.ts');
  const request = { project_id: projectId, limit: calls };
  const ceiling = await ceilingServer(renderedBody(engine, routes, request));
  const server = createTqServer({ engine, routes, users: new Users([{ name: USER, password: PASSWORD, projects: ['*'] }]) });
  const { port } = await server.listen('127.0.0.1', 0);
  const tqCpu = cpuPerRequest(server.server), ceilingCpu = cpuPerRequest(ceiling.server);
  try {
    // One warm-up round, then the measured ones.
    const fetched = await fetchStreams([port, ceiling.port], JSON.stringify(request), runs + 1);
    const tq = fetched.filter((r) => r.port === port);
    const plain = fetched.filter((r) => r.port === ceiling.port);
    const [first, ...measured] = tq;
    if (first.status !== 200) throw new Error(`HTTP ${first.status} from /calls/stream_query`);
    if (first.lines !== calls) throw new Error(`expected ${calls} lines over HTTP, got ${first.lines}`);
    for (const r of fetched) if (r.status !== 200 || r.bytes !== first.bytes) throw new Error(`HTTP ${r.status}, ${r.bytes} bytes from port ${r.port} (first: ${first.bytes})`);
    const ms = median(measured.map((r) => r.ms));
    const ceilingMs = median(plain.slice(1).map((r) => r.ms));
    const bytes = first.bytes;
    return {
      calls,
      bytes,
      lines: first.lines,
      median_ms: round(ms),
      mb_per_s: round(bytes / 1e6 / (ms / 1000), 1),
      runs,
      ceiling: { median_ms: round(ceilingMs), mb_per_s: round(bytes / 1e6 / (ceilingMs / 1000), 1) },
      tq_over_ceiling: round(ceilingMs / ms, 3),
      cpu_ms: { tq: round(median(tqCpu.slice(1))), ceiling: round(median(ceilingCpu.slice(1))) },
    };
  } finally {
    await server.close();
    await new Promise((resolve) => ceiling.server.close(resolve));
  }
}
