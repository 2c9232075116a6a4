/**
 * The two halves of the feedback creates (prepared-feedback.ts): the payloads stored are the
 * values the request spelled (semantics.md#writes-number-spelling), number by number, read back
 * from their texts; the answer's value and text agree; a refused write draws nothing.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runRoute } from '../api/run-route.ts';
import { spelledBody } from '../api/body.ts';
import { TqError } from '../core/errors.ts';
import { stringifyExact } from '../core/json/exact.ts';
import { LosslessNumber } from '../core/json/lossless.ts';
import { createEngine } from '../engine.ts';
import { findRoute } from '../routes.ts';
import { createFeedback, type FeedbackInput } from './feedback.ts';

const P = 'acme/fb';
const PAYLOAD = '{"9":1.0,"text":"x","f":1.0,"e":1E2,"inf":1e400,"nan":NaN,"zero":-0,"zf":-0.0,"big":12345678901234567890123,"list":[1,1.0,[0.5,-12345678901234567890]],"nested":{"deep":{"x":1e-5}},"__proto__":{"y":2.50}}';
const BATCH = `{"batch":[{"project_id":"${P}","weave_ref":"weave:///${P}/call/c1","feedback_type":"score","payload":${PAYLOAD}},{"project_id":"${P}","weave_ref":"weave:///${P}/call/c2","feedback_type":"wandb.reaction.1","payload":{"emoji":"👍🏽","n":1.0}},{"project_id":"${P}","weave_ref":"weave:///${P}/call/c3","feedback_type":"plain","payload":{"a":0.5}}]}`;
const ctx = (userId = 'bob') => ({ userId, authorize() {}, canRead: () => true });

function countingEngine() {
  let draws = 0;
  const engine = createEngine(undefined, { newId: () => `id-${++draws}`, now: () => 1_700_000_000_000_000 + ++draws });
  return { engine, draws: () => draws };
}

test('stored payloads are the spelled values, number by number, as a direct create stores them', () => {
  const { engine } = countingEngine();
  const r = runRoute(findRoute('/feedback/batch/create')!, engine, { kind: 'text', text: BATCH }, ctx());
  const direct = countingEngine().engine;
  for (const item of (spelledBody({ kind: 'text', text: BATCH }) as { batch: FeedbackInput[] }).batch) createFeedback(direct, item, 'bob');
  const stored = engine.store.project(P)!.feedback;
  assert.deepStrictEqual(stored.map((f) => f.payload), direct.store.project(P)!.feedback.map((f) => f.payload));
  const p = stored[0].payload as Record<string, unknown> & { list: unknown[]; nested: { deep: { x: unknown } } };
  assert.deepStrictEqual([p.f, p.e, p.inf, p.nan, p.zf, p.big], ['1.0', '100.0', 'Infinity', 'NaN', '-0.0', '12345678901234567890123'].map((l) => new LosslessNumber(l)));
  assert.ok(Object.is(p.zero, -0));
  // A float of a body that keeps no spelling natively stays a LosslessNumber, whatever its spelling.
  assert.deepStrictEqual(p.list, [1, new LosslessNumber('1.0'), [new LosslessNumber('0.5'), new LosslessNumber('-12345678901234567890')]]);
  assert.deepStrictEqual(p.nested.deep.x, new LosslessNumber('1e-05'));
  assert.ok(Object.prototype.hasOwnProperty.call(p, '__proto__'));
  assert.deepStrictEqual(Object.getOwnPropertyDescriptor(p, '__proto__')!.value, { y: new LosslessNumber('2.5') });
  assert.deepStrictEqual(Object.keys(p), ['9', 'text', 'f', 'e', 'inf', 'nan', 'zero', 'zf', 'big', 'list', 'nested', '__proto__']);
  // The answer's value (a library caller reads it) writes to the answer's text.
  assert.equal(r.kind, 'json');
  if (r.kind !== 'json') return;
  assert.equal(stringifyExact(r.body), r.text);
  assert.match(r.text!, /"payload":\{"9":1\.0,"text":"x","f":1\.0,"e":100\.0,"inf":null,"nan":null,"zero":0,"zf":-0\.0,"big":12345678901234567890123,/);
  assert.match(r.text!, /"payload":\{"emoji":"👍🏽","n":1\.0,"alias":":thumbs_up_medium_skin_tone:","detoned":"👍","detoned_alias":":thumbs_up:"\}/);
});

test('/feedback/create answers one object, its value and text agreeing', () => {
  const { engine } = countingEngine();
  const r = runRoute(findRoute('/feedback/create')!, engine, { kind: 'text', text: `{"project_id":"${P}","weave_ref":"w","feedback_type":"score","svc_user_id":"carol","payload":${PAYLOAD}}` }, ctx());
  assert.equal(r.kind, 'json');
  if (r.kind !== 'json') return;
  assert.equal(stringifyExact(r.body), r.text);
  assert.deepEqual(Object.keys(r.body as object), ['id', 'created_at', 'svc_user_id', 'payload']);
  assert.match(r.text!, /^\{"id":"id-1","created_at":"2023-11-14T22:13:20\.000002Z","svc_user_id":"carol","payload":\{"9":1\.0,/);
});

/** The status and reason of a refused write, and what it drew and stored. */
function refused(text: string, userId: string): [number, string, number, boolean] {
  const { engine, draws } = countingEngine();
  try {
    runRoute(findRoute('/feedback/batch/create')!, engine, { kind: 'text', text }, ctx(userId));
  } catch (e) {
    assert.ok(e instanceof TqError);
    return [e.status, e.message, draws(), engine.store.project(P) !== undefined];
  }
  assert.fail('not refused');
}

test('a refused batch draws nothing and stores nothing; the first item that fails decides the reason', () => {
  const ok = (i: number) => `{"project_id":"${P}","weave_ref":"weave:///${P}/call/c${i}","feedback_type":"plain","payload":{}}`;
  const noEmoji = `{"project_id":"${P}","weave_ref":"w","feedback_type":"wandb.reaction.1","payload":{"emoji":"x"}}`;
  const withUser = `{"project_id":"${P}","weave_ref":"w","feedback_type":"plain","svc_user_id":"carol","payload":{}}`;
  const emojiReason = 'Value of emoji key in payload must be exactly one emoji';
  // No user for the first item (the caller has none either) comes before the second's refusal...
  assert.deepEqual(refused(`{"batch":[${ok(1)},${noEmoji}]}`, ''), [400, 'wb_user_id cannot be None', 0, false]);
  // ...and after the refusal of an item before it; an item naming its user needs none.
  assert.deepEqual(refused(`{"batch":[${withUser},${noEmoji},${ok(2)}]}`, ''), [400, emojiReason, 0, false]);
  assert.deepEqual(refused(`{"batch":[${ok(1)},${ok(2)},${noEmoji}]}`, 'bob'), [400, emojiReason, 0, false]);
});
