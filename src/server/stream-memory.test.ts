/**
 * A 100k-call stream read slowly: the server writes only as fast as the client reads, so its
 * memory grows by far less than the stream's size (issue "tq serve", backpressure).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { allRoutes } from '../routes.ts';
import { createEngine } from '../engine.ts';
import { generateCalls } from '../gen/generate.ts';
import { parseCallRecord } from '../load/calls/call-record.ts';
import { Users } from './basic-auth.ts';
import { createTqServer } from './server.ts';

const CALLS = 100_000;

test('a slowly read 100k-call stream does not grow server RSS by the stream size', { timeout: 180_000 }, async (t) => {
  const engine = createEngine();
  for (const line of generateCalls({ calls: CALLS, seed: 3, projectId: 'mem/stream' })) {
    const buf = Buffer.from(line);
    const { projectId, record } = parseCallRecord(JSON.parse(line), 'svc_');
    engine.store.projectForWrite(projectId).calls.load(record, buf, 0, buf.length);
  }
  const tq = createTqServer({ engine, routes: allRoutes(), users: new Users([{ name: 'u', password: 'p', projects: ['*'] }]) });
  const { port } = await tq.listen('127.0.0.1', 0);
  (globalThis as { gc?: () => void }).gc?.();
  const baseline = process.memoryUsage().rss;
  let peak = baseline;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);

  const body = JSON.stringify({ project_id: 'mem/stream' });
  const { bytes, lines } = await new Promise<{ bytes: number; lines: number }>((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path: '/calls/stream_query', method: 'POST', auth: 'u:p', headers: { 'content-type': 'application/json' } },
      (res) => {
        let bytes = 0, lines = 0, chunks = 0;
        res.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
          for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
          // Slow reader: a pause after every 64 chunks.
          if (++chunks % 64 === 0) {
            res.pause();
            setTimeout(() => res.resume(), 25);
          }
        });
        res.on('end', () => resolve({ bytes, lines }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
  clearInterval(sampler);
  await tq.close();

  assert.equal(lines, CALLS);
  const growth = peak - baseline;
  t.diagnostic(`streamed ${(bytes / 1e6).toFixed(1)} MB; peak RSS growth ${(growth / 1e6).toFixed(1)} MB`);
  assert.ok(growth < bytes / 2, `RSS grew ${(growth / 1e6).toFixed(1)} MB while streaming ${(bytes / 1e6).toFixed(1)} MB`);
});
