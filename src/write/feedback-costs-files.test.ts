import assert from 'node:assert/strict';
import { describe, it, test } from 'node:test';
import { call, NOW_US, testContext, testEngine } from './writes.testing.ts';

const P = 'acme/proj';
const fb = (extra: Record<string, unknown>) => ({ project_id: P, weave_ref: `weave:///${P}/call/c1`, feedback_type: 'custom', payload: { score: 1 }, ...extra });

test('semantics.md#writes-feedback /feedback/create answers {id, created_at, <prefix>user_id, payload} and indexes by weave_ref', () => {
  const e = testEngine();
  assert.deepEqual(call(e, '/feedback/create', fb({})), {
    status: 200,
    body: { id: 'id-1', created_at: '2024-06-01T12:00:00Z', svc_user_id: 'alice', payload: { score: 1 } },
  });
  const rows = e.store.project(P)!.feedbackByRef.get(`weave:///${P}/call/c1`)!;
  assert.equal(rows.length, 1);
  assert.deepEqual([rows[0].id, rows[0].user_id, rows[0].created_at, rows[0].creator], ['id-1', 'alice', NOW_US, null]);
});

test('semantics.md#writes-feedback a client id is kept; semantics.md#writes-user-id: a sent user id wins', () => {
  const e = testEngine('wb_');
  const res = call(e, '/feedback/create', fb({ id: 'mine', wb_user_id: 'carol' }), testContext('bob'));
  assert.deepEqual(res.body, { id: 'mine', created_at: '2024-06-01T12:00:00Z', wb_user_id: 'carol', payload: { score: 1 } });
});

test('reserved feedback types: reaction needs exactly one emoji, note 1..1024 characters', () => {
  const e = testEngine();
  assert.equal(call(e, '/feedback/create', fb({ feedback_type: 'wandb.reaction.1', payload: { emoji: '👍🏽' } })).status, 200);
  assert.deepEqual(call(e, '/feedback/create', fb({ feedback_type: 'wandb.reaction.1', payload: { emoji: '👍👍' } })), {
    status: 400,
    body: { reason: 'Value of emoji key in payload must be exactly one emoji' },
  });
  // A single code point takes the path without a segmenter; the answer must not change.
  assert.equal(call(e, '/feedback/create', fb({ feedback_type: 'wandb.reaction.1', payload: { emoji: '👍' } })).status, 200);
  for (const emoji of ['a', '', 'é']) {
    assert.deepEqual(call(e, '/feedback/create', fb({ feedback_type: 'wandb.reaction.1', payload: { emoji } })), {
      status: 400,
      body: { reason: 'Value of emoji key in payload must be exactly one emoji' },
    }, emoji);
  }
  assert.deepEqual(call(e, '/feedback/create', fb({ feedback_type: 'wandb.note.1', payload: { note: '' } })), {
    status: 400,
    body: { reason: 'Invalid payload for feedback_type wandb.note.1: note: String should have at least 1 character' },
  });
  assert.equal(call(e, '/feedback/create', fb({ feedback_type: 'wandb.note.1', payload: { note: 'ok' } })).status, 200);
  const reason = (type: string, payload: Record<string, unknown>) => (call(e, '/feedback/create', fb({ feedback_type: type, payload })).body as { reason?: string }).reason;
  assert.equal(reason('wandb.reaction.1', { other: 1 }), 'Invalid payload for feedback_type wandb.reaction.1: emoji: Field required');
  assert.equal(reason('wandb.reaction.1', { emoji: 5 }), 'Invalid payload for feedback_type wandb.reaction.1: emoji: Input should be a valid string');
  assert.equal(reason('wandb.note.1', { note: null }), 'Invalid payload for feedback_type wandb.note.1: note: Input should be a valid string');
  // Characters are code points: 1024 emoji fit, 1025 do not.
  assert.equal(call(e, '/feedback/create', fb({ feedback_type: 'wandb.note.1', payload: { note: '👍'.repeat(1024) } })).status, 200);
  assert.equal(reason('wandb.note.1', { note: '👍'.repeat(1025) }), 'Invalid payload for feedback_type wandb.note.1: note: String should have at most 1024 characters');
});

