import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { compareStrings } from '../../core/ch/values.ts';
import { topK } from '../sort.ts';
import { deeperPrefixKey, rowComparator, rowSortValue, textPrefixKey, type RowSortValue } from './row-sort.ts';

test('semantics.md#table-sort-keys: JSON_VALUE readings: strings unquoted, booleans as words, objects/arrays and misses as ""', () => {
  const row = { s: 'x', n: 1.5, t: true, f: false, o: { a: 1 }, arr: [4, 'y'], z: null };
  assert.deepEqual(rowSortValue(row, ['s']), { present: true, text: 'x', float: null });
  assert.deepEqual(rowSortValue(row, ['n']), { present: true, text: '1.5', float: 1.5 });
  assert.deepEqual(rowSortValue(row, ['t']), { present: true, text: 'true', float: null });
  assert.deepEqual(rowSortValue(row, ['f']), { present: true, text: 'false', float: null });
  assert.deepEqual(rowSortValue(row, ['o']), { present: true, text: '', float: null });
  assert.deepEqual(rowSortValue(row, ['arr']), { present: true, text: '', float: null });
  assert.deepEqual(rowSortValue(row, ['z']), { present: false, text: 'null', float: null });
  assert.deepEqual(rowSortValue(row, ['missing']), { present: false, text: '', float: null });
  assert.deepEqual(rowSortValue(row, ['o', 'a']), { present: true, text: '1', float: 1 });
  assert.deepEqual(rowSortValue(row, ['s', 'deeper']), { present: false, text: '', float: null });
});

test('semantics.md#table-sort-keys: numeric path parts index arrays for the value only (JSONType takes them as keys)', () => {
  const row = { arr: [4, 'y'], obj: { '1': 'k' } };
  assert.deepEqual(rowSortValue(row, ['arr', '1']), { present: false, text: 'y', float: null });
  assert.deepEqual(rowSortValue(row, ['arr', '0']), { present: false, text: '4', float: 4 });
  assert.deepEqual(rowSortValue(row, ['arr', '2']), { present: false, text: '', float: null });
  assert.deepEqual(rowSortValue(row, ['obj', '1']), { present: true, text: '', float: null });
});

test('semantics.md#table-sort-keys: 1 and 1.0 read the same; numeric strings carry a float', () => {
  assert.deepEqual(rowSortValue(JSON.parse('{"a": 1.0}'), ['a']), rowSortValue({ a: 1 }, ['a']));
  assert.equal(rowSortValue({ a: '12' }, ['a']).float, 12);
  assert.equal(rowSortValue({ a: '-2.5' }, ['a']).float, -2.5);
  assert.equal(rowSortValue({ a: '1e3' }, ['a']).float, 1000);
  assert.equal(rowSortValue({ a: '12 apples' }, ['a']).float, null);
});

const v = (present: boolean, text: string, float: number | null): RowSortValue => ({ present, text, float });

function order(values: RowSortValue[], dir: 'asc' | 'desc'): number[] {
  return topK(values.length, values.length, rowComparator([values], [dir]));
}

test('semantics.md#table-sort-keys (ClickHouse NaN/NULL order): numbers, then NaN, then no float, in both directions', () => {
  const values = [v(true, 'zzz', null), v(true, 'nan', NaN), v(true, '2', 2), v(true, '1', 1), v(false, '', null)];
  assert.deepEqual(order(values, 'asc'), [3, 2, 1, 0, 4]);
  assert.deepEqual(order(values, 'desc'), [2, 3, 1, 0, 4]);
});

test('semantics.md#table-sort-missing-last: presence decides before value in both directions', () => {
  const values = [v(false, '', 100), v(true, 'a', null), v(true, '5', 5)];
  assert.deepEqual(order(values, 'asc'), [2, 1, 0]);
  assert.deepEqual(order(values, 'desc'), [2, 1, 0]);
});

test('semantics.md#table-sort-float-text: strings compare byte-wise (code points), not UTF-16 units', () => {
  // U+FF5E (in the BMP, above the surrogates) vs U+1F600 (a surrogate pair): code point order puts U+FF5E first.
  const values = [v(true, '\u{1F600}', null), v(true, '\uFF5E', null), v(true, 'Z', null), v(true, 'a', null)];
  assert.deepEqual(order(values, 'asc'), [2, 3, 1, 0]);
  assert.deepEqual(order(values, 'desc'), [0, 1, 3, 2]);
});

