import assert from 'node:assert/strict';
import { test } from 'node:test';
import { callRoute, grantingContext } from '../api/call-route.testing.ts';
import { testEngine } from './writes.testing.ts';

const item = (payload: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  project_id: 'e/p',
  weave_ref: 'weave:///e/p/call/c1',
  feedback_type: 'score',
  payload,
  ...extra,
});
const all = (engine: ReturnType<typeof testEngine>) =>
  (callRoute(engine, '/feedback/query', { project_id: 'e/p', fields: ['id', 'feedback_type', 'payload'] }) as { body: { result: unknown[] } }).body.result;

test('batch create stores every item, or none when one is invalid', () => {
  const engine = testEngine();
  assert.deepEqual(callRoute(engine, '/feedback/batch/create', { batch: [item({ v: 1 }), item({ v: 2 }, { id: 'mine' })] }), {
    status: 200,
    body: {
      res: [
        { id: 'id-1', created_at: '2024-06-01T12:00:00Z', svc_user_id: 'alice', payload: { v: 1 } },
        { id: 'mine', created_at: '2024-06-01T12:00:00Z', svc_user_id: 'alice', payload: { v: 2 } },
      ],
    },
  });
  const bad = callRoute(engine, '/feedback/batch/create', { batch: [item({ v: 3 }), item({}, { feedback_type: 'wandb.note.1' })] });
  assert.deepEqual(bad, { status: 400, body: { reason: 'Invalid payload for feedback_type wandb.note.1: note: Field required' } });
  assert.deepEqual(all(engine), [
    { id: 'id-1', feedback_type: 'score', payload: { v: 1 } },
    { id: 'mine', feedback_type: 'score', payload: { v: 2 } },
  ]);
  assert.deepEqual(callRoute(engine, '/feedback/batch/create', { batch: [item({})] }, grantingContext('bob', ['e/p'])), {
    status: 403,
    body: { reason: "User 'bob' has no access to project 'e/p'" },
  });
});

test('replace removes feedback_id and creates a row with the request id or a new one', () => {
  const engine = testEngine();
  callRoute(engine, '/feedback/create', item({ v: 1 }, { id: 'old' }));
  assert.deepEqual(callRoute(engine, '/feedback/replace', { ...item({ v: 2 }), feedback_id: 'old' }), {
    status: 200,
    body: { id: 'id-1', created_at: '2024-06-01T12:00:00Z', svc_user_id: 'alice', payload: { v: 2 } },
  });
  assert.deepEqual(all(engine), [{ id: 'id-1', feedback_type: 'score', payload: { v: 2 } }]);
  // An invalid replacement loses nothing.
  const bad = callRoute(engine, '/feedback/replace', { ...item({}, { feedback_type: 'wandb.reaction.1' }), feedback_id: 'id-1' });
  assert.equal(bad.status, 400);
  assert.deepEqual(all(engine), [{ id: 'id-1', feedback_type: 'score', payload: { v: 2 } }]);
  assert.deepEqual(callRoute(engine, '/feedback/replace', item({})), {
    status: 422,
    body: { detail: [{ type: 'missing', loc: ['body', 'feedback_id'], msg: 'Field required', input: null }] },
  });
  assert.deepEqual(callRoute(engine, '/feedback/replace', { ...item({}), feedback_id: 5 }), {
    status: 422,
    body: { detail: [{ type: 'string_type', loc: ['body', 'feedback_id'], msg: 'Input should be a valid string', input: 5 }] },
  });
  const both = callRoute(engine, '/feedback/replace', { weave_ref: 'x' }) as { body: { detail: Array<{ loc: unknown[] }> } };
  assert.deepEqual(both.body.detail.at(-1)?.loc, ['body', 'feedback_id']);
});

test('replace: a body that is no JSON object (an exact big integer too) is refused as a whole, not read as an empty one', () => {
  const engine = testEngine();
  const types = (body: string) =>
    ((callRoute(engine, '/feedback/replace', body) as { body: { detail: Array<{ type: string }> } }).body.detail).map((i) => i.type);
  assert.deepEqual(types('12345678901234567890'), ['model_attributes_type', 'missing']);
  assert.deepEqual(types('[1]'), ['model_attributes_type', 'missing']);
});

test('purge removes the rows named by id, and only those', () => {
  const engine = testEngine();
  for (const id of ['a', 'b', 'c']) callRoute(engine, '/feedback/create', item({ id }, { id }));
  const eq = (v: string) => ({ $eq: [{ $getField: 'id' }, { $literal: v }] });
  assert.deepEqual(callRoute(engine, '/feedback/purge', { project_id: 'e/p', query: { $expr: { $or: [eq('a'), eq('c')] } } }), { status: 200, body: {} });
  assert.deepEqual(all(engine).map((r) => (r as { id: string }).id), ['b']);
  assert.deepEqual(callRoute(engine, '/feedback/purge', { project_id: 'e/p', query: { $expr: { $in: [{ $getField: 'id' }, [{ $literal: 'b' }]] } } }), {
    status: 400,
    body: { reason: 'Can only purge feedback by specifying one or more feedback ids' },
  });
  assert.equal(callRoute(engine, '/feedback/purge', { project_id: 'e/p' }).status, 422);
  assert.deepEqual(callRoute(engine, '/feedback/purge', { project_id: 'none/here', query: { $expr: eq('b') } }), { status: 200, body: {} });
  assert.deepEqual(all(engine).length, 1);
});
