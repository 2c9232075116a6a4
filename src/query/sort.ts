/**
 * Ordering shared by the queries: sort keys precomputed into arrays, one comparator over all
 * keys, and a bounded top-k selection when only the first `offset + limit` rows are wanted.
 */
import { compareStrings } from './ch/values.ts';

/** Compares two items by position in the precomputed key arrays. */
export type PositionComparator = (a: number, b: number) => number;

/**
 * A nullable numeric key: values in the requested direction, NULLs (NaN) last in both
 * directions (ClickHouse's default, DECISIONS §11).
 */
export function numericKey(values: Float64Array, descending: boolean): PositionComparator {
  const sign = descending ? -1 : 1;
  return (a, b) => {
    const x = values[a], y = values[b];
    const xn = x !== x, yn = y !== y; // NaN check
    if (xn || yn) return xn === yn ? 0 : xn ? 1 : -1;
    return x < y ? -sign : x > y ? sign : 0;
  };
}

/** A nullable string key, byte-wise (code point) order, NULLs last in both directions. */
export function stringKey(values: ReadonlyArray<string | null>, descending: boolean): PositionComparator {
  const sign = descending ? -1 : 1;
  return (a, b) => {
    const x = values[a], y = values[b];
    if (x === null || y === null) return x === y ? 0 : x === null ? 1 : -1;
    return sign * compareStrings(x, y);
  };
}

/** Presence first, regardless of direction (the "exists" key of dynamic-field sorts). */
export function presenceKey(present: Uint8Array): PositionComparator {
  return (a, b) => present[b] - present[a];
}

/** Combines keys lexicographically; `tieBreak` (e.g. insertion position) decides last. */
export function combine(keys: PositionComparator[], tieBreak: PositionComparator | null): PositionComparator {
  const all = tieBreak ? [...keys, tieBreak] : keys;
  if (all.length === 1) return all[0];
  return (a, b) => {
    for (let i = 0; i < all.length; i++) {
      const c = all[i](a, b);
      if (c !== 0) return c;
    }
    return 0;
  };
}

/**
 * The first `k` positions of `0..n-1` in comparator order. Uses a bounded max-heap when k is
 * small against n (O(n log k)), a full sort otherwise. Ties keep position order as long as the
 * comparator ends with a position tie-break.
 */
export function topK(n: number, k: number, cmp: PositionComparator): number[] {
  if (k <= 0 || n === 0) return [];
  if (k >= n || k > n / 8) {
    const all = new Array<number>(n);
    for (let i = 0; i < n; i++) all[i] = i;
    all.sort(cmp);
    return k >= n ? all : all.slice(0, k);
  }
  // Max-heap of the best k seen so far: the worst of them at the root.
  const heap: number[] = [];
  const up = (i: number) => {
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (cmp(heap[i], heap[p]) <= 0) break;
      [heap[i], heap[p]] = [heap[p], heap[i]];
      i = p;
    }
  };
  const down = (i: number) => {
    for (;;) {
      const l = 2 * i + 1, r = l + 1;
      let m = i;
      if (l < heap.length && cmp(heap[l], heap[m]) > 0) m = l;
      if (r < heap.length && cmp(heap[r], heap[m]) > 0) m = r;
      if (m === i) return;
      [heap[i], heap[m]] = [heap[m], heap[i]];
      i = m;
    }
  };
  for (let i = 0; i < n; i++) {
    if (heap.length < k) {
      heap.push(i);
      up(heap.length - 1);
    } else if (cmp(i, heap[0]) < 0) {
      heap[0] = i;
      down(0);
    }
  }
  return heap.sort(cmp);
}
