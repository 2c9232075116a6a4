import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CallTable, type CallStartPart } from './call-table.ts';
import { startOrder } from './start-order.ts';

const start = (id: string, startedAt: number): CallStartPart => ({
  id, op_name: 'weave:///e/p/op/f:abc', display_name: null, trace_id: 't', parent_id: null, thread_id: null, turn_id: null,
  started_at: startedAt, attributes: {}, inputs: {}, user_id: null, run_id: null, run_step: null,
});

/** The expected order by brute force: started_at, then id by code point. */
const expected = (t: CallTable) =>
  Array.from({ length: t.size }, (_, r) => r).sort((a, b) => t.startedAt.data[a] - t.startedAt.data[b] || (t.ids[a] < t.ids[b] ? -1 : t.ids[a] > t.ids[b] ? 1 : 0));

test('startOrder: rows by started_at then id; equal starts fall back to the id', () => {
  const t = new CallTable();
  for (const [id, at] of [['c', 5], ['a', 5], ['b', 1], ['d', 9]] as const) t.start(start(id, at));
  assert.deepEqual([...startOrder(t)!], [2, 1, 0, 3]);
});

test('startOrder: appends are merged in (after the end, or among the old rows); a moved start rebuilds', () => {
  const t = new CallTable();
  for (let i = 0; i < 50; i++) t.start(start(`id-${String(i).padStart(3, '0')}`, (i * 7919) % 100));
  const first = startOrder(t)!;
  assert.deepEqual([...first], expected(t));
  assert.equal(startOrder(t), first, 'unchanged table: the same order object');
  t.start(start('late', 1000));
  t.start(start('later', 1001));
  assert.deepEqual([...startOrder(t)!], expected(t));
  t.start(start('early', -5));
  t.start(start('id-0005b', 35));
  assert.deepEqual([...startOrder(t)!], expected(t));
  // A repeated start moves an existing row.
  t.start(start('late', -100));
  assert.deepEqual([...startOrder(t)!], expected(t));
  assert.equal(startOrder(t)![0], t.rowOf('late'));
});

test('startOrder: a row without a start time means no index (the sort decides NULL placement)', () => {
  const t = new CallTable();
  t.start(start('a', 1));
  assert.deepEqual([...startOrder(t)!], [0]);
  t.start(start('b', NaN));
  assert.equal(startOrder(t), null);
});
