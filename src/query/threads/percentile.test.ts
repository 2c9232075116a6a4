import assert from 'node:assert/strict';
import { test } from 'node:test';
import { linearQuantile, p50p99, sortPrefix } from './percentile.ts';

// Expected values are numpy 2.4 `np.percentile(values, [50, 99])` (default method "linear").

test('semantics.md#threads-percentiles: one value → both percentiles are that value', () => {
  assert.deepEqual(p50p99([7]), { p50: 7, p99: 7 });
});

test('semantics.md#threads-percentiles: two values 100, 200 → 150.0 and 199.0 (the example of semantics.md#threads-percentiles)', () => {
  assert.deepEqual(p50p99([200, 100]), { p50: 150, p99: 199 });
});

test('semantics.md#threads-percentiles: four values → numpy bit-for-bit, including the upper-neighbour form of the lerp', () => {
  assert.deepEqual(p50p99([1000, 10, 30, 20]), { p50: 25, p99: 970.8999999999997 });
  // semantics.md#threads: the median of [1,1,2,3] is 1.5 (a t-digest gives 1.667).
  assert.deepEqual(p50p99([1, 1, 2, 3]), { p50: 1.5, p99: 2.9699999999999998 });
});

test('semantics.md#threads-percentiles: one hundred values', () => {
  assert.deepEqual(p50p99(Array.from({ length: 100 }, (_, i) => i + 1)), { p50: 50.5, p99: 99.01 });
  assert.deepEqual(p50p99(Array.from({ length: 100 }, (_, i) => ((i + 1) * (i + 1) * 37) % 997)), { p50: 452.5, p99: 973.03 });
  assert.deepEqual(p50p99(Array.from({ length: 100 }, (_, i) => (i * 7919) % 1000)), { p50: 490.5, p99: 978.03 });
});

test('semantics.md#threads-percentiles: twenty values with repeats', () => {
  assert.deepEqual(p50p99([3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3, 2, 3, 8, 4]), { p50: 4.5, p99: 9 });
});

test('no values → null; linearQuantile refuses an empty list', () => {
  assert.equal(p50p99([]), null);
  assert.throws(() => linearQuantile([], 0.5), RangeError);
});

test('extreme levels pick the ends', () => {
  assert.equal(linearQuantile([1, 2, 3], 0), 1);
  assert.equal(linearQuantile([1, 2, 3], 1), 3);
});

test('sortPrefix orders a prefix exactly as TypedArray#sort, leaving the rest alone', () => {
  let seed = 9;
  const rand = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed % n;
  };
  const pool = [0, -0, NaN, 1, -1, 2.5, Infinity, -Infinity, 1e300, 7];
  for (let round = 0; round < 2000; round++) {
    const n = rand(40);
    const values = Float64Array.from({ length: n + 3 }, () => pool[rand(pool.length)]);
    const want = values.slice(0, n).sort();
    const tail = values.slice(n);
    sortPrefix(values, n);
    assert.deepEqual([...values.subarray(0, n)].map((v) => Object.is(v, -0) ? '-0' : String(v)), [...want].map((v) => Object.is(v, -0) ? '-0' : String(v)));
    assert.deepEqual(values.subarray(n), tail);
  }
});

test('linearQuantile reads only the first n values when told', () => {
  const sorted = Float64Array.from([10, 20, 30, 1000, -5]);
  assert.equal(linearQuantile(sorted, 0.99, 4), linearQuantile([10, 20, 30, 1000], 0.99));
  assert.equal(linearQuantile(sorted, 0.5, 4), 25);
});
