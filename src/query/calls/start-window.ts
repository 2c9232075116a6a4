/**
 * A `started_at` window in a calls `$expr` (the UI's time range: `started_at >= a AND
 * started_at < b`), read off the expression so that the start-order indexes answer it: the
 * rows of the window are one run of the (started_at, id) index, found by binary search, so a
 * page walks only that run and a count is the distance between its ends.
 *
 * Only comparisons of the `started_at` column with a literal that reads as a time
 * (datetimeLiteralMicros, the compiler's own reading) count, and only as conjuncts of the
 * top-level `$and`; the expression still decides every row unless the window is all of it.
 */
import type { Expr } from './expr/ast.ts';
import { datetimeLiteralMicros } from './expr/compile.ts';

export interface StartWindow {
  /** Lowest start kept, µs; -Infinity when unbounded. */
  from: number;
  fromInclusive: boolean;
  /** Highest start kept, µs; Infinity when unbounded. */
  to: number;
  toInclusive: boolean;
  /** The expression is this window and nothing else: a row in it matches, no row out of it does. */
  whole: boolean;
}

const FLIPPED = { gt: 'lt', gte: 'lte', lt: 'gt', lte: 'gte', eq: 'eq' } as const;

/** The window `e` implies, or null when no conjunct bounds `started_at`. */
export function startWindow(e: Expr): StartWindow | null {
  const w: StartWindow = { from: -Infinity, fromInclusive: true, to: Infinity, toInclusive: true, whole: true };
  let bounded = false;
  const raise = (at: number, inclusive: boolean) => {
    if (at > w.from || (at === w.from && !inclusive)) [w.from, w.fromInclusive] = [at, inclusive];
  };
  const lower = (at: number, inclusive: boolean) => {
    if (at < w.to || (at === w.to && !inclusive)) [w.to, w.toInclusive] = [at, inclusive];
  };
  const visit = (x: Expr): void => {
    if ((x.op === 'and' || x.op === 'or') && x.args.length === 1) return visit(x.args[0]);
    if (x.op === 'and') return x.args.forEach(visit);
    if (x.op === 'gt' || x.op === 'gte' || x.op === 'lt' || x.op === 'lte' || x.op === 'eq') {
      const fieldLeft = x.left.op === 'getField' && x.left.path === 'started_at';
      const field = fieldLeft ? x.left : x.right;
      const other = fieldLeft ? x.right : x.left;
      const us = field.op === 'getField' && field.path === 'started_at' && other.op === 'literal' ? datetimeLiteralMicros(other.value) : null;
      if (us !== null) {
        const op = fieldLeft ? x.op : FLIPPED[x.op];
        bounded = true;
        if (op === 'gt' || op === 'gte' || op === 'eq') raise(us, op !== 'gt');
        if (op === 'lt' || op === 'lte' || op === 'eq') lower(us, op !== 'lt');
        return;
      }
    }
    w.whole = false;
  };
  visit(e);
  return bounded ? w : null;
}

/** The first position of the ascending `order` whose start is past `at` (or at it, unless `inclusive`). */
function firstAfter(order: ArrayLike<number>, started: Float64Array, at: number, inclusive: boolean): number {
  let lo = 0, hi = order.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const s = started[order[mid]];
    if (s < at || (!inclusive && s === at)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The run `[from, to)` of the (started_at, id) index `order` whose starts lie in `w`. Equal
 * starts are never split, so the run is itself such an index.
 */
export function windowRun(order: ArrayLike<number>, started: Float64Array, w: StartWindow): [number, number] {
  const from = w.from === -Infinity ? 0 : firstAfter(order, started, w.from, w.fromInclusive);
  const to = w.to === Infinity ? order.length : firstAfter(order, started, w.to, !w.toInclusive);
  return [from, Math.max(from, to)];
}
