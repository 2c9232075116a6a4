import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runRoute } from './run-route.ts';
import { lineStream } from './line-stream.ts';
import type { FieldPrefix, RequestBody, RequestContext, Route } from './types.ts';
import { invalidRequest, TqError, tqError } from '../core/errors.ts';
import { LosslessObject, type LosslessValue } from '../core/json/lossless.ts';
import { alias, any, list, maybe, model, str } from '../core/schema.ts';
import { defineRoute, isDefinedRoute } from './define-route.ts';
import { graphqlRoute } from '../server/graphql-handshake.ts';
import { testContext, testEngine } from '../write/writes.testing.ts';
import { allRoutes, findRoute } from '../routes.ts';

const itemModel = (p: FieldPrefix) =>
  model('Item', { project_id: str(), mode: str(), user_id: alias(`${p}user_id`, maybe(str())), val: any() }, { strict: true });
const batchModel = (p: FieldPrefix) => model('Batch', { batch: list(itemModel(p)) }, { strict: true });

/** A route that records what reached `run`; its `refine` refuses mode "bad" (400). */
function probe(options: { lossless?: boolean; mutates?: boolean } = {}) {
  const ran: Array<{ users: Array<string | null | undefined>; lossless: LosslessValue | undefined }> = [];
  const route = defineRoute({
    path: '/probe',
    body: options.lossless ? 'lossless' : 'plain',
    mutates: options.mutates ?? true,
    answer: 'json',
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
    return r.kind === 'json' ? { status: 200, text: r.text ?? JSON.stringify(r.body) } : null;
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

test('defineRoute: a route says whether it mutates; big integers in a json answer keep their digits', () => {
  assert.equal(probe().route.mutates, true);
  assert.equal('mutates' in probe({ mutates: false }).route, false);
  const exact = defineRoute({
    path: '/exact',
    body: 'plain',
    mutates: false,
    answer: 'json',
    model: itemModel,
    project: (req) => req.project_id,
    run: (req) => ({ val: req.val }),
  });
  assert.deepEqual(outcome(exact, item('e/p').replace('1.0', '12345678901234567890')), { status: 200, text: '{"val":12345678901234567890}' });
});

test('exactly the routes that change the store are marked mutates', () => {
  const mutating = allRoutes().filter((r) => r.mutates).map((r) => r.path).sort();
  assert.deepEqual(mutating, [
    '/call/end', '/call/start', '/call/update', '/call/upsert_batch', '/calls/delete', '/cost/create', '/cost/purge',
    '/feedback/batch/create', '/feedback/create', '/feedback/purge', '/feedback/replace', '/file/create', '/files/create',
    '/obj/create', '/obj/delete', '/otel/v1/traces', '/table/create', '/table/create_from_digests', '/table/update', '/test/reset',
    '/v2/{entity}/{project}/call/end', '/v2/{entity}/{project}/call/start', '/v2/{entity}/{project}/calls/complete',
  ]);
  assert.equal(findRoute('/v2/acme/bot/calls/complete')?.path, '/v2/{entity}/{project}/calls/complete');
  assert.equal(findRoute('/v2/acme/calls/complete'), undefined);
});

test('every route tq serves is built by defineRoute (validate, then authorize, then run)', () => {
  assert.deepEqual(allRoutes().filter((r) => !isDefinedRoute(r)).map((r) => r.path), []);
  assert.ok(isDefinedRoute(graphqlRoute()));
  assert.equal(isDefinedRoute({ path: '/by-hand', method: 'POST', body: 'json', run: () => ({ kind: 'json', body: {} }) }), false);
});

test('defineRoute: query bodies keep the lexemes of `query`, parsers get the prefix, path and query parameters and the user, none ignores the body', () => {
  const seen: unknown[] = [];
  const route = defineRoute({
    path: '/probe/{name}',
    body: 'query',
    mutates: false,
    answer: 'json',
    parse: (body, prefix, params, userId) => ({ body, prefix, params, userId }),
    project: (req) => (req.body as { project_id: string }).project_id,
    run: (req) => (seen.push(req), { ok: true }),
  });
  const ctx = testContext();
  const r = runRoute(route, testEngine('wb_'), { kind: 'text', text: '{"project_id":"e/p","query":{"$literal":5.0},"n":1.0}' }, ctx, { name: 'x' });
  assert.deepEqual(r, { kind: 'json', body: { ok: true } });
  const [req] = seen as Array<{ body: { query: { $literal: unknown }; n: unknown }; prefix: string; params: unknown; userId: string }>;
  assert.equal(String(req.body.query.$literal), '5.0');
  assert.equal(req.body.n, 1);
  assert.deepEqual([req.prefix, req.params, req.userId], ['wb_', { name: 'x' }, ctx.userId]);
  assert.deepEqual(ctx.authorized, ['e/p']);
  const none = defineRoute({ path: '/none', method: 'GET', body: 'none', mutates: false, answer: 'json', parse: (body) => body, project: () => [], run: (body) => ({ body: body ?? null }) });
  assert.equal(none.body, 'none');
  assert.equal(none.method, 'GET');
  assert.deepEqual(runRoute(none, testEngine(), { kind: 'text', text: 'not json' }, testContext()), { kind: 'json', body: { body: null } });
});

test('defineRoute: a stream answer is the route\'s stream, started only after validation and authorization', () => {
  let started = 0;
  const route = defineRoute({
    path: '/stream',
    body: 'plain',
    mutates: false,
    answer: 'stream',
    model: itemModel,
    project: (req) => req.project_id,
    run: (req) => (started++, lineStream([JSON.stringify({ p: req.project_id })])),
  });
  assert.equal(outcomeOf(route, item('x/forbidden')).status, 403);
  assert.equal(outcomeOf(route, '{"project_id":5}').status, 422);
  assert.equal(started, 0);
  const r = runRoute(route, testEngine(), { kind: 'text', text: item('e/p') }, testContext());
  assert.equal(r.kind, 'stream');
  assert.deepEqual(r.kind === 'stream' ? [...r.lines] : null, ['{"p":"e/p"}']);
});

function outcomeOf(route: Route, body: string): { status: number } {
  try {
    runRoute(route, testEngine(), { kind: 'text', text: body }, testContext());
    return { status: 200 };
  } catch (e) {
    assert.ok(e instanceof TqError);
    return { status: e.status };
  }
}

test("a 'spelled' body answers its numbers as sent: 1.0 and big integers kept, 1E2 as Python spells it, NaN as null", () => {
  const echo = defineRoute({ path: '/echo', body: 'spelled', mutates: false, answer: 'json', parse: (body) => body, project: () => [], run: (body) => body });
  const result = runRoute(echo, testEngine(), { kind: 'text', text: '{"a":1.0,"b":1E2,"c":12345678901234567890,"d":NaN,"e":7}' }, testContext());
  assert.equal(result.kind === 'json' ? result.text : undefined, '{"a":1.0,"b":100.0,"c":12345678901234567890,"d":null,"e":7}');
});

test("a 'lossless' route stores a part as the body spelled it (storedText), a rebuilt part from its values", () => {
  const route = defineRoute({
    path: '/keep',
    body: 'lossless',
    mutates: true,
    answer: 'json',
    model: () => model('Keep', { project_id: str(), kept: any(), rebuilt: any() }, { strict: true }),
    project: (req) => req.project_id,
    run: (req, { storedText }) => ({ kept: storedText!(req.kept), rebuilt: storedText!({ n: 5 }) }),
  });
  const result = runRoute(route, testEngine(), { kind: 'text', text: '{"project_id":"e/p","kept":{"z":1.0,"a":2},"rebuilt":null}' }, testContext());
  assert.deepEqual(result.kind === 'json' ? result.body : undefined, { kept: '{"z":1.0,"a":2}', rebuilt: '{"n":5}' });
});

test('a parse-based split route: parse and derive from the body alone (its 4xx first, nothing derived), then authorize every project in order (403), then run', () => {
  const steps: string[] = [];
  // A binary body `project,project,…` whose content-type header must be text/csv (415 otherwise).
  const route = defineRoute({
    path: '/split-probe',
    body: 'binary',
    headers: ['content-type'],
    mutates: true,
    answer: 'json',
    parse: (raw) => {
      const body = raw as RequestBody;
      assert.equal(body.kind, 'binary');
      steps.push('parse');
      if (body.kind !== 'binary' || body.headers['content-type'] !== 'text/csv') throw tqError('TQ_OTLP_CONTENT_TYPE', { type: 'other' });
      return Buffer.from(body.bytes).toString('utf8').split(',');
    },
    project: (projects) => projects,
    derive: (projects) => {
      steps.push('derive');
      return { count: projects.length, packed: new Uint32Array([projects.length]) };
    },
    run: (derived, { ctx }) => {
      steps.push('run');
      return { count: derived.count, packed: derived.packed[0], user: ctx.userId };
    },
  });
  assert.ok(isDefinedRoute(route) && route.prepare !== undefined && route.runPrepared !== undefined);
  const body = (text: string, type = 'text/csv'): RequestBody => ({ kind: 'binary', bytes: new TextEncoder().encode(text), headers: { 'content-type': type } });

  // The first half needs no engine and no user; what it gives survives a structured clone (the worker's hand-back).
  const prepared = structuredClone(route.prepare!(body('e/a,e/b'), 'svc_', {}));
  assert.deepEqual(prepared, { projects: ['e/a', 'e/b'], derived: { count: 2, packed: new Uint32Array([2]) } });
  assert.deepEqual(steps, ['parse', 'derive']);
  const ctx = testContext('bob');
  const done = route.runPrepared!(prepared, testEngine('svc_'), ctx, {});
  assert.deepEqual(done, { kind: 'json', body: { count: 2, packed: 2, user: 'bob' } });
  assert.deepEqual(ctx.authorized, ['e/a', 'e/b']);

  // A refusal of parse: nothing derived, nothing authorized.
  steps.length = 0;
  assert.throws(() => route.prepare!(body('e/a', 'text/plain'), 'svc_', {}), { status: 415 });
  assert.deepEqual(steps, ['parse']);
  // A project without a grant: refused before run, the projects before it authorized in order.
  steps.length = 0;
  const denied = testContext();
  assert.throws(() => runRoute(route, testEngine('svc_'), body('e/a,x/forbidden,e/b'), denied), { status: 403 });
  assert.deepEqual(denied.authorized, ['e/a']);
  assert.deepEqual(steps, ['parse', 'derive']);
  // `run` in one go is the two halves.
  steps.length = 0;
  assert.deepEqual(runRoute(route, testEngine('svc_'), body('e/c'), testContext('carol')), { kind: 'json', body: { count: 1, packed: 1, user: 'carol' } });
  assert.deepEqual(steps, ['parse', 'derive', 'run']);
});
