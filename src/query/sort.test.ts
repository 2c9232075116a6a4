import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { combine, kthSmallest, nthElement, numericKey, primaryCandidates, selectWindow, stringKey, topK } from './sort.ts';

const values = fc.array(fc.oneof(fc.integer({ min: -5, max: 5 }), fc.constant(NaN), fc.double({ noNaN: true, min: -10, max: 10 })), { maxLength: 200 });

test('kthSmallest agrees with sorting', () => {
  fc.assert(
    fc.property(fc.array(fc.integer({ min: -50, max: 50 }), { minLength: 1, maxLength: 300 }), fc.nat(), (xs, pick) => {
      const k = (pick % xs.length) + 1;
      const sorted = [...xs].sort((a, b) => a - b);
      assert.equal(kthSmallest(Float64Array.from(xs), k), sorted[k - 1]);
    }),
  );
});

test('pruning by the primary key keeps exactly the top k of the full comparator', () => {
  fc.assert(
    fc.property(values, fc.boolean(), fc.integer({ min: 1, max: 60 }), (xs, desc, k) => {
      const vals = Float64Array.from(xs);
      const secondary = Float64Array.from(xs.map((_, i) => (i * 7919) % 13));
      const cmp = combine([numericKey(vals, desc), numericKey(secondary, true)], (a, b) => a - b);
      const expected = topK(xs.length, k, cmp);
      const candidates = primaryCandidates(vals, desc, k);
      if (candidates === null) return; // k too large to prune: topK alone is used
      const got = topK(candidates.length, k, (a, b) => cmp(candidates[a], candidates[b])).map((j) => candidates[j]);
      assert.deepEqual(got, expected);
    }),
  );
});

test('pruning with a large k (quickselect) keeps exactly the top k', () => {
  let seed = 7;
  const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  const n = 20_000, k = 5_000;
  const vals = Float64Array.from({ length: n }, () => (rand() < 0.02 ? NaN : Math.floor(rand() * 3000)));
  const cmp = combine([numericKey(vals, false)], (a, b) => a - b);
  const candidates = primaryCandidates(vals, false, k)!;
  assert.ok(candidates.length >= k && candidates.length < n);
  const got = topK(candidates.length, k, (a, b) => cmp(candidates[a], candidates[b])).map((j) => candidates[j]);
  assert.deepEqual(got, topK(n, k, cmp));
});

/** Every position, fully sorted: what a window must be a slice of. */
const fullSort = (n: number, cmp: (a: number, b: number) => number) => Array.from({ length: n }, (_, i) => i).sort(cmp);

test('selectWindow (heap or quickselect) equals the slice of the full sort, ties, NULLs and both directions included', () => {
  fc.assert(
    fc.property(values, fc.array(fc.constantFrom('a', 'b', null, 'ab'), { maxLength: 200 }), fc.boolean(), fc.nat(250), fc.nat(250), (xs, ss, desc, from, count) => {
      const n = xs.length;
      const vals = Float64Array.from(xs);
      const strs = Array.from({ length: n }, (_, i) => ss[i % Math.max(1, ss.length)] ?? null);
      const cmp = combine([numericKey(vals, desc), stringKey(strs, !desc)], (a, b) => a - b);
      assert.deepEqual(selectWindow(n, from, from + count, cmp), fullSort(n, cmp).slice(from, from + count));
    }),
    { numRuns: 300 },
  );
});

test('nthElement puts the element of rank k at k, nothing smaller after it, nothing larger before it', () => {
  fc.assert(
    fc.property(fc.array(fc.integer({ min: 0, max: 20 }), { minLength: 1, maxLength: 300 }), fc.nat(), (xs, pick) => {
      const n = xs.length;
      const k = pick % n;
      const cmp = (a: number, b: number) => xs[a] - xs[b] || a - b;
      const a = Int32Array.from({ length: n }, (_, i) => i);
      nthElement(a, 0, n, k, cmp);
      assert.equal(a[k], fullSort(n, cmp)[k]);
      for (let i = 0; i < k; i++) assert.ok(cmp(a[i], a[k]) < 0);
      for (let i = k + 1; i < n; i++) assert.ok(cmp(a[i], a[k]) > 0);
      assert.deepEqual([...a].sort((x, y) => x - y), Array.from({ length: n }, (_, i) => i), 'a permutation');
    }),
  );
});

test('selectWindow: a deep window of a large input (quickselect path) equals the full sort', () => {
  let seed = 11;
  const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  const n = 50_000;
  const vals = Float64Array.from({ length: n }, () => (rand() < 0.05 ? NaN : Math.floor(rand() * 500)));
  const cmp = combine([numericKey(vals, true)], (a, b) => a - b);
  const full = fullSort(n, cmp);
  for (const [offset, end] of [[25_000, 25_100], [0, 30_000], [49_990, 60_000], [7, 8]]) {
    assert.deepEqual(selectWindow(n, offset, end, cmp), full.slice(offset, end), `${offset}..${end}`);
  }
});
