import assert from 'node:assert/strict';
import { test } from 'node:test';
import { callRoute, grantingContext } from '../../api/call-route.testing.ts';
import { testEngine } from '../writes.testing.ts';

const start = { project_id: 'e/p', id: 'c1', op_name: 'op', started_at: '2024-05-01T12:00:00Z', attributes: {}, inputs: { x: 1 } };
const end = { project_id: 'e/p', id: 'c1', ended_at: '2024-05-01T12:00:01Z', output: 2, summary: {}, started_at: '2024-05-01T12:00:00Z' };

const calls = (engine: ReturnType<typeof testEngine>) => callRoute(engine, '/calls/stream_query', { project_id: 'e/p' });

test('v2 call/start and call/end store a call like /call/start and /call/end', () => {
  const engine = testEngine();
  assert.deepEqual(callRoute(engine, '/v2/e/p/call/start', { start }), { status: 200, body: { id: 'c1', trace_id: 'id-1' } });
  assert.deepEqual(callRoute(engine, '/v2/e/p/call/end', { end }), { status: 200, body: {} });
  const out = calls(engine);
  assert.equal(out.status, 200);
  const [row] = (out as { lines: Array<Record<string, unknown>> }).lines;
  assert.equal(row.output, 2);
  assert.equal(row.ended_at, '2024-05-01T12:00:01Z');
  assert.equal(row.svc_user_id, 'alice');
});

test('v2 calls/complete writes whole calls, generating missing ids', () => {
  const engine = testEngine();
  const item = { ...start, id: undefined, ended_at: '2024-05-01T12:00:02Z', output: 'done', summary: {} };
  assert.deepEqual(callRoute(engine, '/v2/e/p/calls/complete', { batch: [item, { ...item, id: 'c9' }] }), { status: 200, body: {} });
  const rows = (calls(engine) as { lines: Array<Record<string, unknown>> }).lines;
  assert.deepEqual(rows.map((r) => [r.id, r.output, r.ended_at]), [
    ['c9', 'done', '2024-05-01T12:00:02Z'],
    ['id-1', 'done', '2024-05-01T12:00:02Z'],
  ]);
});

test('the path names the project: another project in the body is a 400, the grant is the path\'s', () => {
  const engine = testEngine();
  assert.deepEqual(callRoute(engine, '/v2/e/other/call/start', { start }), {
    status: 400,
    body: { reason: "project_id 'e/p' does not match the project 'e/other' named by the path" },
  });
  const denied = callRoute(engine, '/v2/e/p/call/start', { start }, grantingContext('bob', ['e/p']));
  assert.deepEqual(denied, { status: 403, body: { reason: "User 'bob' has no access to project 'e/p'" } });
  const bad = callRoute(engine, '/v2/e/p/calls/complete', { batch: [{ project_id: 'e/p' }] });
  assert.equal(bad.status, 422);
  assert.equal(calls(engine).status, 200);
  assert.deepEqual((calls(engine) as { lines: unknown[] }).lines, []);
});
