import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { combine, kthSmallest, numericKey, primaryCandidates, topK } from './sort.ts';

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
