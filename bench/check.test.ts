import { test } from 'node:test';
import assert from 'node:assert/strict';
import { canonicalDatetime, canonicalRow, crossCheck, diffIds, rowKey } from './check.ts';

test('diffIds: equal lists are no difference; a swap, a missing and an extra id are named', () => {
  assert.equal(diffIds(['a', 'b', 'c'], ['a', 'b', 'c']), null);
  assert.match(diffIds(['a', 'b', 'c'], ['a', 'c', 'b'])!, /missing 0 \[\]; extra 0 \[\]; first order difference at position 1/);
  assert.match(diffIds(['a', 'b'], ['a', 'x', 'b'])!, /2 expected vs 3 actual; missing 0 \[\]; extra 1 \["x"\]/);
  assert.match(diffIds(['a', 'b'], ['a'])!, /missing 1 \["b"\]/);
});

test('canonicalDatetime: tq and DuckDB spellings of one instant are equal; other values pass through', () => {
  assert.equal(canonicalDatetime('2025-01-01T00:00:02.755714Z'), canonicalDatetime('2025-01-01 00:00:02.755714'));
  assert.equal(canonicalDatetime('2025-01-01T00:00:02.5Z'), Date.UTC(2025, 0, 1, 0, 0, 2) * 1000 + 500_000);
  assert.equal(canonicalDatetime('2025-01-01 00:00:02'), Date.UTC(2025, 0, 1, 0, 0, 2) * 1000);
  assert.equal(canonicalDatetime('not a date'), 'not a date');
  assert.equal(canonicalDatetime(null), null);
});

const tqCall = {
  id: 'c1', project_id: 'p', op_name: 'weave:///p/op/x:abc', display_name: null, trace_id: 't', parent_id: null,
  started_at: '2025-01-01T00:00:00.000001Z', inputs: { a: 1, b: [1, 2] }, ended_at: null,
  summary: { usage: { m: { requests: 1 } }, weave: { status: 'running', trace_name: 'x' } },
};
const duckCall = {
  summary: { weave: { latency_ms: null, trace_name: 'x', status: 'running' }, usage: { m: { requests: 1 } } },
  inputs: { b: [1, 2], a: 1 }, ended_at: null, started_at: '2025-01-01 00:00:00.000001', parent_id: null,
  trace_id: 't', display_name: null, op_name: 'weave:///p/op/x:abc', project_id: 'p', id: 'c1',
};

test('canonicalRow: key order, datetime spelling and an omitted versus null latency do not count', () => {
  assert.equal(canonicalRow('call', tqCall, null), canonicalRow('call', duckCall, null));
  // A real difference does: a changed input, a different status, a different start.
  assert.notEqual(canonicalRow('call', tqCall, null), canonicalRow('call', { ...duckCall, inputs: { a: 2, b: [1, 2] } }, null));
  assert.notEqual(canonicalRow('call', tqCall, null), canonicalRow('call', { ...duckCall, summary: { weave: { status: 'success' }, usage: { m: { requests: 1 } } } }, null));
  assert.notEqual(canonicalRow('call', tqCall, null), canonicalRow('call', { ...duckCall, started_at: '2025-01-01 00:00:00.000002' }, null));
  // Only the named columns are compared when the query selects columns.
  assert.equal(canonicalRow('call', tqCall, ['id', 'trace_id']), canonicalRow('call', { id: 'c1', trace_id: 't', inputs: {} }, ['id', 'trace_id']));
});

test('canonicalRow: threads compare percentiles to 12 digits; table rows compare the digest too (DuckDB renders it)', () => {
  const t = { thread_id: 'a', p50_turn_duration_ms: 0.1 + 0.2, start_time: '2025-01-01T00:00:00Z' };
  assert.equal(canonicalRow('thread', t, null), canonicalRow('thread', { ...t, p50_turn_duration_ms: 0.3, start_time: '2025-01-01 00:00:00' }, null));
  assert.equal(canonicalRow('table_row', { digest: 'd', val: { x: 1 }, original_index: 3 }, null), '{"digest":"d","original_index":3,"val":{"x":1}}');
  assert.notEqual(canonicalRow('table_row', { digest: 'd', val: { x: 1 }, original_index: 3 }, null), canonicalRow('table_row', { digest: 'e', val: { x: 1 }, original_index: 3 }, null));
  assert.equal(canonicalRow('stats', { count: 3 }, null), '{"count":3}');
  assert.equal(rowKey('table_row', { original_index: 3 }), '3');
  assert.equal(rowKey('thread', { thread_id: 'a' }), 'a');
});

test('crossCheck: a different order, a missing row and a changed value are each caught', () => {
  const a = [JSON.stringify(tqCall), JSON.stringify({ ...tqCall, id: 'c2' })];
  const b = [JSON.stringify(duckCall), JSON.stringify({ ...duckCall, id: 'c2' })];
  assert.deepEqual(crossCheck('call', null, a, b), { ids_match: true, content_sampled: 2, content_match: true, detail: null });
  const swapped = crossCheck('call', null, a, [b[1], b[0]]);
  assert.equal(swapped.ids_match, false);
  assert.match(swapped.detail!, /^keys: .*first order difference at position 0/);
  assert.equal(crossCheck('call', null, a, [b[0]]).ids_match, false);
  const changed = crossCheck('call', null, a, [b[0], JSON.stringify({ ...duckCall, id: 'c2', exception: 'boom' })]);
  assert.equal(changed.ids_match, true);
  assert.equal(changed.content_match, false);
  assert.match(changed.detail!, /^row 1 \(c2\): tq .* vs DuckDB .*boom/);
});
