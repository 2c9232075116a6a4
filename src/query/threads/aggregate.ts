/**
 * Per-thread statistics over turn calls (semantics.md#threads, semantics.md#threads-deleted).
 *
 * A turn is a call whose id equals its turn_id (semantics.md#threads-turns); the CallTable keeps
 * those per thread in `turnsByThread` (null and empty thread ids are never indexed,
 * semantics.md#threads-grouping), so a query reads only turn rows, never the whole project. Deleted
 * turns are invisible (semantics.md#threads-deleted). Only turns whose started_at lies strictly
 * inside (after, before) count (semantics.md#threads-window).
 */
import { floorMillis } from '../../core/datetime.ts';
import type { CallTable } from '../../store/call-table.ts';
import { linearQuantile, sortPrefix } from './percentile.ts';

/** The statistics of one thread, datetimes in µs. */
export interface ThreadStats {
  thread_id: string;
  turn_count: number;
  /** Earliest turn start. */
  start_time: number;
  /** Latest turn end; NaN when no counted turn has ended. */
  last_updated: number;
  first_turn_id: string;
  /** Id of the turn with the latest end; null when no counted turn has ended. */
  last_turn_id: string | null;
  /** Percentiles of finished turns' whole-ms durations; null when none finished. */
  p50_turn_duration_ms: number | null;
  p99_turn_duration_ms: number | null;
}

export interface TurnWindow {
  /** Strict bounds on started_at in µs; null = unbounded. */
  after_us: number | null;
  before_us: number | null;
}

/**
 * semantics.md#threads-durations: ClickHouse `dateDiff('millisecond', start, end)` counts
 * millisecond boundaries crossed: floor(end in ms) − floor(start in ms), not the exact difference
 * truncated.
 */
export function turnDurationMs(startUs: number, endUs: number): number {
  return floorMillis(endUs) - floorMillis(startUs);
}

/**
 * Statistics of one thread's turns, or null when no turn falls in the window. Ties on start
 * (first_turn_id) and end (last_turn_id) go to the turn written first; production leaves them
 * unspecified (semantics.md#threads-aggregates).
 */
function threadStats(
  calls: CallTable,
  threadId: string,
  turnRows: readonly number[],
  window: TurnWindow,
  rules: ThreadRules = TQ_THREAD_RULES,
): ThreadStats | null {
  const { after_us: after, before_us: before } = window;
  const started = calls.startedAt.data;
  const ended = calls.endedAt.data;
  const deleted = calls.deletedAt.data;
  const skipDeleted = !rules.countDeletedTurns;
  let count = 0;
  let startTime = Infinity, firstRow = -1;
  let lastUpdated = -Infinity, lastRow = -1;
  if (durations.length < turnRows.length) durations = new Float64Array(Math.max(turnRows.length, durations.length * 2));
  let finished = 0;
  for (let i = 0; i < turnRows.length; i++) {
    const row = turnRows[i];
    if (skipDeleted && deleted[row] === deleted[row]) continue; // not NaN: deleted
    const start = started[row];
    if ((after !== null && !(start > after)) || (before !== null && !(start < before))) continue;
    count++;
    if (start < startTime) {
      startTime = start;
      firstRow = row;
    }
    const end = ended[row];
    if (end !== end) continue; // NaN: still running
    if (end > lastUpdated) {
      lastUpdated = end;
      lastRow = row;
    }
    durations[finished++] = turnDurationMs(start, end);
  }
  if (count === 0) return null;
  sortPrefix(durations, finished);
  return {
    thread_id: threadId,
    turn_count: count,
    start_time: startTime,
    last_updated: lastRow < 0 ? NaN : lastUpdated,
    first_turn_id: calls.id(firstRow),
    last_turn_id: lastRow < 0 ? null : calls.id(lastRow),
    p50_turn_duration_ms: finished === 0 ? null : linearQuantile(durations, 0.5, finished),
    p99_turn_duration_ms: finished === 0 ? null : linearQuantile(durations, 0.99, finished),
  };
}

/** Scratch for one thread's turn durations, reused across threads (sorted in place). */
let durations = new Float64Array(1024);

