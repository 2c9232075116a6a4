import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StringTable } from './columns.ts';
import { StringColumn } from './string-column.ts';

/** A snapshot string table of `strings` (latin1). */
function table(strings: string[]): StringTable {
  const offsets = new Int32Array(strings.length + 1);
  strings.forEach((s, k) => (offsets[k + 1] = offsets[k] + s.length));
  return new StringTable(Buffer.from(strings.join(''), 'latin1'), offsets, 'latin1');
}

test('an array-backed column: push, get, set, isNull, size, image', () => {
  const c = new StringColumn<string | null>(true);
  c.push('a');
  c.push(null);
  c.push('b');
  c.set(0, 'c');
  assert.deepEqual([c.size, c.backing, c.get(0), c.get(1), c.get(2), c.isNull(1), c.isNull(2)], [3, 'array', 'c', null, 'b', true, false]);
  const numbered: string[] = [];
  const image = c.image((s) => numbered.push(s) - 1);
  assert.deepEqual([[...image], numbered], [[0, -1, 1], ['c', 'b']]);
});

test('a restored column makes a row string on get, and turns into the array on the first write', () => {
  const strings = table(['x', 'y', 'z']);
  const c = new StringColumn<string | null>(true);
  c.restore(Int32Array.of(2, -1, 0, 2), strings, 4);
  assert.deepEqual([c.backing, c.size, c.get(0), c.get(1), c.isNull(1), c.isNull(3)], ['snapshot', 4, 'z', null, true, false]);
  assert.deepEqual([...c.image((s) => ['x', 'y', 'z'].indexOf(s))], [2, -1, 0, 2], 'imaged without being made whole');
  assert.equal(c.backing, 'snapshot');
  c.push('w');
  assert.deepEqual([c.backing, c.size, [0, 1, 2, 3, 4].map((r) => c.get(r))], ['array', 5, ['z', null, 'x', 'z', 'w']]);
  const d = new StringColumn<string>(false);
  d.restore(Int32Array.of(1, 0), strings, 2);
  d.set(0, 'q');
  assert.deepEqual([d.backing, d.get(0), d.get(1)], ['array', 'q', 'x']);
});

test('restore checks every string number, the row count, and that the column is empty', () => {
  const strings = table(['x']);
  assert.throws(() => new StringColumn<string>(false).restore(Int32Array.of(0, -1), strings, 2), { name: 'RangeError', message: 'snapshot: string number -1 out of range in row 1' });
  assert.throws(() => new StringColumn<string | null>(true).restore(Int32Array.of(1), strings, 1), { name: 'RangeError', message: 'snapshot: string number 1 out of range in row 0' });
  assert.throws(() => new StringColumn<string | null>(true).restore(Int32Array.of(0), strings, 2), { name: 'RangeError', message: 'snapshot: a string column holds 1 rows, not 2' });
  const full = new StringColumn<string>(false);
  full.push('a');
  assert.throws(() => full.restore(Int32Array.of(0), strings, 1), { message: 'a snapshot restores into an empty column only' });
});
