/**
 * semantics.md#feedback-reactions: a reaction whose emoji text is megabytes long is refused at
 * once, over HTTP, and the server keeps answering meanwhile (Intl.Segmenter over such a text
 * once held the event loop for tens of seconds).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createEngine } from '../../engine.ts';
import { postJson, startDemoServer } from '../../server/serving.testing.ts';

const reaction = (emoji: string) => ({ project_id: 'e/p', weave_ref: 'weave:///e/p/call/c1', feedback_type: 'wandb.reaction.1', payload: { emoji } });

test('a 10 MB emoji text is a 400 within a second or two, and /health answers while it is handled', async () => {
  const { srv, base } = await startDemoServer({ engine: createEngine() });
  try {
    const started = performance.now();
    const pending = postJson(base, '/feedback/create', reaction('x'.repeat(10 * 1024 * 1024)));
    const health = await fetch(base + '/health');
    assert.equal(health.status, 200);
    const res = await pending;
    assert.equal(res.status, 400);
    assert.deepEqual(await res.json(), { reason: 'Feedback payload too large' });
    assert.ok(performance.now() - started < 5000, `answered in ${Math.round(performance.now() - started)} ms`);
    // Just under the bound, a text without emoji is scanned and refused as production refuses it.
    const near = await postJson(base, '/feedback/create', reaction('x'.repeat(1024 * 1024)));
    assert.deepEqual([near.status, await near.json()], [400, { reason: 'Value of emoji key in payload must be exactly one emoji' }]);
    const one = await postJson(base, '/feedback/create', reaction('x'.repeat(100_000) + '👍'));
    assert.equal(one.status, 200);
    assert.equal(((await one.json()) as { payload: { detoned_alias: string } }).payload.detoned_alias, 'x'.repeat(100_000) + ':thumbs_up:');
  } finally {
    await srv.close();
  }
});
