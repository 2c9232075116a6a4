/**
 * Backpressure of stream answers over HTTP: a reader that stops reading holds the server's
 * stream where the socket buffers fill (the route's chunks are pulled only as the socket takes
 * them), and everything arrives once it reads again.
 */
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { test } from 'node:test';
import { byteStream } from '../api/line-stream.ts';
import type { Route } from '../api/types.ts';
import { createEngine } from '../engine.ts';
import { Users } from './basic-auth.ts';
import { createTqServer } from './server.ts';

const CHUNK = 64 * 1024;
const CHUNKS = 2048; // 128 MiB in all: far more than loopback's socket buffers hold
const AUTH = 'Basic ' + Buffer.from('u:p').toString('base64');

/** One chunk of 64 lines of 1 KiB (1023 bytes and a newline), sent again and again. */
function lines(): Uint8Array {
  const chunk = new Uint8Array(CHUNK).fill(0x78);
  for (let i = 1023; i < CHUNK; i += 1024) chunk[i] = 0x0a;
  return chunk;
}

test('a reader that stops holds the stream: chunks are pulled only as the socket takes them', async () => {
  let pulled = 0;
  const chunk = lines();
  const flood: Route = {
    path: '/test/flood',
    method: 'GET',
    body: 'none',
    run: () =>
      byteStream(
        (function* () {
          for (let i = 0; i < CHUNKS; i++) {
            pulled += chunk.length;
            yield chunk;
          }
        })(),
      ),
  };
  const tq = createTqServer({ engine: createEngine(), routes: [flood], users: new Users([{ name: 'u', password: 'p', projects: ['*'] }]) });
  const { port } = await tq.listen('127.0.0.1', 0);
  try {
    const outcome = await new Promise<{ pulledWhileStopped: number; bytes: number; newlines: number; complete: boolean }>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, path: '/test/flood', headers: { authorization: AUTH } }, (res) => {
        let bytes = 0, newlines = 0, pulledWhileStopped = -1;
        res.on('data', (data: Buffer) => {
          if (pulledWhileStopped < 0) {
            // Stop reading for a while: the server must stop pulling once the buffers are full.
            res.pause();
            setTimeout(() => {
              pulledWhileStopped = pulled;
              res.resume();
            }, 700);
          }
          bytes += data.length;
          for (let i = data.indexOf(10); i !== -1; i = data.indexOf(10, i + 1)) newlines++;
        });
        res.on('end', () => resolve({ pulledWhileStopped, bytes, newlines, complete: res.complete }));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end();
    });
    const total = CHUNK * CHUNKS;
    assert.ok(outcome.pulledWhileStopped > 0 && outcome.pulledWhileStopped < 32 * 1024 * 1024, `${outcome.pulledWhileStopped} bytes pulled while the reader had stopped (of ${total})`);
    assert.equal(outcome.complete, true);
    assert.equal(outcome.bytes, total);
    assert.equal(outcome.newlines, total / 1024);
    assert.equal(pulled, total);
  } finally {
    await tq.close();
  }
});
