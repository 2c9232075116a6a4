/**
 * Pages in (started_at, id) order, each key asc or desc, as walks of the table's start-order
 * index: rows are tested in order until `offset + limit` have passed, so the UI's newest-first
 * pages (`started_at desc`, then `id` asc: semantics.md#calls-sort-tiebreak) and deep OFFSETs
 * touch a few thousand rows instead of sorting every match. The result is the same as
 * filtering and then sorting by those two keys (ids are unique: the order is total).
 */
import type { CallTable } from '../../store/call-table.ts';
import { hasDeletedRows, rootStartOrder, startOrder } from '../../store/start-order.ts';
import type { FilterPlan } from './filter.ts';
import type { SortTerm } from './request.ts';
import { windowRun, type StartWindow } from './start-window.ts';

/** Below this share of the table, an index candidate list is cheaper to sort than to walk past. */
const WALK_MIN_CANDIDATE_SHARE = 1 / 32;

/** True when the effective order is exactly (started_at, id), in any directions. */
export function isStartOrder(terms: readonly SortTerm[]): boolean {
  return terms.length === 2 && terms[0].field === 'started_at' && terms[1].field === 'id';
}

/**
 * Maps a position of the walk to a position of the ascending index. The walk visits the index
 * forwards (`started_at` asc) or backwards (desc); when `id` runs the other way, each run of
 * equal start times is visited in reverse, so position p of the run [first, last] maps to
 * first + last - p. Runs are found by looking at neighbours, once per run when walked in order.
 */
function walkPosition(order: Int32Array, started: Float64Array, startDesc: boolean, idDesc: boolean): (i: number) => number {
  const n = order.length;
  if (startDesc === idDesc) return startDesc ? (i) => n - 1 - i : (i) => i;
  let first = 0, last = -1;
  return (i) => {
    const p = startDesc ? n - 1 - i : i;
    if (p < first || p > last) {
      const t = started[order[p]];
      first = p;
      while (first > 0 && started[order[first - 1]] === t) first--;
      last = p;
      while (last < n - 1 && started[order[last + 1]] === t) last++;
    }
    return first + last - p;
  };
}

/**
 * The page, or null when the walk does not apply (another order, a small candidate list, a
 * row without a start time). Trace-roots queries walk the roots' own index. The loop reads
 * the deletion column directly and calls a closure only for the remaining clauses.
 */
export function startOrderPage(
  table: CallTable,
  plan: FilterPlan,
  expr: ((row: number) => boolean | null) | null,
  terms: readonly SortTerm[],
  offset: number,
  limit: number | null,
  window: StartWindow | null = null,
): number[] | null {
  if (!isStartOrder(terms)) return null;
  if (plan.candidates !== null && plan.candidates.length < table.size * WALK_MIN_CANDIDATE_SHARE) return null;
  const index = plan.rootsOnly ? rootStartOrder(table) : startOrder(table);
  if (index === null) return null;
  // A started_at window: only its run of the index is walked (start-window.ts), and when the
  // window is the whole expression, the expression needs no evaluation.
  let order = index;
  if (window !== null) {
    const [from, to] = windowRun(index, table.startedAt.data, window);
    order = index.subarray(from, to);
    if (window.whole) expr = null;
  }
  // The residual checks every other clause, the indexed ones included: candidates only narrow.
  const residual = plan.residual;
  const opMatch = plan.opMatch;
  const opIndex = table.opIndex.data;
  const deleted = table.deletedAt.data;
  const position = walkPosition(order, table.startedAt.data, terms[0].direction === 'desc', terms[1].direction === 'desc');
  const n = order.length;
  const want = limit ?? n;
  if (plan.candidates === null && residual === null && opMatch === null && expr === null && !hasDeletedRows(table)) {
    // Every indexed row is in the result: the page is a slice of the index.
    const from = Math.min(offset, n), to = Math.min(n, offset + want);
    const out = new Array<number>(to - from);
    for (let i = from; i < to; i++) out[i - from] = order[position(i)];
    return out;
  }
  const out: number[] = [];
  let skip = offset;
  for (let i = 0; i < n && out.length < want; i++) {
    const row = order[position(i)];
    const d = deleted[row];
    if (d === d) continue; // deleted (not NaN)
    if (opMatch !== null && opMatch[opIndex[row]] !== 1) continue;
    if (residual !== null && !residual(row)) continue;
    if (expr !== null && expr(row) !== true) continue;
    if (skip > 0) skip--;
    else out.push(row);
  }
  return out;
}
