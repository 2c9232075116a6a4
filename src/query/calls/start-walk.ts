/**
 * Pages in (started_at, id) order, asc or desc, as walks of the table's start-order index:
 * rows are tested in order until `offset + limit` have passed, so the UI's newest-first pages
 * and deep OFFSETs touch a few thousand rows instead of sorting every match. The result is the
 * same as filtering and then sorting by those two keys (ids are unique: the order is total).
 */
import type { CallTable } from '../../store/call-table.ts';
import { startOrder } from '../../store/start-order.ts';
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
 * row without a start time).
 */
export function startOrderPage(
  table: CallTable,
  plan: FilterPlan,
  expr: ((row: number) => boolean | null) | null,
  terms: readonly SortTerm[],
  offset: number,
  limit: number | null,
): number[] | null {
  const n = table.size;
  if (!isStartOrder(terms)) return null;
  if (plan.candidates !== null && plan.candidates.length < n * WALK_MIN_CANDIDATE_SHARE) return null;
  const order = startOrder(table);
  if (order === null) return null;
  // The predicate checks every clause, the indexed ones included: candidates only narrow.
  const pass = plan.predicate;
  const want = limit ?? n;
  const out: number[] = [];
  let skip = offset;
  const desc = terms[0].direction === 'desc';
  for (let i = 0; i < n && out.length < want; i++) {
    const row = order[desc ? n - 1 - i : i];
    if (!pass(row) || (expr !== null && expr(row) !== true)) continue;
    if (skip > 0) skip--;
    else out.push(row);
  }
  return out;
}
