/**
 * Pages in (started_at, id) order, asc or desc, as walks of the table's start-order index:
 * rows are tested in order until `offset + limit` have passed, so the UI's newest-first pages
 * and deep OFFSETs touch a few thousand rows instead of sorting every match. The result is the
 * same as filtering and then sorting by those two keys (ids are unique: the order is total).
 */
import type { CallTable } from '../../store/call-table.ts';
import { hasDeletedRows, rootStartOrder, startOrder } from '../../store/start-order.ts';
import type { FilterPlan } from './filter.ts';
import type { SortTerm } from './request.ts';

/** Below this share of the table, an index candidate list is cheaper to sort than to walk past. */
const WALK_MIN_CANDIDATE_SHARE = 1 / 32;

/** True when the effective order is exactly (started_at, id) in one direction. */
export function isStartOrder(terms: readonly SortTerm[]): boolean {
  return terms.length === 2 && terms[0].field === 'started_at' && terms[1].field === 'id' && terms[0].direction === terms[1].direction;
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
): number[] | null {
  if (!isStartOrder(terms)) return null;
  if (plan.candidates !== null && plan.candidates.length < table.size * WALK_MIN_CANDIDATE_SHARE) return null;
  const order = plan.rootsOnly ? rootStartOrder(table) : startOrder(table);
  if (order === null) return null;
  // The residual checks every other clause, the indexed ones included: candidates only narrow.
  const residual = plan.residual;
  const deleted = table.deletedAt.data;
  const desc = terms[0].direction === 'desc';
  const n = order.length;
  const want = limit ?? n;
  if (plan.candidates === null && residual === null && expr === null && !hasDeletedRows(table)) {
    // Every indexed row is in the result: the page is a slice of the index.
    const from = Math.min(offset, n), to = Math.min(n, offset + want);
    const out = new Array<number>(to - from);
    for (let i = from; i < to; i++) out[i - from] = order[desc ? n - 1 - i : i];
    return out;
  }
  const out: number[] = [];
  let skip = offset;
  for (let i = 0; i < n && out.length < want; i++) {
    const row = order[desc ? n - 1 - i : i];
    const d = deleted[row];
    if (d === d) continue; // deleted (not NaN)
    if (residual !== null && !residual(row)) continue;
    if (expr !== null && expr(row) !== true) continue;
    if (skip > 0) skip--;
    else out.push(row);
  }
  return out;
}