/**
 * Where tq's thread rules differ from production's on purpose (semantics.md#threads,
 * semantics.md#threads-deleted, semantics.md#deviations). tq's own rules are TQ_THREAD_RULES;
 * PRODUCTION_THREAD_RULES reproduce production's defects, so that the conformance corpus can prove
 * which cases depend on the difference (their tag `deviates-from-production`).
 */
export interface ThreadRules {
  /** Production's threads SQL has no `deleted_at` condition (semantics.md#threads-deleted). */
  countDeletedTurns: boolean;
  /**
   * Production drops threads with no finished turn after LIMIT/OFFSET (semantics.md#threads,
   * semantics.md#threads-unfinished).
   */
  dropUnfinishedAfterPaging: boolean;
}
export const TQ_THREAD_RULES: ThreadRules = { countDeletedTurns: false, dropUnfinishedAfterPaging: false };
export const PRODUCTION_THREAD_RULES: ThreadRules = { countDeletedTurns: true, dropUnfinishedAfterPaging: true };

/** Turn rows of the empty thread id, which the turn index leaves out (it is named explicitly only). */
function emptyIdTurns(calls: CallTable): number[] {
  return (calls.byThread.get('') ?? []).filter((row) => calls.turnId(row) === calls.id(row));
}

/**
 * Statistics of every thread to report: the listed ids (when given) or all indexed threads.
 * Null thread ids never form a thread; the empty id `""` does only when `thread_ids` names it
 * (semantics.md#threads: production's `thread_id != ''` guard applies without a `thread_ids` list).
 * Threads none of whose counted turns has ended are left out here, before any paging
 * (semantics.md#threads; production drops them after LIMIT, semantics.md#threads-unfinished),
 * unless the rules keep them for later.
 */
export function collectThreads(
  calls: CallTable,
  threadIds: readonly string[] | null,
  window: TurnWindow,
  rules: ThreadRules = TQ_THREAD_RULES,
): ThreadStats[] {
  const names: string[] = [];
  const turnLists: Array<readonly number[]> = [];
  if (threadIds === null) {
    calls.turnsByThread.forEach((rows, threadId) => {
      names.push(threadId);
      turnLists.push(rows);
    });
  } else {
    for (const threadId of threadIds) {
      const rows = threadId === '' ? emptyIdTurns(calls) : calls.turnsByThread.get(threadId);
      if (rows === undefined || rows.length === 0) continue;
      names.push(threadId);
      turnLists.push(rows);
    }
  }
  const out: ThreadStats[] = [];
  const keepUnfinished = rules.dropUnfinishedAfterPaging;
  for (let i = 0; i < names.length; i++) {
    if (i % TOUCH_AHEAD === 0) touchTurns(calls, turnLists, i + TOUCH_AHEAD, i + 2 * TOUCH_AHEAD);
    const stats = threadStats(calls, names[i], turnLists[i], window, rules);
    if (stats !== null && (stats.last_turn_id !== null || keepUnfinished)) out.push(stats);
  }
  return out;
}

/** Threads whose turns are read ahead of the one being aggregated (see touchTurns). */
const TOUCH_AHEAD = 16;
/** Where touchTurns leaves its sum, so that its reads are not optimised away. */
let touched = 0;

/**
 * Reads the columns of the turns of threads [from, to) without using them: the reads are
 * independent, so the CPU overlaps their cache misses, where aggregating thread by thread would
 * wait for each in turn (at a million calls a thread's turns are scattered over the columns).
 */
function touchTurns(calls: CallTable, turnLists: ReadonlyArray<readonly number[]>, from: number, to: number): void {
  const started = calls.startedAt.data, ended = calls.endedAt.data, deleted = calls.deletedAt.data;
  let sum = 0;
  const end = Math.min(to, turnLists.length);
  for (let i = from; i < end; i++) {
    const rows = turnLists[i];
    for (let j = 0; j < rows.length; j++) {
      const row = rows[j];
      sum += started[row] + ended[row] + deleted[row] + calls.id(row).length;
    }
  }
  touched = sum;
}
