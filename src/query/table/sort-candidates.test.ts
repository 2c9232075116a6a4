import assert from 'node:assert/strict';
import { test } from 'node:test';
import { selectWindow } from '../sort.ts';
import type { SortOrder } from './request.ts';
import { columnsComparator, FLOAT_NAN, FLOAT_NULL, FLOAT_NUMBER, lazySortColumns, textPrefixKey, type SortColumns } from './row-sort.ts';
import { firstKeyCandidates } from './sort-candidates.ts';

function lcg(seed: number): (n: number) => number {
  let s = seed;
  return (n) => {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    return s % n;
  };
}

/** Readings for n rows from small pools, so that groups, equal floats and equal texts meet. */
function randomColumns(rand: (n: number) => number, n: number, distinct: number): SortColumns {
  const floats = [-0, 0, Infinity, -Infinity, ...Array.from({ length: distinct }, (_, i) => i / 10 - 3)];
  const cols: SortColumns = { present: new Uint8Array(n), tier: new Uint8Array(n), float: new Float64Array(n), text: new Array<string>(n) };
  const mostlyNumbers = rand(2) === 0;
  // Out of 20 rows, how many are present: few (the first group that can supply k rows is then
  // one of the missing ones), half, or nearly all.
  const presentIn20 = [1, 10, 19][rand(3)];
  for (let i = 0; i < n; i++) {
    cols.present[i] = rand(20) < presentIn20 ? 1 : 0;
    const t = mostlyNumbers ? (rand(20) === 0 ? rand(3) : FLOAT_NUMBER) : rand(3);
    cols.tier[i] = t;
    cols.float[i] = t === FLOAT_NUMBER ? floats[rand(floats.length)] : 0;
    cols.text[i] = ['', 'a', 'b', 'null', '1'][rand(5)];
  }
  return cols;
}

/**
 * Readings with prefix keys, most rows without a float reading (so the text decides), texts
 * from a pool sharing long prefixes (equal keys, different texts) and left to be made on
 * demand from row texts for some rows.
 */
function prefixedColumns(rand: (n: number) => number, n: number, words = ['', 'a', 'b', 'abcdefgh', 'abcdefgi', 'abcdefg', 'abcdefgh~', 'é', 'éa', '\u007f', 'null', 'zz']): SortColumns {
  const rows = Array.from({ length: n }, () => ({ text: `{"v":"${words[rand(words.length)]}"}` }));
  const cols = lazySortColumns(n, rows);
  for (let i = 0; i < n; i++) {
    cols.present[i] = rand(10) < 8 ? 1 : 0;
    cols.tier[i] = rand(10) === 0 ? rand(3) : FLOAT_NULL;
    cols.float[i] = cols.tier[i] === FLOAT_NUMBER ? rand(5) : 0;
    const text = rows[i].text.slice(6, -2);
    if (rand(2) === 0) {
      cols.textFrom![i] = 6;
      cols.textTo![i] = rows[i].text.length - 2;
      cols.prefix![i] = textPrefixKey(text);
    } else {
      cols.text[i] = text;
      cols.prefix![i] = textPrefixKey(text);
    }
  }
  return cols;
}

test('pruning on the first term\'s text prefix keys never changes the window', () => {
  const rand = lcg(99);
  let prunedRuns = 0;
  for (let round = 0; round < 300; round++) {
    const n = 1 + rand(3000);
    const columns = [prefixedColumns(rand, n), randomColumns(rand, n, 1 + rand(5))];
    const { ranked } = prunedRound(rand, n, columns, round);
    if (ranked !== null) prunedRuns++;
  }
  assert.ok(prunedRuns > 50, `pruning ran in ${prunedRuns} rounds`);
});

/**
 * Texts that share their first 7, 14 or 21 units, or all but one of those, with NUL, DEL and
 * non-ASCII units where the keys cut: many tie on the first prefix key and on deeper ones.
 */
