/**
 * A large write prepared off the event loop (src/server/off-loop.ts) and small writes that
 * arrive while it is prepared: the small ones are acknowledged first, and the journal holds
 * the writes in the order the store took them, so a restart rebuilds the same store.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { answers, durableServer, send } from './journal.testing.ts';
import { tempDir } from '../io/temp-dir.testing.ts';

const P = 'acme/one';

test('small writes acknowledged during a large prepared write replay to the same store', async () => {
  const dir = tempDir('tq-offloop-');
  let server = await durableServer(dir);
  try {
    // About 4 MiB of rows, the first few also written by the small writes below.
    const rows = Array.from({ length: 4000 }, (_, i) => ({ i: i % 2000, text: 'y'.repeat(1000) }));
    const big = send(server.url, { path: '/table/create', body: { table: { project_id: P, rows } } }).then((r) => ({ ...r, at: performance.now() }));
    const small: Array<Promise<{ status: number; text: string; at: number }>> = [];
    for (let i = 0; i < 5; i++) {
      small.push(send(server.url, { path: '/table/create', body: { table: { project_id: P, rows: [rows[i], { small: i }] } } }).then((r) => ({ ...r, at: performance.now() })));
      small.push(send(server.url, { path: '/obj/create', body: { obj: { project_id: P, object_id: 'o', val: { i } } } }).then((r) => ({ ...r, at: performance.now() })));
      await new Promise((r) => setTimeout(r, 5));
    }
    const bigAnswer = await big;
    const smallAnswers = await Promise.all(small);
    assert.equal(bigAnswer.status, 200, bigAnswer.text.slice(0, 200));
    for (const a of smallAnswers) assert.equal(a.status, 200, a.text);
    assert.ok(smallAnswers.some((a) => a.at < bigAnswer.at), 'a small write was acknowledged while the large one was prepared');
    const before = answers(server.engine);
    await server.close();
    server = await durableServer(dir);
    assert.equal(answers(server.engine), before);
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
