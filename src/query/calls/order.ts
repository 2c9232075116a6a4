/**
 * Calls ordering (semantics.md#calls-sort, semantics.md#calls-sort-default,
 * semantics.md#order-nulls-last): default `started_at` asc then `id` asc; an implicit `id` term;
 * NULLs last both ways; dynamic JSON fields sorted by three keys (exists first, numeric value,
 * string value).
 */
import { invalidRequest } from '../../core/errors.ts';
import { compareStrings } from '../../core/ch/values.ts';
import { combine, numericKey, presenceKey, primaryCandidates, selectWindow, stringKey, type PositionComparator } from '../sort.ts';
import type { FeedbackSortJoin, FieldAccessor, FieldResolver } from './expr/fields.ts';
import type { SortTerm } from './request.ts';

const NOT_SORTABLE = new Set(['storage_size_bytes', 'total_storage_size_bytes']);

/**
 * The effective sort terms (semantics.md#calls-sort-default, semantics.md#calls-sort-tiebreak):
 * null → default; an `id` term, always ascending, is appended when absent (production's "add id
 * as secondary sort"), so `[]` orders by `id` asc.
 */
export function effectiveSortTerms(sortBy: SortTerm[] | null): SortTerm[] {
  if (sortBy === null) return [
    { field: 'started_at', direction: 'asc' },
    { field: 'id', direction: 'asc' },
  ];
  if (sortBy.some((t) => t.field === 'id')) return sortBy;
  return [...sortBy, { field: 'id', direction: 'asc' }];
}

/** Checks sort fields before any row is read: 400 for storage sizes, 422 for unknown fields. */
export function validateSortTerms(terms: SortTerm[], resolver: FieldResolver): void {
  terms.forEach((t, i) => {
    if (NOT_SORTABLE.has(t.field)) throw invalidRequest('TQ_SORT_FIELD_NOT_ALLOWED', { field: t.field }, ['body', 'sort_by', i, 'field']);
    resolver.resolve(t.field, ['body', 'sort_by', i, 'field']);
  });
}

/**
 * The first sort key's values for the pruning pass (primaryCandidates keeps positions, not the
 * values), reused by every query: a top-k over a million calls allocates no 8 MB array each time.
 */
let primaryScratch = new Float64Array(0);

/**
 * Orders `matches` by `terms` and returns the window [offset, offset + limit). Keys are
 * computed once per row into arrays; selection is a bounded top-k or a quickselect of the
 * window (sort.ts selectWindow), never a full sort of rows before the window.
 */
export function orderRows(
  matches: ArrayLike<number>,
  terms: SortTerm[],
  resolver: FieldResolver,
  offset: number,
  limit: number | null,
): number[] {
  let rows = matches;
  let n = rows.length;
  const end = limit === null ? n : Math.min(n, offset + limit);
  if (terms.length === 0 || n === 0) return Array.from({ length: Math.max(0, end - offset) }, (_, i) => rows[offset + i]);
  const join = resolver.feedbackSortJoin?.(terms.map((t) => t.field)) ?? null;
  if (join !== null) return orderJoined(rows, terms, resolver, join, offset, end);
  // With a numeric first key, rows that cannot reach the page are dropped in one linear pass
  // before any other key is computed or any comparison made (a top-100 of a million rows
  // compares about a hundred rows). The kept rows stay in insertion order.
  const first = resolver.resolve(terms[0].field);
  if ((first.kind === 'number' || first.kind === 'datetime') && end < n) {
    // Read once by primaryCandidates and dropped: a scratch reused across queries.
    if (primaryScratch.length < n) primaryScratch = new Float64Array(Math.max(n, Math.ceil(primaryScratch.length * 1.25)));
    const values = numericValues(first, rows, primaryScratch.subarray(0, n));
    const kept = primaryCandidates(values, terms[0].direction === 'desc', end);
    if (kept !== null) rows = pickRows(rows, kept);
    n = rows.length;
  }
  // A dynamic first key whose float and existence come from the stored bytes: rows are ranked
  // by (presence, number) alone and those that cannot reach the page dropped, so the text of
  // a row is read only where presence and number tie (a first use decodes no string per row).
  if (first.kind === 'json' && first.floatFromBytes === true && end < n) {
    if (primaryScratch.length < n) primaryScratch = new Float64Array(Math.max(n, Math.ceil(primaryScratch.length * 1.25)));
    const kept = primaryCandidates(presenceAndNumber(first, rows, terms[0].direction === 'desc', primaryScratch.subarray(0, n)), terms[0].direction === 'desc', end);
    if (kept !== null) rows = pickRows(rows, kept);
    n = rows.length;
  }
  const keys = sortKeys(terms, resolver, rows, n);
  // Rows that tie on every key keep insertion order (semantics.md#calls-sort-stable).
  const cmp = combine(keys, (a, b) => a - b);
  return selectWindow(n, offset, end, cmp).map((p) => rows[p]);
}

/**
 * One comparator per key of `terms` over positions 0..n-1 of `rows` (a dynamic field gives
 * three: exists, numeric value, text). `within(i, read)` wraps each read of position i (the
 * feedback join sets the joined row there).
 */
