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
import { formatMicros } from '../../core/datetime.ts';
import { pyFloatRepr } from '../../core/json/py-float.ts';
import { compareStrings } from '../ch/values.ts';
import { combine, topK, type PositionComparator } from '../sort.ts';
import { collectThreads, TQ_THREAD_RULES, type ThreadRules, type ThreadStats } from './aggregate.ts';
import type { ThreadSortTerm, ThreadsQuery } from './request.ts';
import { isTextSortField } from './sort-fields.ts';

const DEFAULT_ORDER: ThreadSortTerm[] = [{ field: 'last_updated', direction: 'desc' }];

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

/**
 * The threads a query returns, in order (validated request). `rules` other than tq's own are
 * for the conformance corpus's deviation check only (aggregate.ts ThreadRules).
 */
export function queryThreads(engine: Engine, req: ThreadsQuery, rules: ThreadRules = TQ_THREAD_RULES): ThreadStats[] {
  if (req.limit === 0) return [];
  const project = engine.store.project(req.project_id);
  if (!project) return [];
  const threads = collectThreads(project.calls, req.thread_ids, req, rules);
  const terms = req.sort_by.length > 0 ? req.sort_by : DEFAULT_ORDER;
  const cmp = combine(
    terms.map((t) => termComparator(threads, t)),
    (a, b) => compareStrings(threads[a].thread_id, threads[b].thread_id),
  );
  const offset = req.offset ?? 0;
  const k = req.limit === null ? threads.length : Math.min(threads.length, offset + req.limit);
  const page = topK(threads.length, k, cmp).slice(offset).map((i) => threads[i]);
  return rules.dropUnfinishedAfterPaging ? page.filter((t) => t.last_turn_id !== null) : page;
}

/** Floats the way pydantic writes them (`150.0`, not `150`). */
const floatOrNull = (v: number | null) => (v === null ? 'null' : pyFloatRepr(v));
const datetimeOrNull = (us: number) => (Number.isNaN(us) ? 'null' : JSON.stringify(formatMicros(us)));

/**
 * One JSONL line; every ThreadSchema key present (semantics.md#threads-line), datetimes as
 * semantics.md#wire-datetimes.
 */
export function threadLine(t: ThreadStats): string {
  return (
    `{"thread_id":${JSON.stringify(t.thread_id)},"turn_count":${t.turn_count},` +
    `"start_time":${datetimeOrNull(t.start_time)},"last_updated":${datetimeOrNull(t.last_updated)},` +
    `"first_turn_id":${JSON.stringify(t.first_turn_id)},"last_turn_id":${t.last_turn_id === null ? 'null' : JSON.stringify(t.last_turn_id)},` +
    `"p50_turn_duration_ms":${floatOrNull(t.p50_turn_duration_ms)},"p99_turn_duration_ms":${floatOrNull(t.p99_turn_duration_ms)}}`
  );
}
