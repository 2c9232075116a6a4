/**
 * HTTP stream throughput: `tq serve`'s server (createTqServer) on a free local port, one
 * `/calls/stream_query` request for `calls` calls, bytes counted as they arrive. The client runs
 * in the same process (and so shares the event loop with the server): the figure is a lower
 * bound on what a separate client would see.
 */
import { request } from 'node:http';
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

function fetchStream(port: number, body: string): Promise<{ ms: number; bytes: number; lines: number; status: number }> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/calls/stream_query',
        headers: {
          'Content-Type': 'application/json',
          'Content-Length': Buffer.byteLength(body),
          Authorization: 'Basic ' + Buffer.from(`${USER}:${PASSWORD}`).toString('base64'),
        },
      },
      (res) => {
        let bytes = 0;
        let lines = 0;
        res.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
          for (let i = chunk.indexOf(0x0a); i >= 0; i = chunk.indexOf(0x0a, i + 1)) lines++;
        });
        res.on('end', () => resolve({ ms: performance.now() - t0, bytes, lines, status: res.statusCode ?? 0 }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
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
    const first = await fetchStream(port, body);
    if (first.status !== 200) throw new Error(`HTTP ${first.status} from /calls/stream_query`);
    if (first.lines !== calls) throw new Error(`expected ${calls} lines over HTTP, got ${first.lines}`);
    const samples: number[] = [];
    let bytes = first.bytes;
    for (let i = 0; i < runs; i++) {
      const r = await fetchStream(port, body);
      samples.push(r.ms);
      bytes = r.bytes;
    }
    const ms = median(samples);
    return { calls, bytes, lines: first.lines, median_ms: round(ms), mb_per_s: round(bytes / 1e6 / (ms / 1000), 1), runs };
  } finally {
    await server.close();
  }
}