test('feedback refs must fit the type (Weave\'s validate_feedback_create_req wording)', () => {
  const e = testEngine();
  const reason = (extra: Record<string, unknown>) => (call(e, '/feedback/create', fb(extra)).body as { reason?: string }).reason;
  assert.equal(reason({ runnable_ref: `weave:///${P}/op/scorer:abc` }), 'runnable_ref is not allowed for non-runnable feedback');
  assert.equal(reason({ call_ref: `weave:///${P}/call/c2` }), 'call_ref is not allowed for non-runnable feedback');
  assert.equal(reason({ annotation_ref: `weave:///${P}/object/spec:abc` }), 'annotation_ref is not allowed for non-annotation feedback');
  assert.equal(reason({ feedback_type: 'wandb.runnable.scorer', payload: { output: 1 } }), 'runnable_ref is required for runnable feedback');
  assert.equal(
    reason({ feedback_type: 'wandb.runnable.scorer', payload: { output: 1 }, runnable_ref: `weave:///${P}/op/scorer:abc` }),
    'call_ref is required for runnable feedback on ops',
  );
  assert.equal(
    reason({ feedback_type: 'wandb.runnable.scorer', payload: { output: 1 }, runnable_ref: `weave:///${P}/op/other:abc`, call_ref: `weave:///${P}/call/c2` }),
    'runnable_ref must point to an object with name scorer',
  );
  const ok = call(e, '/feedback/create', fb({ feedback_type: 'wandb.runnable.scorer', payload: { output: 1 }, runnable_ref: `weave:///${P}/op/scorer:abc`, call_ref: `weave:///${P}/call/c2` }));
  assert.equal(ok.status, 200);
});

test('422: FeedbackCreateReq is strict and payload must be an object', () => {
  const e = testEngine();
  const res = call(e, '/feedback/create', fb({ payload: 5, extra: true }));
  assert.deepEqual(
    (res.body as { detail: Array<{ type: string; loc: unknown[] }> }).detail.map((d) => [d.type, d.loc]),
    [
      ['dict_type', ['body', 'payload']],
      ['extra_forbidden', ['body', 'extra']],
    ],
  );
});

test('semantics.md#writes-costs /cost/create adds project-level price rows with defaults and answers [[id, llm_id]] as production does', () => {
  const e = testEngine();
  const res = call(e, '/cost/create', {
    project_id: P,
    costs: {
      'gpt-x': { prompt_token_cost: 1, completion_token_cost: 2 },
      'gpt-y': { prompt_token_cost: 3, completion_token_cost: 4, provider_id: 'openai', effective_date: '2024-01-01T00:00:00Z', prompt_token_cost_unit: 'EUR' },
    },
  });
  assert.deepEqual(res, { status: 200, body: { ids: [['id-1', 'gpt-x'], ['id-2', 'gpt-y']] } });
  const [x, y] = e.store.prices;
  assert.deepEqual(x, {
    id: 'id-1',
    pricing_level: 'project',
    pricing_level_id: P,
    provider_id: 'default',
    llm_id: 'gpt-x',
    effective_date: NOW_US,
    prompt_token_cost: 1,
    completion_token_cost: 2,
    prompt_token_cost_unit: 'USD',
    completion_token_cost_unit: 'USD',
    cache_read_input_token_cost: 0,
    cache_creation_input_token_cost: 0,
    created_by: 'alice',
    created_at: NOW_US,
  });
  assert.deepEqual([y.provider_id, y.effective_date, y.prompt_token_cost_unit], ['openai', Date.UTC(2024, 0, 1) * 1000, 'EUR']);
});

test('422: CostCreateInput is strict; costs must be a dict; numbers lax', () => {
  const e = testEngine();
  const res = call(e, '/cost/create', { project_id: P, costs: { gpt: { prompt_token_cost: 'x', completion_token_cost: 1, zz: 1 } } });
  assert.deepEqual(res, {
    status: 422,
    body: {
      detail: [
        { type: 'float_parsing', loc: ['body', 'costs', 'gpt', 'prompt_token_cost'], msg: 'Input should be a valid number, unable to parse string as a number', input: 'x' },
        { type: 'extra_forbidden', loc: ['body', 'costs', 'gpt', 'zz'], msg: 'Extra inputs are not permitted', input: 1 },
      ],
    },
  });
  assert.equal(call(e, '/cost/create', { project_id: P, costs: [] }).status, 422);
});