const LONG_SHARED = ['abcdefg', 'abcdefgabcdefg', 'abcdefgabcdefgh', 'abcdefgabcdefgé', 'abcdefg\u0000', 'abcdefgabcdef', 'abcdefgabcdefgabcdefgz', 'abcdefgabcdefgabcdefga', 'abcdefgabcdefgabcdefg', 'abcdef', 'abcdefgh~', 'abcdéfgh', 'abcdéfgi', 'abcdefgabcdefgabcdefgabcdefg\u007f', 'abcdefgabcdefg\u007f', 'zz'];

test('pruning texts that tie on their prefix keys (refined on deeper keys) never changes the window', () => {
  const rand = lcg(2024);
  let refinedRuns = 0;
  for (let round = 0; round < 300; round++) {
    const n = 1 + rand(4000);
    const words = LONG_SHARED.slice(0, 2 + rand(LONG_SHARED.length - 1));
    const columns = [prefixedColumns(rand, n, words), randomColumns(rand, n, 1 + rand(5))];
    const { ranked } = prunedRound(rand, n, columns, round);
    // Refined: fewer candidates than the rows that tie with the bar on the first key alone.
    if (ranked !== null && ranked.length < n / 20) refinedRuns++;
  }
  assert.ok(refinedRuns > 10, `refined in ${refinedRuns} rounds`);
});

test('thousands of texts tying on 14 units: the deeper keys leave the full comparator a few, same window', () => {
  const rand = lcg(5);
  const n = 6000;
  const rows = Array.from({ length: n }, () => ({ text: `{"v":"upgrade upgrade ${['reset', 'refund', 'return', 'upgrade', 'a'][rand(5)]} ${rand(1000)}"}` }));
  const cols = lazySortColumns(n, rows);
  for (let i = 0; i < n; i++) {
    cols.present[i] = 1;
    cols.tier[i] = FLOAT_NULL;
    cols.textFrom![i] = 6;
    cols.textTo![i] = rows[i].text.length - 2;
    cols.prefix![i] = textPrefixKey(rows[i].text, 6, rows[i].text.length - 2);
  }
  const positions = Int32Array.from({ length: n }, (_, i) => i);
  for (const order of ['asc', 'desc'] as const) {
    const { all, pruned, ranked } = both([cols], [order], positions, 0, 100);
    assert.deepEqual(pruned, all);
    assert.ok(ranked !== null && ranked.length < 600, `${ranked?.length} candidates`);
  }
});

/**
 * One random round over `columns`: one or two terms in random orders, every position or a
 * subset (a row-digest filter, missing bodies), a random window; asserts that the window over
 * the candidates alone is the window over every position.
 */
function prunedRound(rand: (n: number) => number, n: number, columns: SortColumns[], round: number): { ranked: Int32Array | null; positions: Int32Array } {
  const terms = 1 + rand(2);
  const orders: SortOrder[] = Array.from({ length: terms }, () => (rand(2) ? 'asc' : 'desc'));
  const all = Array.from({ length: n }, (_, i) => i);
  const positions = Int32Array.from(rand(2) ? all : all.filter(() => rand(3) !== 0));
  const k = Math.min(positions.length, 1 + rand(rand(2) ? 50 : positions.length));
  const offset = rand(k + 1);
  const { all: want, pruned, ranked } = both(columns.slice(0, terms), orders, positions, offset, k);
  assert.deepEqual(pruned, want, `round ${round}: n=${n} k=${k} offset=${offset} orders=${orders}`);
  return { ranked, positions };
}

/** The window as selectWindow ranks it over every position, and over the candidates alone. */
function both(columns: SortColumns[], orders: SortOrder[], positions: Int32Array, offset: number, k: number) {
  const all = selectWindow(positions.length, offset, k, columnsComparator(columns, orders, positions)).map((j) => positions[j]);
  const ranked = firstKeyCandidates(columns[0], orders[0] === 'desc', positions, k);
  const from = ranked ?? positions;
  const pruned = selectWindow(from.length, offset, k, columnsComparator(columns, orders, from)).map((j) => from[j]);
  return { all, pruned, ranked };
}

