/**
 * The thread order as it was computed before the keys were fused into one comparator: a
 * closure per term, combined, thread_id last. Kept as the oracle for run.ts's comparator.
 */
import { compareStrings } from '../../core/ch/values.ts';
import { combine, type PositionComparator } from '../sort.ts';
import type { ThreadStats } from './aggregate.ts';
import type { ThreadSortTerm } from './request.ts';
import { isTextSortField } from './sort-fields.ts';

function termComparator(threads: readonly ThreadStats[], term: ThreadSortTerm): PositionComparator {
  const sign = term.direction === 'desc' ? -1 : 1;
  const field = term.field;
  if (isTextSortField(field)) return (a, b) => sign * compareStrings(threads[a][field], threads[b][field]);
  const values = Float64Array.from(threads, (t) => t[field] ?? NaN);
  return (a, b) => {
    const x = values[a], y = values[b];
    const xn = Number.isNaN(x), yn = Number.isNaN(y);
    if (xn || yn) return xn === yn ? 0 : xn ? 1 : -1;
    return x < y ? -sign : x > y ? sign : 0;
  };
}

export function threadsComparatorOracle(threads: readonly ThreadStats[], terms: readonly ThreadSortTerm[]): PositionComparator {
  return combine(
    terms.map((t) => termComparator(threads, t)),
    (a, b) => compareStrings(threads[a].thread_id, threads[b].thread_id),
  );
}