test('semantics.md#order-ties: equal rows keep table order in both directions', () => {
  const values = [v(true, 'x', null), v(true, 'x', null), v(true, 'x', null)];
  assert.deepEqual(order(values, 'asc'), [0, 1, 2]);
  assert.deepEqual(order(values, 'desc'), [0, 1, 2]);
});

test('textPrefixKey orders texts as compareStrings does where two keys differ (ASCII, DEL, NUL, non-ASCII, lone surrogates)', () => {
  // Texts from a few characters, so that long shared prefixes, a text that is another's
  // prefix, and units on either side of the 0x7f cut meet often.
  const unit = fc.constantFrom('a', 'b', '\u0000', '~', '\u007f', '\u0080', 'é', '\uffff', '\ud800', '\udc00', '😀', 'z');
  const text = fc.array(unit, { maxLength: 10 }).map((u) => u.join(''));
  let differed = 0;
  fc.assert(
    fc.property(text, text, (a, b) => {
      const c = compareStrings(a, b), ka = textPrefixKey(a), kb = textPrefixKey(b);
      if (c < 0) assert.ok(ka <= kb, `${JSON.stringify(a)} < ${JSON.stringify(b)}: keys ${ka} ${kb}`);
      if (c === 0) assert.equal(ka, kb);
      if (ka !== kb) differed++;
    }),
    { numRuns: 3000 },
  );
  assert.ok(differed > 1000);
  assert.ok(textPrefixKey('abcdefg') === textPrefixKey('abcdefgh'), 'seven units are read');
  assert.ok(textPrefixKey('abcdef') < textPrefixKey('abcdefg'));
  assert.ok(Number.isSafeInteger(textPrefixKey('\u007f'.repeat(7))));
});

test('deeperPrefixKey orders texts whose keys at the levels before are equal as compareStrings does (offsets in a longer text too)', () => {
  // Pairs sharing a prefix of up to 30 units, so that equal keys at levels 0..2 are common;
  // units around the 0x7f cut, NUL (which reads as a text's end), surrogates.
  const unit = fc.constantFrom('a', 'b', '\u0000', '~', '\u007f', '\u0080', 'é', '\ud800', '\udc00', '😀', 'z');
  const ascii = fc.constantFrom('a', 'b', '\u0000', '~');
  const run = (max: number, of = unit) => fc.array(of, { maxLength: max }).map((u) => u.join(''));
  // Mostly ASCII shared prefixes long enough to reach the level; some with any unit.
  const shared = fc.oneof({ arbitrary: run(30, ascii), weight: 4 }, { arbitrary: run(30), weight: 1 });
  const level = fc.integer({ min: 1, max: 3 });
  let decided = 0;
  fc.assert(
    fc.property(shared, run(9), run(9), level, run(3), run(3), (shared, tailA, tailB, l, left, right) => {
      const a = shared + tailA, b = shared + tailB;
      const key = (t: string, at: number) => (at === 0 ? textPrefixKey(t) : deeperPrefixKey(t, 0, t.length, at));
      for (let before = 0; before < l; before++) if (key(a, before) !== key(b, before)) return;
      // The same text inside a longer one reads the same.
      assert.equal(deeperPrefixKey(left + a + right, left.length, left.length + a.length, l), key(a, l));
      const c = compareStrings(a, b), ka = key(a, l), kb = key(b, l);
      if (c < 0) assert.ok(ka <= kb, `level ${l}: ${JSON.stringify(a)} < ${JSON.stringify(b)}: keys ${ka} ${kb}`);
      if (c === 0) assert.equal(ka, kb);
      if (ka !== kb) decided++;
    }),
    { numRuns: 4000 },
  );
  assert.ok(decided > 150, `${decided} pairs told apart`);
  assert.equal(deeperPrefixKey('abcdefgh', 0, 8, 1), textPrefixKey('h'));
  assert.equal(deeperPrefixKey('abcdéfgh', 0, 8, 1), 0, 'a unit of 0x7f or above before the level');
  assert.equal(deeperPrefixKey('abc', 0, 3, 1), 0, 'a text shorter than the levels before');
});