test('pruning on the first term never changes the window (generated readings, one and two terms)', () => {
  const rand = lcg(4242);
  let prunedRuns = 0;
  for (let round = 0; round < 400; round++) {
    const n = 1 + rand(3000);
    const columns = [randomColumns(rand, n, 1 + rand(200)), randomColumns(rand, n, 1 + rand(5))];
    const { ranked, positions } = prunedRound(rand, n, columns, round);
    if (ranked !== null) {
      prunedRuns++;
      assert.ok(ranked.length < positions.length / 2);
      for (let i = 1; i < ranked.length; i++) assert.ok(ranked[i - 1] < ranked[i], 'candidates stay in table order');
    }
  }
  assert.ok(prunedRuns > 100, `pruning ran in ${prunedRuns} rounds`);
});

test('a large share of the first group (beyond the bounded heap) is selected by quickselect, same window', () => {
  const rand = lcg(7);
  const n = 30_000;
  const cols: SortColumns = { present: new Uint8Array(n).fill(1), tier: new Uint8Array(n), float: new Float64Array(n), text: new Array<string>(n).fill('') };
  for (let i = 0; i < n; i++) cols.float[i] = rand(5000) / 10;
  const positions = Int32Array.from({ length: n }, (_, i) => i);
  for (const order of ['asc', 'desc'] as const) {
    const { all, pruned, ranked } = both([cols], [order], positions, 100, 9000);
    assert.deepEqual(pruned, all);
    assert.ok(ranked !== null && ranked.length >= 9000 && ranked.length < n / 2);
  }
});

test('the groups: present numbers, then NaN, then no float; then the missing rows alike', () => {
  // One row per group, listed in reverse: the first k of the order are the first k groups.
  const n = 12;
  const cols: SortColumns = { present: new Uint8Array(n), tier: new Uint8Array(n), float: new Float64Array(n), text: new Array<string>(n).fill('') };
  const groups = [[1, FLOAT_NUMBER], [1, FLOAT_NAN], [1, FLOAT_NULL], [0, FLOAT_NUMBER], [0, FLOAT_NAN], [0, FLOAT_NULL]];
  for (let i = 0; i < n; i++) {
    const [p, t] = groups[5 - (i % 6)];
    cols.present[i] = p;
    cols.tier[i] = t;
  }
  const positions = Int32Array.from({ length: n }, (_, i) => i);
  // k = 2: the two present numbers (rows 5 and 11) are all that can make it.
  assert.deepEqual([...firstKeyCandidates(cols, false, positions, 2)!], [5, 11]);
  // k = 3: present NaN rows (4 and 10) join; both, since they tie on the first two keys.
  assert.deepEqual([...firstKeyCandidates(cols, true, positions, 3)!], [4, 5, 10, 11]);
  assert.equal(firstKeyCandidates(cols, true, positions, 6), null);
  assert.equal(firstKeyCandidates(cols, true, positions, 0), null);
});

test('rows tied with the bar that arrive after the heap is full stay candidates (their text decides)', () => {
  const n = 10_000;
  const cols: SortColumns = { present: new Uint8Array(n).fill(1), tier: new Uint8Array(n), float: new Float64Array(n).fill(9), text: new Array<string>(n).fill('m') };
  // Ten early rows fill the heap at 5; ten late rows tie with them at 5 and win on the text.
  for (let i = 0; i < 10; i++) {
    cols.float[i] = 5;
    cols.text[i] = 'z';
    cols.float[9000 + i] = 5;
    cols.text[9000 + i] = 'a';
  }
  const positions = Int32Array.from({ length: n }, (_, i) => i);
  const { all, pruned, ranked } = both([cols], ['asc'], positions, 0, 10);
  assert.deepEqual(all, Array.from({ length: 10 }, (_, i) => 9000 + i));
  assert.deepEqual(pruned, all);
  assert.equal(ranked?.length, 20);
});
