/**
 * Which rows of a table sort can reach the first `k`, decided on the first sort term's
 * presence and float readings and its texts' prefix keys alone (row-sort.ts), in a few tight
 * passes over typed arrays, so that the full comparator (every term, texts, table order) only
 * ranks the few that can.
 *
 * The first two keys of a term put every row in one of six groups, in comparator order:
 * present before missing, and within each, float numbers, then NaN, then no float reading.
 * Rows in groups before the group G where the count reaches k are all in; rows in groups after
 * G have at least k rows strictly ahead and are out. Within G, when it holds numbers, a row
 * whose (signed) float is beyond the m-th best of G (m = what G must supply) has k rows strictly
 * ahead too; when G holds no numbers, its rows tie on both keys and a row whose (signed) text
 * prefix key is beyond the m-th best of G has k rows strictly ahead on the text. Everything
 * kept still goes through the full comparator: only rows that cannot be among the first k are
 * dropped, so the order of the result does not change.
 */
import { heapPush, heapReplaceRoot, kthSmallest } from '../sort.ts';
import { deeperPrefixKeyOf, FLOAT_NUMBER, type SortColumns } from './row-sort.ts';

/** Largest m kept in a bounded heap; above it the group's values are copied and quickselected. */
const HEAP_LIMIT = 4096;

/**
 * The table positions of `at` (ascending) that can be among the first `k` under a sort whose
 * first term reads `cols` in direction `descending`, ascending; null when pruning would not
 * help (k is a large share of the rows).
 */
export function firstKeyCandidates(cols: SortColumns, descending: boolean, at: Int32Array, k: number): Int32Array | null {
  const n = at.length;
  if (k < 1 || k >= n / 2) return null;
  const { present, tier, float } = cols;
  const sign = descending ? -1 : 1;

  // One pass counts the groups and, for the common case that the first group (present
  // numbers) holds k rows, keeps its k best signed floats in a max-heap (worst at the root).
  // The root only ever falls, so every row that ends up within the final bar was within the
  // root when it was read: those rows are noted (a few times k on most orders), sparing a
  // second pass over the table unless there are too many of them. The other groups are
  // counted in `counts`, the first in a local (an increment of one array slot per row would
  // wait on the previous one).
  const counts = [0, 0, 0, 0, 0, 0];
  let firstGroup = 0;
  const heap = new Float64Array(k <= HEAP_LIMIT ? k : 0);
  const heaped = heap.length > 0;
  let size = 0, root = Infinity;
  const noteLimit = n >> 3;
  let noted = new Int32Array(Math.min(noteLimit, 4 * k + 1024));
  let notes = 0;
  // Every position listed (no filter, no missing body): position j is row j, no lookup needed.
  const identity = n === present.length;
  for (let j = 0; j < n; j++) {
    const p = identity ? j : at[j];
    if (present[p] !== 1 || tier[p] !== FLOAT_NUMBER) {
      counts[(present[p] === 1 ? 0 : 3) + tier[p]]++;
      continue;
    }
    firstGroup++;
    if (!heaped) continue;
    const r = sign * float[p];
    if (r > root) continue;
    if (size < k) {
      heapPush(heap, size++, r);
      if (size === k) root = heap[0];
    } else if (r < root) {
      heapReplaceRoot(heap, k, r);
      root = heap[0];
    }
    if (notes < 0) continue;
    if (notes === noted.length) {
      if (notes >= noteLimit) {
        notes = -1; // too many: the second pass decides
        continue;
      }
      const grown = new Int32Array(Math.min(noteLimit, notes * 2));
      grown.set(noted);
      noted = grown;
    }
    noted[notes++] = p;
  }
  counts[0] = firstGroup;
  let g = 0, before = 0;
  while (before + counts[g] < k) before += counts[g++];

  if (g === 0 && heaped && notes >= 0) {
    const bar = heap[0];
    let kept = 0;
    for (let i = 0; i < notes; i++) if (sign * float[noted[i]] <= bar) noted[kept++] = noted[i];
    return noted.slice(0, kept);
  }

  // Within G, numbers: the m-th smallest signed float among G's rows is the bar (m = what G
  // must supply). Otherwise G's rows tie on both keys and the third (the text) decides: with
  // prefix keys (row-sort.ts textPrefixKey: a smaller signed key is a text strictly ahead), the
  // m-th smallest signed key is the bar; without them all of G is kept.
  let bar = Infinity;
  const m = k - before;
  const keys = g % 3 === FLOAT_NUMBER ? float : cols.prefix;
  if (keys !== undefined) {
    if (g === 0 && heaped) bar = heap[0];
    else bar = m <= HEAP_LIMIT ? boundedMth(cols, keys, at, g, sign, m) : copiedMth(cols, keys, at, g, sign, counts[g], m);
  }
  const within = keys ?? float;
  // Counted first, so that only a short list is ever allocated (no n-entry array per query).
  let kept = 0, tied = 0;
  for (let j = 0; j < n; j++) {
    const p = at[j];
    const pg = (present[p] === 1 ? 0 : 3) + tier[p];
    if (pg < g) kept++;
    else if (pg === g) {
      const r = sign * within[p];
      if (r < bar) kept++;
      else if (r === bar) tied++;
    }
  }
  // Texts that tie on the bar's prefix key (words sharing their first 7 letters): when there
  // are many, the next 7 units of each decide which of them can make it (refinedTies).
  const need = m - (kept - before);
  const refine = keys === cols.prefix && keys !== undefined && tied > tieLimit(need);
  if (kept + (refine ? 0 : tied) >= n / 2) return null;
  const out = new Int32Array(kept + (refine ? 0 : tied));
  const ties = refine ? new Int32Array(tied) : out;
  let i = 0, t = 0;
  for (let j = 0; j < n; j++) {
    const p = at[j];
    const pg = (present[p] === 1 ? 0 : 3) + tier[p];
    if (pg < g) out[i++] = p;
    else if (pg === g) {
      const r = sign * within[p];
      if (r < bar) out[i++] = p;
      else if (r === bar) {
        if (refine) ties[t++] = p;
        else out[i++] = p;
      }
    }
  }
  return refine ? mergeAscending(out, refinedTies(cols, ties, sign, need)) : out;
}