function sortKeys(
  terms: SortTerm[],
  resolver: FieldResolver,
  rows: ArrayLike<number>,
  n: number,
  within?: <T>(i: number, read: () => T) => T,
): PositionComparator[] {
  const keys: PositionComparator[] = [];
  for (const term of terms) {
    const desc = term.direction === 'desc';
    const acc = resolver.resolve(term.field);
    switch (acc.kind) {
      case 'string': {
        const vals = new Array<string | null>(n);
        for (let i = 0; i < n; i++) vals[i] = within === undefined ? acc.get(rows[i]) : within(i, () => acc.get(rows[i]));
        keys.push(stringKey(vals, desc));
        break;
      }
      case 'number':
      case 'datetime': {
        keys.push(numericKey(within === undefined ? numericValues(acc, rows) : Float64Array.from({ length: n }, (_, i) => within(i, () => acc.get(rows[i])) ?? NaN), desc));
        break;
      }
      case 'array': {
        const vals = new Array<string | null>(n);
        for (let i = 0; i < n; i++) vals[i] = JSON.stringify(within === undefined ? acc.get(rows[i]) : within(i, () => acc.get(rows[i])));
        keys.push(stringKey(vals, desc));
        break;
      }
      case 'json': {
        const present = new Uint8Array(n);
        const nums = new Float64Array(n);
        if (acc.floatFromBytes === true && within === undefined) {
          // Number and existence from the bytes; the text only where they tie (lazyTextKey).
          for (let i = 0; i < n; i++) {
            const r = rows[i];
            nums[i] = acc.float(r) ?? NaN;
            present[i] = acc.exists(r) ? 1 : 0;
          }
          keys.push(presenceKey(present), numericKey(nums, desc), lazyTextKey(acc, rows, desc));
          break;
        }
        const strs = new Array<string | null>(n);
        // The text first: it is memoised with the existence it implies, and the float cast is
        // then read from it, so a path's first use reads each row's value once, not three times.
        // One function for all rows, not a closure per row (a per-row closure costs more than
        // the memoized reads themselves, and 6x under tsx's name-keeping transform).
        const readAt = (i: number): void => {
          const r = rows[i];
          strs[i] = acc.str(r);
          present[i] = acc.exists(r) ? 1 : 0;
          nums[i] = acc.float(r) ?? NaN;
        };
        if (within === undefined) for (let i = 0; i < n; i++) readAt(i);
        else for (let i = 0; i < n; i++) within(i, () => readAt(i));
        keys.push(presenceKey(present), numericKey(nums, desc), stringKey(strs, desc));
        break;
      }
    }
  }
  return keys;
}

/**
 * A sort that reads a typed feedback field (semantics.md#calls-feedback-join): every call is
 * joined with each of its feedback rows (or with none, once, when it has none), the joined rows
 * are ordered, and a call takes the place of its first joined row, as production's feedback
 * join orders joined rows. The work is linear in the calls and their feedback rows.
 */
function orderJoined(
  matches: ArrayLike<number>,
  terms: SortTerm[],
  resolver: FieldResolver,
  join: FeedbackSortJoin,
  offset: number,
  end: number,
): number[] {
  const entryRow: number[] = [];
  const entryK: number[] = [];
  for (let i = 0; i < matches.length; i++) {
    const row = matches[i];
    for (let k = 0, c = join.count(row); k < c; k++) {
      entryRow.push(row);
      entryK.push(k);
    }
  }
  const keys = sortKeys(terms, resolver, entryRow, entryRow.length, (i, read) => join.joined(entryRow[i], entryK[i], read));
  const cmp = combine(keys, (a, b) => a - b);
  // Each call's joined rows are adjacent: keep the first of them in the sort order.
  const firsts: number[] = [];
  for (let i = 0; i < entryRow.length; ) {
    let best = i;
    let j = i + 1;
    for (; j < entryRow.length && entryRow[j] === entryRow[i]; j++) if (cmp(j, best) < 0) best = j;
    firsts.push(best);
    i = j;
  }
  return selectWindow(firsts.length, offset, end, (a, b) => cmp(firsts[a], firsts[b])).map((p) => entryRow[firsts[p]]);
}

type JsonAccessor = Extract<FieldAccessor, { kind: 'json' }>;

/**
 * One number per row ranking a dynamic key's first two parts for primaryCandidates: the float
 * reading when present with one, the worst number of the direction when present without
 * (after every number, before the absent), NaN when absent (last). Ties at the threshold are
 * kept, so ranking both unreadable kinds last only keeps more rows, never fewer.
 */
function presenceAndNumber(acc: JsonAccessor, rows: ArrayLike<number>, desc: boolean, out: Float64Array): Float64Array {
  const worst = desc ? -Infinity : Infinity;
  if (acc.presenceAndNumbers !== undefined) return acc.presenceAndNumbers(rows, worst, out);
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i];
    const f = acc.float(r);
    out[i] = !acc.exists(r) ? NaN : f === null || f !== f ? worst : f;
  }
  return out;
}

/** The text key of a dynamic field, read when two positions are compared (memoised per row). */
function lazyTextKey(acc: JsonAccessor, rows: ArrayLike<number>, desc: boolean): PositionComparator {
  const sign = desc ? -1 : 1;
  return (a, b) => sign * compareStrings(acc.str(rows[a]), acc.str(rows[b]));
}

/** A numeric key of every row (NaN for NULL): the accessor's bulk read when it has one. */
function numericValues(acc: Extract<FieldAccessor, { kind: 'number' | 'datetime' }>, rows: ArrayLike<number>, values = new Float64Array(rows.length)): Float64Array {
  const n = rows.length;
  if (acc.fill !== undefined) acc.fill(rows, values);
  else for (let i = 0; i < n; i++) values[i] = acc.get(rows[i]) ?? NaN;
  return values;
}

/** The rows at the positions `kept` (candidates of the first sort key), in that order. */
function pickRows(rows: ArrayLike<number>, kept: ArrayLike<number>): Int32Array {
  const picked = new Int32Array(kept.length);
  for (let i = 0; i < kept.length; i++) picked[i] = rows[kept[i]];
  return picked;
}
