import assert from 'node:assert/strict';
import { test } from 'node:test';
import { callRoute, grantingContext } from '../../api/call-route.testing.ts';
import { testEngine } from '../../write/writes.testing.ts';

function engineWithCalls() {
  const engine = testEngine();
  const start = (id: string, x: unknown, parent?: string) =>
    callRoute(engine, '/call/start', { start: { project_id: 'e/p', id, trace_id: 't', parent_id: parent, op_name: 'op', started_at: '2024-05-01T12:00:00Z', attributes: {}, inputs: { x } } });
  start('root', 7.5);
  start('child', 9, 'root');
  start('other', 'text', 'root');
  callRoute(engine, '/call/end', { end: { project_id: 'e/p', id: 'root', ended_at: '2024-05-01T12:00:01Z', output: 1, summary: {} } });
  return engine;
}

test('query_stats counts what stream_query returns, float literals included', () => {
  const engine = engineWithCalls();
  assert.deepEqual(callRoute(engine, '/calls/query_stats', { project_id: 'e/p' }), { status: 200, body: { count: 3, total_storage_size_bytes: null } });
  // `5.0` is a float literal: inputs.x is read as a double, so 7.5 and 9 pass (an int literal would drop 7.5).
  const q = '{"project_id":"e/p","query":{"$expr":{"$gt":[{"$getField":"inputs.x"},{"$literal":5.0}]}}}';
  assert.deepEqual(callRoute(engine, '/calls/query_stats', q), { status: 200, body: { count: 2, total_storage_size_bytes: null } });
  const streamed = callRoute(engine, '/calls/stream_query', q) as { lines: unknown[] };
  assert.equal(streamed.lines.length, 2);
  assert.deepEqual(callRoute(engine, '/calls/query_stats', { project_id: 'e/p', filter: { trace_roots_only: true } }), {
    status: 200,
    body: { count: 1, total_storage_size_bytes: null },
  });
  assert.deepEqual(callRoute(engine, '/calls/query_stats', { project_id: 'e/p', limit: 2 }), { status: 200, body: { count: 2, total_storage_size_bytes: null } });
  assert.deepEqual(callRoute(engine, '/calls/query_stats', { project_id: 'e/p', limit: 0 }), { status: 200, body: { count: 0, total_storage_size_bytes: null } });
  assert.deepEqual(callRoute(engine, '/calls/query_stats', { project_id: 'no/calls' }), { status: 200, body: { count: 0, total_storage_size_bytes: null } });
});

test('total_storage_size_bytes sums the counted roots\' trace sizes, as the stream reports them', () => {
  const engine = engineWithCalls();
  const stats = callRoute(engine, '/calls/query_stats', { project_id: 'e/p', include_total_storage_size: true }) as { body: { total_storage_size_bytes: number } };
  const rows = (callRoute(engine, '/calls/stream_query', { project_id: 'e/p', include_total_storage_size: true }) as { lines: Array<{ total_storage_size_bytes: number | null }> }).lines;
  const expected = rows.reduce((sum, r) => sum + (r.total_storage_size_bytes ?? 0), 0);
  assert.ok(expected > 0);
  assert.equal(stats.body.total_storage_size_bytes, expected);
  // Sizes are remembered per row, and forgotten when a row changes in place (an end adds its output).
  callRoute(engine, '/call/end', { end: { project_id: 'e/p', id: 'child', ended_at: '2024-05-01T12:00:02Z', output: 'x'.repeat(100), summary: {} } });
  const again = callRoute(engine, '/calls/query_stats', { project_id: 'e/p', include_total_storage_size: true }) as { body: { total_storage_size_bytes: number } };
  assert.equal(again.body.total_storage_size_bytes, expected + '"'.length * 2 + 100 + '{}'.length);
});

test('query_stats errors: the model, bad values, unknown fields, grants', () => {
  const engine = engineWithCalls();
  assert.deepEqual(callRoute(engine, '/calls/query_stats', { project_id: 'e/p', offset: 1 }), {
    status: 422,
    body: { detail: [{ type: 'extra_forbidden', loc: ['body', 'offset'], msg: 'Extra inputs are not permitted', input: 1 }] },
  });
  assert.deepEqual(callRoute(engine, '/calls/query_stats', { project_id: 'e/p', limit: -1 }), { status: 400, body: { reason: 'Limit must be a positive integer' } });
  const unknown = callRoute(engine, '/calls/query_stats', { project_id: 'e/p', query: { $expr: { $eq: [{ $getField: 'nope' }, { $literal: 1 }] } } });
  assert.deepEqual(unknown, { status: 422, body: { reason: 'Field nope is not allowed' } });
  assert.deepEqual(callRoute(engine, '/calls/query_stats', { project_id: 'e/p' }, grantingContext('bob', ['e/p'])), {
    status: 403,
    body: { reason: "User 'bob' has no access to project 'e/p'" },
  });
});
