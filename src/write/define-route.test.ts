import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runRoute } from '../api/run-route.ts';
import type { FieldPrefix, RequestContext, Route } from '../api/types.ts';
import { invalidRequest, TqError } from '../core/errors.ts';
import { LosslessObject, type LosslessValue } from '../core/json/lossless.ts';
import { alias, any, list, maybe, model, str } from '../core/schema.ts';
import { defineRoute } from './define-route.ts';
import { testContext, testEngine } from './writes.testing.ts';

const itemModel = (p: FieldPrefix) =>
  model('Item', { project_id: str(), mode: str(), user_id: alias(`${p}user_id`, maybe(str())), val: any() }, { strict: true });
const batchModel = (p: FieldPrefix) => model('Batch', { batch: list(itemModel(p)) }, { strict: true });

/** A route that records what reached `run`; its `refine` refuses mode "bad" (400). */
function probe(options: { lossless?: boolean; mutates?: boolean } = {}) {
  const ran: Array<{ users: Array<string | null | undefined>; lossless: LosslessValue | undefined }> = [];
  const route = defineRoute({
    path: '/probe',
    ...options,
    model: batchModel,
    refine: (req) => {
      for (const item of req.batch) if (item.mode === 'bad') throw invalidRequest('TQ_INVALID_MODE');
      return req.batch;
    },
    project: (items) => items.map((i) => i.project_id),
    run: (items, { lossless }) => {
      ran.push({ users: items.map((i) => i.user_id), lossless });
      return { n: items.length, val: items[0]?.val ?? null };
    },
  });
  return { route, ran };
}

function outcome(route: Route, body: string, prefix: FieldPrefix = 'svc_', ctx: RequestContext = testContext()) {
  try {
    const r = runRoute(route, testEngine(prefix), { kind: 'text', text: body }, ctx);
    assert.equal(r.kind, 'json');
    return r.kind === 'json' ? { status: 200, text: r.text } : null;
  } catch (e) {
    assert.ok(e instanceof TqError);
    return { status: e.status, body: e.body() };
  }
}

const item = (project: string, mode = 'start', extra = '') => `{"project_id":"${project}","mode":"${mode}","val":1.0${extra}}`;

test('defineRoute: the model is the engine prefix\'s, and run gets the neutral names', () => {
  const { route, ran } = probe();
  assert.deepEqual(outcome(route, `{"batch":[${item('e/p', 'start', ',"wb_user_id":"u"')}]}`, 'wb_'), { status: 200, text: '{"n":1,"val":1}' });
  assert.deepEqual(ran[0].users, ['u']);
  // Under the other prefix the same key is an unknown one.
  const svc = outcome(route, `{"batch":[${item('e/p', 'start', ',"wb_user_id":"u"')}]}`, 'svc_');
  assert.equal(svc?.status, 422);
  assert.deepEqual((svc?.body as { detail: Array<{ loc: unknown }> }).detail[0].loc, ['body', 'batch', 0, 'wb_user_id']);
});

test('defineRoute: validate (422), then refine (400), then authorize every project in order (403), then run', () => {
  const { route, ran } = probe();
  const ctx = testContext();
  assert.equal(outcome(route, `{"batch":[${item('x/forbidden')}, 5]}`, 'svc_', ctx)?.status, 422);
  assert.equal(outcome(route, `{"batch":[${item('x/forbidden')}, ${item('e/p', 'bad')}]}`, 'svc_', ctx)?.status, 400);
  assert.deepEqual(ctx.authorized, []);
  assert.equal(outcome(route, `{"batch":[${item('e/a')}, ${item('x/forbidden')}, ${item('e/b')}]}`, 'svc_', ctx)?.status, 403);
  assert.deepEqual(ctx.authorized, ['e/a']);
  assert.deepEqual(ran, []);
  assert.equal(outcome(route, `{"batch":[${item('e/b')}, ${item('e/a')}]}`, 'svc_', ctx)?.status, 200);
  assert.deepEqual(ctx.authorized, ['e/a', 'e/b', 'e/a']);
});

test('defineRoute: a lossless route sees the number spellings the model does not', () => {
  const { route, ran } = probe({ lossless: true });
  outcome(route, `{"batch":[${item('e/p')}]}`);
  const body = ran[0].lossless;
  assert.ok(body instanceof LosslessObject);
  const first = (body.get('batch') as LosslessValue[])[0] as LosslessObject;
  assert.equal(String(first.get('val')), '1.0');
  const plain = probe();
  outcome(plain.route, `{"batch":[${item('e/p')}]}`);
  assert.equal(plain.ran[0].lossless, undefined);
});

test('defineRoute: routes mutate unless told not to; big integers in the answer keep their digits', () => {
  assert.equal(probe().route.mutates, true);
  assert.equal('mutates' in probe({ mutates: false }).route, false);
  const exact = defineRoute({
    path: '/exact',
    model: itemModel,
    project: (req) => req.project_id,
    run: (req) => ({ val: req.val }),
  });
  assert.deepEqual(outcome(exact, item('e/p').replace('1.0', '12345678901234567890')), { status: 200, text: '{"val":12345678901234567890}' });
});
