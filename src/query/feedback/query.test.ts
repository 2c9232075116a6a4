import assert from 'node:assert/strict';
import { test } from 'node:test';
import { callRoute, grantingContext } from '../../api/call-route.testing.ts';
import { testEngine } from '../../write/writes.testing.ts';

test('feedback/query: all columns by default, fields, payload query and sort, paging', () => {
  const engine = testEngine('wb_');
  const add = (id: string, payload: Record<string, unknown>, type = 'score') =>
    callRoute(engine, '/feedback/create', { id, project_id: 'e/p', weave_ref: `weave:///e/p/call/${id}`, feedback_type: type, payload });
  add('f1', { score: 0.5 });
  add('f2', { score: 0.9, note: 'good' });
  add('f3', { note: 'none' }, 'note');
  callRoute(engine, '/feedback/create', { project_id: 'e/other', weave_ref: 'weave:///e/other/call/x', feedback_type: 'score', payload: {} });
  const q = (body: Record<string, unknown>) => callRoute(engine, '/feedback/query', { project_id: 'e/p', ...body });
  assert.deepEqual(q({ limit: 1 }), {
    status: 200,
    body: {
      result: [
        {
          id: 'f1', project_id: 'e/p', weave_ref: 'weave:///e/p/call/f1', wb_user_id: 'alice', creator: null, created_at: '2024-06-01T12:00:00Z',
          feedback_type: 'score', payload: { score: 0.5 }, annotation_ref: null, runnable_ref: null, call_ref: null, trigger_ref: null,
        },
      ],
    },
  });
  const float = '{"project_id":"e/p","fields":["id","payload.score"],"query":{"$expr":{"$gt":[{"$getField":"payload.score"},{"$literal":0.6}]}}}';
  assert.deepEqual(q(JSON.parse(float)), { status: 200, body: { result: [{ id: 'f2', 'payload.score': '0.9' }] } });
  assert.deepEqual(callRoute(engine, '/feedback/query', float), { status: 200, body: { result: [{ id: 'f2', 'payload.score': '0.9' }] } });
  assert.deepEqual(q({ fields: ['id'], sort_by: [{ field: 'payload.score', direction: 'desc' }] }), { status: 200, body: { result: [{ id: 'f2' }, { id: 'f1' }, { id: 'f3' }] } });
  assert.deepEqual(q({ fields: ['id'], offset: 2 }), { status: 200, body: { result: [{ id: 'f3' }] } });
  assert.deepEqual(q({ fields: ['id', 'svc_user_id'] }), { status: 400, body: { reason: 'Unknown field: svc_user_id' } });
  assert.deepEqual(q({ limit: -1 }), { status: 400, body: { reason: 'Limit must be non-negative' } });
  assert.equal(q({ sort_by: [{ field: 'id' }] }).status, 422);
  assert.deepEqual(callRoute(engine, '/feedback/query', { project_id: 'e/p' }, grantingContext('bob', ['e/p'])), {
    status: 403,
    body: { reason: "User 'bob' has no access to project 'e/p'" },
  });
});
