/**
 * HTTP stream throughput: `tq serve`'s server (createTqServer) on a free local port, one
 * `/calls/stream_query` request for `calls` calls, bytes and lines counted as they arrive. The
 * client runs in a child process, as a real client would (in the server's process it would
 * share its event loop and its core): each request is timed there, from sending it to the
 * last byte.
 */
import { spawn } from 'node:child_process';
import type { Engine, Route } from '../src/api/types.ts';
import { median, round } from './stats.ts';

export interface HttpResult {
  calls: number;
  bytes: number;
  lines: number;
  median_ms: number;
  mb_per_s: number;
  runs: number;
}

const USER = 'bench';
const PASSWORD = 'bench-password';

/**
 * The client: `runs` requests one after another, each timed from sending to the last byte;
 * prints one JSON object per request. Plain JavaScript, run by `node -e`.
 */
const CLIENT = `
const { request } = require('node:http');
const [port, body, auth, runs] = process.argv.slice(1);
function fetchStream() {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const req = request({ host: '127.0.0.1', port: Number(port), method: 'POST', path: '/calls/stream_query',
      headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body), Authorization: auth } }, (res) => {
      let bytes = 0, lines = 0;
      res.on('data', (chunk) => {
        bytes += chunk.length;
        for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, i + 1)) lines++;
      });
      res.on('end', () => resolve({ ms: performance.now() - t0, bytes, lines, status: res.statusCode }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}
(async () => { for (let i = 0; i < Number(runs); i++) console.log(JSON.stringify(await fetchStream())); })().catch((e) => { console.error(e.message); process.exit(1); });
`;

interface Fetched {
  ms: number;
  bytes: number;
  lines: number;
  status: number;
}

/** Runs the client in a child process for `runs` requests (the server answers meanwhile). */
function fetchStreams(port: number, body: string, runs: number): Promise<Fetched[]> {
  return new Promise((resolve, reject) => {
    const auth = 'Basic ' + Buffer.from(`${USER}:${PASSWORD}`).toString('base64');
    const child = spawn(process.execPath, ['-e', CLIENT, String(port), body, auth, String(runs)], { stdio: ['ignore', 'pipe', 'pipe'] });
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

/**
 * Streams `calls` calls (default order) `runs` times after one warm-up. The server module is
 * imported here, so a missing or broken server is an error the caller reports as "n/a".
 */
export async function measureHttp(engine: Engine, routes: readonly Route[], projectId: string, calls: number, runs: number): Promise<HttpResult> {
  const { createTqServer } = await import('../src/server/server.ts');
  const { Users } = await import('../src/server/basic-auth.ts');
  const server = createTqServer({ engine, routes, users: new Users([{ name: USER, password: PASSWORD, projects: ['*'] }]) });
  const { port } = await server.listen('127.0.0.1', 0);
  try {
    const body = JSON.stringify({ project_id: projectId, limit: calls });
    // One warm-up request, then the measured ones.
    const [first, ...measured] = await fetchStreams(port, body, runs + 1);
    if (first.status !== 200) throw new Error(`HTTP ${first.status} from /calls/stream_query`);
    if (first.lines !== calls) throw new Error(`expected ${calls} lines over HTTP, got ${first.lines}`);
    for (const r of measured) if (r.status !== 200 || r.bytes !== first.bytes) throw new Error(`HTTP ${r.status}, ${r.bytes} bytes (first: ${first.bytes})`);
    const ms = median(measured.map((r) => r.ms));
    const bytes = first.bytes;
    return { calls, bytes, lines: first.lines, median_ms: round(ms), mb_per_s: round(bytes / 1e6 / (ms / 1000), 1), runs };
  } finally {
    await server.close();
  }
}
