/**
 * Exact percentiles with numpy's default "linear" method (semantics.md#threads-aggregates,
 * semantics.md#threads-percentiles; semantics.md#threads): sort the n values, virtual index =
 * q·(n−1), interpolate between the two neighbours. The interpolation is numpy's `_lerp`, which
 * computes from the upper neighbour when the fraction is ≥ 0.5, so results agree with numpy to the
 * last bit.
 */

/** The q-quantile (0 ≤ q ≤ 1) of `sorted` (ascending, non-empty). */
export function linearQuantile(sorted: ArrayLike<number>, q: number): number {
  const n = sorted.length;
  if (n === 0) throw new RangeError('quantile of no values');
  const virtual = (n - 1) * q;
  const below = Math.min(Math.floor(virtual), n - 1);
  const above = Math.min(below + 1, n - 1);
  const gamma = virtual - below;
  const a = sorted[below], b = sorted[above];
  const diff = b - a;
  return gamma >= 0.5 ? b - diff * (1 - gamma) : a + diff * gamma;
}

/**
 * p50 and p99 of unsorted values; null for no values. A typed array is sorted in place (the
 * caller's scratch), anything else is copied first.
 */
export function p50p99(values: readonly number[] | Float64Array): { p50: number; p99: number } | null {
  if (values.length === 0) return null;
  const sorted = values instanceof Float64Array ? values.sort() : Float64Array.from(values).sort();
  return { p50: linearQuantile(sorted, 0.5), p99: linearQuantile(sorted, 0.99) };
}