const multipart = (fields: Record<string, string>, files: Record<string, Uint8Array>) => ({
  kind: 'multipart' as const,
  fields: new Map(Object.entries(fields)),
  files: new Map(Object.entries(files)),
});

test('semantics.md#writes-file /file/create stores bytes under their digest (semantics.md#digest-vectors "hello"), idempotently', () => {
  const e = testEngine();
  const hello = new TextEncoder().encode('hello');
  const digest = 'LPJNulXwow4m6DsqxbninhsWHlwfp0JecwQzYpOLmCQ';
  assert.deepEqual(call(e, '/file/create', multipart({ project_id: P }, { file: hello })), { status: 200, body: { digest } });
  assert.deepEqual(call(e, '/files/create', multipart({ project_id: P }, { file: hello })), { status: 200, body: { digest } });
  assert.deepEqual([...e.store.project(P)!.files.keys()], [digest]);
});

test('semantics.md#writes-file-expected-digest /file/create with a differing expected_digest is a 409 and stores nothing', () => {
  const e = testEngine();
  const hello = new TextEncoder().encode('hello');
  const digest = 'LPJNulXwow4m6DsqxbninhsWHlwfp0JecwQzYpOLmCQ';
  assert.deepEqual(call(e, '/file/create', multipart({ project_id: P, expected_digest: 'nope' }, { file: hello })), {
    status: 409,
    body: { reason: `Client file digest nope != server digest ${digest}` },
  });
  assert.equal(e.store.project(P)?.files.size ?? 0, 0);
  assert.deepEqual(call(e, '/file/create', multipart({ project_id: P, expected_digest: digest }, { file: hello })), { status: 200, body: { digest } });
});

test('/file/create without its form parts is a 422 naming them', () => {
  const e = testEngine();
  assert.deepEqual(call(e, '/file/create', multipart({ project_id: P }, {})), {
    status: 422,
    body: { detail: [{ type: 'missing', loc: ['body', 'file'], msg: 'Field required', input: null }] },
  });
  const missing = (field: string) => ({ type: 'missing', loc: ['body', field], msg: 'Field required', input: null });
  assert.deepEqual(call(e, '/file/create', multipart({}, {})).body, { detail: [missing('project_id'), missing('file')] });
  assert.deepEqual(call(e, '/file/create', multipart({}, { file: new Uint8Array([1]) })).body, { detail: [missing('project_id')] });
  // A body that is no form at all is reported at its first field.
  assert.deepEqual(call(e, '/file/create', { project_id: P }).body, { detail: [missing('project_id')] });
});

test('write routes authorize the project they write to', () => {
  const e = testEngine();
  const ctx = testContext();
  call(e, '/feedback/create', fb({}), ctx);
  call(e, '/cost/create', { project_id: P, costs: {} }, ctx);
  assert.deepEqual(ctx.authorized, [P, P]);
  assert.equal(call(e, '/feedback/create', fb({ project_id: 'x/forbidden' }), ctx).status, 403);
  assert.equal(e.store.project('x/forbidden'), undefined);
});

describe('issue 22 §4: purges with "query": null', () => {
  it('/feedback/purge and /cost/purge answer 400 with the purge message, not 500', async () => {
    const { runRoute } = await import('../api/run-route.ts');
    const { findRoute } = await import('../routes.ts');
    const { TqError } = await import('../core/errors.ts');
    const engine = testEngine();
    const outcome = (path: string) => {
      try {
        runRoute(findRoute(path)!, engine, { kind: 'text', text: '{"project_id":"acme/p","query":null}' }, testContext());
        return 'ok';
      } catch (e) {
        return e instanceof TqError ? `${e.status} ${JSON.stringify(e.body())}` : `crash ${(e as Error).message}`;
      }
    };
    assert.equal(outcome('/feedback/purge'), '400 {"reason":"Can only purge feedback by specifying one or more feedback ids"}');
    assert.equal(outcome('/cost/purge'), '400 {"reason":"Can only purge costs by specifying one or more cost ids"}');
  });
});
