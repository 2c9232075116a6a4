import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CallTable, type CallStartPart } from './call-table.ts';
import { rootStartOrder, startOrder } from './start-order.ts';

const start = (id: string, startedAt: number): CallStartPart => ({
  id, op_name: 'weave:///e/p/op/f:abc', display_name: null, trace_id: 't', parent_id: null, thread_id: null, turn_id: null,
  started_at: startedAt, attributes: {}, inputs: {}, user_id: null, run_id: null, run_step: null,
});

/** The expected order by brute force: started_at, then id by code point. */
const expected = (t: CallTable) =>
  Array.from({ length: t.size }, (_, r) => r).sort((a, b) => t.startedAt.data[a] - t.startedAt.data[b] || (t.id(a) < t.id(b) ? -1 : t.id(a) > t.id(b) ? 1 : 0));

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

/** Roots expected by brute force, in start order. */
const expectedRoots = (t: CallTable) => expected(t).filter((r) => t.parentId(r) === null);

test('start-order indexes follow writes: starts, ends, deletes, repeated starts moving a row or changing its parent, ends before starts', () => {
  const t = new CallTable();
  const withParent = (id: string, at: number, parent: string | null): CallStartPart => ({ ...start(id, at), parent_id: parent });
  for (let i = 0; i < 40; i++) t.start(withParent(`c${String(i).padStart(2, '0')}`, (i * 37) % 25, i % 4 === 0 ? null : 'c00'));
  const check = (what: string) => {
    assert.deepEqual([...startOrder(t)!], expected(t), `all rows, ${what}`);
    assert.deepEqual([...rootStartOrder(t)!], expectedRoots(t), `roots, ${what}`);
  };
  check('first build');
  // Appends, after the end and among old rows, merged into both indexes.
  t.start(withParent('late-root', 1000, null));
  t.start(withParent('mid-child', 12, 'c00'));
  t.start(withParent('mid-root', 12, null));
  check('appends');
  // An end or a delete changes no start: the same index objects stay.
  const all = startOrder(t), roots = rootStartOrder(t);
  t.end({ id: 'c05', ended_at: 99, exception: null, output: null, summary: {}, run_step_end: null });
  t.markDeleted(t.rowOf('c08')!, 5);
  assert.equal(startOrder(t), all);
  assert.equal(rootStartOrder(t), roots);
  // A repeated start (an upsert of the start) moves the row, and may make it a root or not.
  t.start(withParent('c04', -7, 'c00'));
  check('root became a child and moved first');
  t.start(withParent('c05', 500, null));
  check('child became a root and moved');
  // An end that comes before its start waits; the start then appends the row.
  t.end({ id: 'early', ended_at: 3, exception: null, output: null, summary: {}, run_step_end: null });
  t.start(withParent('early', 2, null));
  check('end before start');
  assert.ok(rootStartOrder(t)!.includes(t.rowOf('early')!));
});

test('start-order build: exact packed keys, fractional or far-apart starts (comparator sort), equal starts by id code point', () => {
  for (const starts of [
    [5, 5, 5, 1, 9, 5, 0, 5], // ties broken by id
    [0.5, 0.25, 3, 0.25], // fractional microseconds: the comparator path
    [-8e15, 8e15, 0, 8e15, -1], // a range too wide for packed keys
    [1735689602755714, 1735689602755714, 1735689602755713], // real microsecond times
  ]) {
    const t = new CallTable();
    // Ids chosen so that code point order differs from insertion order and from UTF-16 order.
    const ids = ['b', 'a', '\u{1F600}', '\uFFFF', 'aa', 'B', 'z', '0'];
    starts.forEach((at, i) => t.start(start(ids[i], at)));
    assert.deepEqual([...startOrder(t)!], bruteForce(t), JSON.stringify(starts));
  }
});

/** (started_at, id by code point) by brute force, with code points compared explicitly. */
function bruteForce(t: CallTable): number[] {
  const cp = (s: string) => Array.from(s, (c) => c.codePointAt(0)!);
  const cmpIds = (a: string, b: string) => {
    const x = cp(a), y = cp(b);
    for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i] - y[i];
    return x.length - y.length;
  };
  return Array.from({ length: t.size }, (_, r) => r).sort((a, b) => t.startedAt.data[a] - t.startedAt.data[b] || cmpIds(t.id(a), t.id(b)));
}
