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
import { collectThreads, TQ_THREAD_RULES, type ThreadRules, type ThreadStats, type TurnWindow } from './aggregate.ts';
import type { CallTable } from '../../store/call-table.ts';
import { stringBytes, type DerivedCache } from '../../store/derived.ts';
import type { Store } from '../../store/store.ts';
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
  // Every thread of a project (no thread_ids) under tq's rules: the aggregate is derived data,
  // kept until the table changes; a list of threads is aggregated afresh (it reads few turns).
  const threads =
    req.thread_ids === null && rules === TQ_THREAD_RULES ? threadAggregates(engine.store).get(project.calls, req) : collectThreads(project.calls, req.thread_ids, req, rules);
  const cmp = threadsComparator(threads, req.sort_by.length > 0 ? req.sort_by : DEFAULT_ORDER);
  const offset = req.offset ?? 0;
  const k = req.limit === null ? threads.length : Math.min(threads.length, offset + req.limit);
  const page = topK(threads.length, k, cmp).slice(offset).map((i) => threads[i]);
  return rules.dropUnfinishedAfterPaging ? page.filter((t) => t.last_turn_id !== null) : page;
}

/** Aggregates kept per table: the latest few windows (least recently used goes first). */
const AGGREGATES_PER_TABLE = 4;

/**
 * Every thread's statistics per call table and turn window, in the store's derived caches
 * (per engine, counted): a table's turns change only with its version (a start, an end, a
 * delete) or its size (an appended row), so an aggregate is reused while both are the same
 * (the UI's threads view asks the same aggregate again with another sort).
 */
export class ThreadAggregates implements DerivedCache {
  private readonly tables = new Map<CallTable, { version: number; size: number; windows: Map<string, ThreadStats[]> }>();

  get(calls: CallTable, window: TurnWindow): ThreadStats[] {
    let entry = this.tables.get(calls);
    if (entry === undefined || entry.version !== calls.version || entry.size !== calls.size) {
      this.tables.set(calls, (entry = { version: calls.version, size: calls.size, windows: new Map() }));
    }
    const key = `${window.after_us ?? ''}/${window.before_us ?? ''}`;
    let threads = entry.windows.get(key);
    if (threads === undefined) {
      threads = collectThreads(calls, null, window, TQ_THREAD_RULES);
      if (entry.windows.size >= AGGREGATES_PER_TABLE) entry.windows.delete(entry.windows.keys().next().value as string);
    } else entry.windows.delete(key); // refresh its LRU position
    entry.windows.set(key, threads);
    return threads;
  }

  clear(): void {
    this.tables.clear();
  }

  bytes(): number {
    let n = 0;
    for (const entry of this.tables.values()) {
      for (const [key, threads] of entry.windows) {
        n += stringBytes(key) + 8 * threads.length;
        // Six numbers and three ids per thread, plus the object.
        for (const t of threads) n += 96 + stringBytes(t.thread_id) + stringBytes(t.first_turn_id) + (t.last_turn_id === null ? 0 : stringBytes(t.last_turn_id));
      }
    }
    return n;
  }
}

export const threadAggregates = (store: Store): ThreadAggregates => store.derived.get('threads.aggregates', () => new ThreadAggregates());
