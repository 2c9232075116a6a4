/**
 * Exact percentiles with numpy's default "linear" method (semantics.md#threads-aggregates,
 * semantics.md#threads-percentiles; semantics.md#threads): sort the n values, virtual index =
 * q·(n−1), interpolate between the two neighbours. The interpolation is numpy's `_lerp`, which
 * computes from the upper neighbour when the fraction is ≥ 0.5, so results agree with numpy to the
 * last bit.
 */

/** The q-quantile (0 ≤ q ≤ 1) of the first `n` values of `sorted` (ascending, n > 0). */
export function linearQuantile(sorted: ArrayLike<number>, q: number, n = sorted.length): number {
  if (n === 0) throw new RangeError('quantile of no values');
  const virtual = (n - 1) * q;
  const below = Math.min(Math.floor(virtual), n - 1);
  const above = Math.min(below + 1, n - 1);
  const gamma = virtual - below;
  const a = sorted[below], b = sorted[above];
  const diff = b - a;
  return gamma >= 0.5 ? b - diff * (1 - gamma) : a + diff * gamma;
}

/** p50 and p99 of unsorted values (sorts a copy); null for no values. */
export function p50p99(values: readonly number[]): { p50: number; p99: number } | null {
  if (values.length === 0) return null;
  const sorted = Float64Array.from(values).sort();
  return { p50: linearQuantile(sorted, 0.5), p99: linearQuantile(sorted, 0.99) };
}

/**
 * Sorts `values[0, n)` in place into exactly TypedArray#sort's order (ascending, -0 before +0,
 * NaN last). A thread has a handful of turns: insertion sort, with no subarray to allocate,
 * until the prefix is long enough for the native sort to pay.
 */
export function sortPrefix(values: Float64Array, n: number): void {
  if (n > 24) {
    values.subarray(0, n).sort();
    return;
  }
  for (let i = 1; i < n; i++) {
    const x = values[i];
    let j = i - 1;
    while (j >= 0 && sortsBefore(x, values[j])) {
      values[j + 1] = values[j];
      j--;
    }
    values[j + 1] = x;
  }
}

/** TypedArray#sort's strict order: numbers ascending, -0 before +0, NaN after everything. */
function sortsBefore(x: number, y: number): boolean {
  if (x < y) return true;
  if (x === y) return x === 0 && 1 / x < 1 / y; // -0 before +0
  return y !== y && x === x;
}
