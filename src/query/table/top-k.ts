/**
 * Ordering helpers shared by the table and threads queries: a bounded top-k selection over a
 * list of item numbers, and byte-wise (UTF-8 / code point) string comparison.
 *
 * Kept here, self-contained, so the two queries do not depend on the calls pipeline.
 */

/** Compares two items (row positions, thread slots) by precomputed keys. */
export type ItemComparator = (a: number, b: number) => number;

/**
 * The first `k` items of `items` in comparator order, sorted. `k === null` means all of them.
 * With a small `k` against the item count it keeps a max-heap of the best `k` seen so far
 * (O(n log k) comparisons, O(k) memory) instead of sorting everything.
 *
 * The comparator must be a total order (end it with a unique tie-break) for the result to be
 * deterministic; both queries end theirs with position / id.
 */
export function topK(items: ArrayLike<number>, k: number | null, cmp: ItemComparator): number[] {
  const n = items.length;
  if (n === 0 || (k !== null && k <= 0)) return [];
  if (k === null || k >= n || k > n / 8) {
    const all = Array.from(items);
    all.sort(cmp);
    return k === null || k >= n ? all : all.slice(0, k);
  }
  // Max-heap: the worst of the best k at the root.
  const heap = new Array<number>(k);
  let size = 0;
  for (let i = 0; i < n; i++) {
    const item = items[i];
    if (size < k) {
      // Sift up.
      let j = size++;
      while (j > 0) {
        const p = (j - 1) >> 1;
        if (cmp(item, heap[p]) <= 0) break;
        heap[j] = heap[p];
        j = p;
      }
      heap[j] = item;
    } else if (cmp(item, heap[0]) < 0) {
      // Replace the root and sift down.
      let j = 0;
      for (;;) {
        const l = 2 * j + 1;
        if (l >= size) break;
        const r = l + 1;
        const m = r < size && cmp(heap[r], heap[l]) > 0 ? r : l;
        if (cmp(heap[m], item) <= 0) break;
        heap[j] = heap[m];
        j = m;
      }
      heap[j] = item;
    }
  }
  heap.length = size;
  return heap.sort(cmp);
}

/**
 * Compares strings the way ClickHouse compares String values: byte-wise over UTF-8, which is
 * Unicode code point order. JavaScript's `<` compares UTF-16 code units, which differs only
 * when one side has a surrogate (a character above U+FFFF) and the other a character in
 * U+E000..U+FFFF at the first difference; that case is remapped.
 */
export function compareCodePoints(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    if (x >= 0xd800 && y >= 0xd800) {
      // Surrogates (D800..DFFF) encode code points above FFFF: move them above E000..FFFF.
      x = x < 0xe000 ? x + 0x2000 : x - 0x800;
      y = y < 0xe000 ? y + 0x2000 : y - 0x800;
    }
    return x < y ? -1 : 1;
  }
  return a.length - b.length;
}
