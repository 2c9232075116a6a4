/**
 * Ordering shared by the queries: sort keys precomputed into arrays, one comparator over all
 * keys, and a bounded top-k selection when only the first `offset + limit` rows are wanted.
 */
import { compareStrings } from '../core/ch/values.ts';

/** Compares two items by position in the precomputed key arrays. */
export type PositionComparator = (a: number, b: number) => number;

/**
 * A nullable numeric key: values in the requested direction, NULLs (NaN) last in both
 * directions (ClickHouse's default, semantics.md#order-nulls-last).
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

/**
 * The `k`-th smallest (1-based) of `values`, found in O(n) on average (quickselect). The
 * array is reordered: pass a copy.
 */
export function kthSmallest(values: Float64Array, k: number): number {
  let lo = 0, hi = values.length - 1;
  const target = k - 1;
  while (lo < hi) {
    // Median of three as the pivot keeps sorted and reversed inputs linear.
    const mid = (lo + hi) >>> 1;
    const a = values[lo], b = values[mid], c = values[hi];
    const pivot = a < b ? (b < c ? b : a < c ? c : a) : a < c ? a : b < c ? c : b;
    let i = lo, j = hi;
    while (i <= j) {
      while (values[i] < pivot) i++;
      while (values[j] > pivot) j--;
      if (i <= j) {
        const t = values[i];
        values[i] = values[j];
        values[j] = t;
        i++;
        j--;
      }
    }
    if (target <= j) hi = j;
    else if (target >= i) lo = i;
    else return values[target];
  }
  return values[target];
}

/** Adds `r` at `heap[at]` to a max-heap of `at` values. */
export function heapPush(heap: Float64Array, at: number, r: number): void {
  let c = at;
  heap[c] = r;
  while (c > 0) {
    const parent = (c - 1) >> 1;
    if (heap[parent] >= heap[c]) break;
    const t = heap[parent];
    heap[parent] = heap[c];
    heap[c] = t;
    c = parent;
  }
}

/** Replaces the root of a full max-heap of `size` values by the smaller `r`. */
export function heapReplaceRoot(heap: Float64Array, size: number, r: number): void {
  heap[0] = r;
  let c = 0;
  for (;;) {
    const l = 2 * c + 1, rr = l + 1;
    let top = c;
    if (l < size && heap[l] > heap[top]) top = l;
    if (rr < size && heap[rr] > heap[top]) top = rr;
    if (top === c) return;
    const t = heap[top];
    heap[top] = heap[c];
    heap[c] = t;
    c = top;
  }
}

/**
 * Positions that can be among the first `k` under a numeric primary key (NULL/NaN last in both
 * directions), ascending: every position whose key is at most the k-th best. Rows left out
 * have at least k rows strictly ahead of them on the primary key alone, so the full
 * comparator never needs to see them. Returns null when pruning would not help.
 */
export function primaryCandidates(values: Float64Array, descending: boolean, k: number): Int32Array | null {
  const n = values.length;
  if (k >= n / 2 || k < 1) return null;
  // Ranks: smaller is better; NULL (NaN) ranks last. Computed inline, no array of them.
  const sign = descending ? -1 : 1;
  let threshold: number;
  if (k <= 4096) {
    // A max-heap of the k smallest ranks seen: most values lose to its root in one comparison.
    const heap = new Float64Array(k);
    let size = 0;
    for (let i = 0; i < n; i++) {
      const v = values[i];
      const r = v !== v ? Infinity : sign * v;
      if (size < k) heapPush(heap, size++, r);
      else if (r < heap[0]) heapReplaceRoot(heap, k, r);
    }
    threshold = heap[0];
  } else {
    const rank = new Float64Array(n);
    for (let i = 0; i < n; i++) rank[i] = values[i] !== values[i] ? Infinity : sign * values[i];
    threshold = kthSmallest(rank, k);
  }
  // NaN ranks Infinity: kept only when the threshold is Infinity.
  const keepNull = threshold === Infinity;
  let m = 0;
  for (let i = 0; i < n; i++) {
    const v = values[i];
    if (v !== v ? keepNull : sign * v <= threshold) m++;
  }
  const out = new Int32Array(m);
  for (let i = 0, j = 0; i < n; i++) {
    const v = values[i];
    if (v !== v ? keepNull : sign * v <= threshold) out[j++] = i;
  }
  return out;
}

/**
 * Positions [offset, end) of 0..n-1 in comparator order, which must be total (end it with a
 * position tie-break): a bounded heap when `end` is small against n, else two quickselects
 * (O(n) on average) and a sort of the window alone, never a sort of everything before it.
 */
export function selectWindow(n: number, offset: number, end: number, cmp: PositionComparator): number[] {
  end = Math.min(end, n);
  if (end <= offset) return [];
  if (end <= n / 8) return topK(n, end, cmp).slice(offset);
  const a = new Int32Array(n);
  for (let i = 0; i < n; i++) a[i] = i;
  if (offset > 0) nthElement(a, 0, n, offset, cmp);
  if (end < n) nthElement(a, offset, n, end, cmp);
  return Array.from(a.subarray(offset, end).sort(cmp));
}

/**
 * Reorders a[lo, hi) so that a[k] holds the element of rank k (within that range), with
 * nothing after it smaller and nothing before it larger. Hoare partitions around a median of
 * three; short ranges finish by insertion sort.
 */
export function nthElement(a: Int32Array, lo: number, hi: number, k: number, cmp: PositionComparator): void {
  let l = lo, h = hi - 1;
  while (h > l) {
    if (h - l < 16) {
      for (let i = l + 1; i <= h; i++) {
        const x = a[i];
        let j = i - 1;
        while (j >= l && cmp(a[j], x) > 0) {
          a[j + 1] = a[j];
          j--;
        }
        a[j + 1] = x;
      }
      return;
    }
    const mid = (l + h) >>> 1;
    if (cmp(a[mid], a[l]) < 0) swap(a, mid, l);
    if (cmp(a[h], a[l]) < 0) swap(a, h, l);
    if (cmp(a[h], a[mid]) < 0) swap(a, h, mid);
    const pivot = a[mid];
    let i = l, j = h;
    while (i <= j) {
      while (cmp(a[i], pivot) < 0) i++;
      while (cmp(a[j], pivot) > 0) j--;
      if (i <= j) {
        swap(a, i, j);
        i++;
        j--;
      }
    }
    if (k <= j) h = j;
    else if (k >= i) l = i;
    else return;
  }
}

function swap(a: Int32Array, i: number, j: number): void {
  const t = a[i];
  a[i] = a[j];
  a[j] = t;
}
