import assert from 'node:assert/strict';
import { test } from 'node:test';
import { callRoute, grantingContext } from '../../api/call-route.testing.ts';
import { testEngine } from '../../write/writes.testing.ts';

test('call/read renders the call exactly as its stream line; unknown and deleted ids are null', () => {
  const engine = testEngine();
  callRoute(engine, '/call/start', { start: { project_id: 'e/p', id: 'c1', op_name: 'op', started_at: '2024-05-01T12:00:00Z', attributes: {}, inputs: { n: 1.0 } } });
  callRoute(engine, '/call/start', { start: { project_id: 'e/p', id: 'c2', op_name: 'op', started_at: '2024-05-01T12:00:00Z', attributes: {}, inputs: {} } });
  const line = (callRoute(engine, '/calls/stream_query', { project_id: 'e/p', filter: { call_ids: ['c1'] }, include_storage_size: true }) as { lines: unknown[] }).lines[0];
  assert.deepEqual(callRoute(engine, '/call/read', { project_id: 'e/p', id: 'c1', include_storage_size: true }), { status: 200, body: { call: line } });
  assert.deepEqual(callRoute(engine, '/call/read', { project_id: 'e/p', id: 'nope' }), { status: 200, body: { call: null } });
  callRoute(engine, '/calls/delete', { project_id: 'e/p', call_ids: ['c2'] });
  assert.deepEqual(callRoute(engine, '/call/read', { project_id: 'e/p', id: 'c2' }), { status: 200, body: { call: null } });
});

test('call/read errors: model, grants', () => {
  const engine = testEngine();
  assert.deepEqual(callRoute(engine, '/call/read', { project_id: 'e/p' }), {
    status: 422,
    body: { detail: [{ type: 'missing', loc: ['body', 'id'], msg: 'Field required', input: { project_id: 'e/p' } }] },
  });
  assert.deepEqual(callRoute(engine, '/call/read', { project_id: 'e/p', id: 'c1' }, grantingContext('bob', ['e/p'])), {
    status: 403,
    body: { reason: "User 'bob' has no access to project 'e/p'" },
  });
});