/** Ties left to the full comparator without refining them further. */
const tieLimit = (need: number): number => 2 * need + 64;
/** Prefix-key levels a refinement reads at most (7 units each: the first 49 units in all). */
const TIE_LEVELS = 6;

/**
 * The rows of `ties` (ascending; rows of one group whose texts tie on their prefix key, of which
 * `need` are to be chosen) that can be among the first `need` of them: at each deeper level
 * (deeperPrefixKeyOf), a row whose signed key is beyond the need-th smallest has `need` rows
 * strictly ahead on the text and is dropped; a row whose key is below it is in; the rows at it
 * tie again and go on to the next level while they are many. Ascending.
 */
export function refinedTies(cols: SortColumns, ties: Int32Array, sign: number, need: number): Int32Array {
  const sure = new Uint8Array(ties.length);
  const open = new Int32Array(ties.length);
  for (let j = 0; j < open.length; j++) open[j] = j;
  let openCount = ties.length;
  const keys = new Float64Array(ties.length);
  for (let level = 1; level <= TIE_LEVELS && openCount > tieLimit(need); level++) {
    for (let j = 0; j < openCount; j++) keys[j] = sign * deeperPrefixKeyOf(cols, ties[open[j]], level);
    const bar = kthSmallest(keys.slice(0, openCount), need);
    let next = 0, ahead = 0;
    for (let j = 0; j < openCount; j++) {
      if (keys[j] < bar) {
        sure[open[j]] = 1;
        ahead++;
      } else if (keys[j] === bar) open[next++] = open[j];
    }
    openCount = next;
    need -= ahead;
  }
  for (let j = 0; j < openCount; j++) sure[open[j]] = 1;
  let count = 0;
  for (let j = 0; j < sure.length; j++) count += sure[j];
  const out = new Int32Array(count);
  for (let j = 0, i = 0; j < sure.length; j++) if (sure[j] === 1) out[i++] = ties[j];
  return out;
}

/** The union of two ascending lists with no common entry, ascending. */
function mergeAscending(a: Int32Array, b: Int32Array): Int32Array {
  const out = new Int32Array(a.length + b.length);
  let i = 0, j = 0, o = 0;
  while (i < a.length && j < b.length) out[o++] = a[i] < b[j] ? a[i++] : b[j++];
  while (i < a.length) out[o++] = a[i++];
  while (j < b.length) out[o++] = b[j++];
  return out;
}

/** The m-th smallest signed key of the rows in group `g`, through a max-heap of the m best. */
function boundedMth(cols: SortColumns, keys: Float64Array, at: Int32Array, g: number, sign: number, m: number): number {
  const { present, tier } = cols;
  const heap = new Float64Array(m);
  let size = 0;
  for (let j = 0; j < at.length; j++) {
    const p = at[j];
    if ((present[p] === 1 ? 0 : 3) + tier[p] !== g) continue;
    const r = sign * keys[p];
    if (size < m) heapPush(heap, size++, r);
    else if (r < heap[0]) heapReplaceRoot(heap, m, r);
  }
  return heap[0];
}

/** The same as boundedMth for a large m: the group's keys copied, then quickselect. */
function copiedMth(cols: SortColumns, keys: Float64Array, at: Int32Array, g: number, sign: number, size: number, m: number): number {
  const { present, tier } = cols;
  const values = new Float64Array(size);
  let i = 0;
  for (let j = 0; j < at.length; j++) {
    const p = at[j];
    if ((present[p] === 1 ? 0 : 3) + tier[p] === g) values[i++] = sign * keys[p];
  }
  return kthSmallest(values, m);
}
