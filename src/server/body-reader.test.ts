/**
 * readBody (body-reader.ts): a body of `sharedFrom` bytes or more arrives in memory a
 * SharedArrayBuffer holds (the off-loop worker is handed it without a copy), whether its length
 * was declared or it came chunked; a smaller one, or one not to be shared, as before.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BodyBudget } from './body-budget.ts';
import { readBody } from './body-reader.ts';

/** Sends `body` (declared, or chunked in `chunks` pieces) and returns what readBody gave the server. */
async function received(body: Buffer, sharedFrom: number | undefined, chunks?: number): Promise<Buffer> {
  let got: Buffer | undefined;
  const srv = createServer((req, res) => {
    const budget = new BodyBudget(1 << 30);
    void readBody(req, 1 << 26, budget, budget.reserve(), undefined, sharedFrom).then((bytes) => {
      got = bytes;
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const { port } = srv.address() as AddressInfo;
  await new Promise<void>((resolve, reject) => {
    const headers = chunks === undefined ? { 'Content-Length': body.length } : { 'Transfer-Encoding': 'chunked' };
    const req = request({ host: '127.0.0.1', port, method: 'POST', path: '/', headers }, (res) => {
      res.resume();
      res.on('end', resolve);
    });
    req.on('error', reject);
    if (chunks === undefined) req.end(body);
    else {
      const size = Math.ceil(body.length / chunks);
      for (let at = 0; at < body.length; at += size) req.write(body.subarray(at, at + size));
      req.end();
    }
  });
  await new Promise((resolve) => srv.close(resolve));
  return got!;
}

test('a body from `sharedFrom` bytes on is read into shared memory, declared or chunked; others are not', async () => {
  const body = Buffer.alloc(3 * 65_536 + 17);
  for (let i = 0; i < body.length; i++) body[i] = (i * 31) & 0xff;
  for (const chunks of [undefined, 7]) {
    const shared = await received(body, 100_000, chunks);
    assert.ok(shared.buffer instanceof SharedArrayBuffer, `chunks: ${chunks}`);
    assert.equal(shared.byteLength, body.length);
    assert.ok(shared.equals(body));
    const small = await received(body, body.length + 1, chunks);
    assert.ok(!(small.buffer instanceof SharedArrayBuffer));
    assert.ok(small.equals(body));
    const notShared = await received(body, undefined, chunks);
    assert.ok(!(notShared.buffer instanceof SharedArrayBuffer));
    assert.ok(notShared.equals(body));
  }
});
