/**
 * /threads/stream_query end to end (semantics.md#threads, semantics.md#threads-request): aggregate
 * turns per thread, order, page, render one line per thread with every ThreadSchema key
 * (semantics.md#threads-line).
 *
 * Order: the requested keys in turn, default `last_updated` desc (semantics.md#threads-sort); ties
 * broken by thread_id ascending (semantics.md#order-ties). Reported threads always have a finished
 * turn, so no sort value is null (nulls would sort last in both directions,
 * semantics.md#order-nulls-last).
 */
import type { Engine } from '../../api/types.ts';
import { compareStrings } from '../../core/ch/values.ts';
import { topK, type PositionComparator } from '../sort.ts';
import { collectThreads, TQ_THREAD_RULES, type ThreadRules, type ThreadStats } from './aggregate.ts';
import type { ThreadSortTerm, ThreadsQuery } from './request.ts';
import { isTextSortField } from './sort-fields.ts';

export { threadLine } from './thread-line.ts';

const DEFAULT_ORDER: ThreadSortTerm[] = [{ field: 'last_updated', direction: 'desc' }];

/** One sort term read out of the threads: numbers with the direction applied, or texts. */
type TermKey = { numbers: Float64Array; texts: null; sign: number } | { numbers: null; texts: string[]; sign: number };

function termKey(threads: readonly ThreadStats[], term: ThreadSortTerm): TermKey {
  const sign = term.direction === 'desc' ? -1 : 1;
  const field = term.field;
  if (isTextSortField(field)) return { numbers: null, texts: threads.map((t) => t[field]), sign };
  // Sign folded in, so that every numeric key sorts ascending; NaN (missing) stays NaN.
  return { numbers: Float64Array.from(threads, (t) => sign * (t[field] ?? NaN)), texts: null, sign };
}

/**
 * One comparator over all terms and the thread_id tie-break, reading typed keys directly (a
 * closure per term costs more than the comparison itself on thousands of threads).
 */
export function threadsComparator(threads: readonly ThreadStats[], terms: readonly ThreadSortTerm[]): PositionComparator {
  const keys = terms.map((t) => termKey(threads, t));
  const ids = threads.map((t) => t.thread_id);
  const tieBreak = (a: number, b: number) => compareStrings(ids[a], ids[b]);
  if (keys.length === 1 && keys[0].numbers !== null) {
    const values = keys[0].numbers;
    return (a, b) => {
      const x = values[a], y = values[b];
      if (x < y) return -1;
      if (x > y) return 1;
      if (x === y) return tieBreak(a, b);
      return x === x ? -1 : y === y ? 1 : tieBreak(a, b); // NaN last in both directions
    };
  }
  return (a, b) => {
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i];
      if (k.numbers !== null) {
        const x = k.numbers[a], y = k.numbers[b];
        if (x < y) return -1;
        if (x > y) return 1;
        if (x !== y && (x === x || y === y)) return x === x ? -1 : 1; // one NaN: it goes last
      } else {
        const c = compareStrings(k.texts[a], k.texts[b]);
        if (c !== 0) return k.sign * c;
      }
    }
    return tieBreak(a, b);
  };
}

/**
 * The threads a query returns, in order (validated request). `rules` other than tq's own are
 * for the conformance corpus's deviation check only (aggregate.ts ThreadRules).
 */
export function queryThreads(engine: Engine, req: ThreadsQuery, rules: ThreadRules = TQ_THREAD_RULES): ThreadStats[] {
  if (req.limit === 0) return [];
  const project = engine.store.project(req.project_id);
  if (!project) return [];
  const threads = collectThreads(project.calls, req.thread_ids, req, rules);
  const cmp = threadsComparator(threads, req.sort_by.length > 0 ? req.sort_by : DEFAULT_ORDER);
  const offset = req.offset ?? 0;
  const k = req.limit === null ? threads.length : Math.min(threads.length, offset + req.limit);
  const page = topK(threads.length, k, cmp).slice(offset).map((i) => threads[i]);
  return rules.dropUnfinishedAfterPaging ? page.filter((t) => t.last_turn_id !== null) : page;
}
