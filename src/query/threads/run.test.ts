import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { RequestContext, RouteResult } from '../../api/types.ts';
import { formatMicros, parseIsoMicros } from '../../core/datetime.ts';
import { createEngine } from '../../engine.ts';
import type { CallTable } from '../../store/call-table.ts';
import { PRODUCTION_THREAD_RULES, turnDurationMs, type ThreadStats } from './aggregate.ts';
import { parseThreadsQuery } from './request.ts';
import { queryThreads, threadsComparator } from './run.ts';
import { threadsComparatorOracle } from './run.testing.ts';
import type { ThreadSortTerm } from './request.ts';
import { THREAD_SORT_FIELD_NAMES } from './sort-fields.ts';
import { threadsRoutes, threadsStreamQueryRoute } from './route.ts';
import { errorOf } from '../../core/errors.testing.ts';

const PROJECT = 'acme/support-bot';
const T0 = parseIsoMicros('2024-05-01T12:00:00Z');
const ms = (n: number) => n * 1000;

interface CallSpec {
  id: string;
  thread?: string | null;
  /** Defaults to the call's own id (a turn); pass another id for a nested call, null for none. */
  turn?: string | null;
  /** µs offset from T0. */
  start: number;
  /** µs offset from T0; absent = still running. */
  end?: number;
  deleted?: boolean;
}

function addCalls(calls: CallTable, specs: CallSpec[]) {
  for (const s of specs) {
    const row = calls.start({
      id: s.id,
      op_name: 'weave:///acme/support-bot/op/answer:abc',
      display_name: null,
      trace_id: `trace-${s.id}`,
      parent_id: null,
      thread_id: s.thread === undefined ? 'th' : s.thread,
      turn_id: s.turn === undefined ? s.id : s.turn,
      started_at: T0 + s.start,
      attributes: {},
      inputs: {},
      user_id: null,
      run_id: null,
      run_step: null,
    });
    if (s.end !== undefined) {
      calls.end({ id: s.id, ended_at: T0 + s.end, exception: null, output: null, summary: {}, run_step_end: null });
    }
    if (s.deleted) calls.deletedAt.data[row] = T0 + ms(999_999);
  }
}

function engineWith(specs: CallSpec[]) {
  const engine = createEngine();
  addCalls(engine.store.projectForWrite(PROJECT).calls, specs);
  return engine;
}

const authorized: string[] = [];
const ctx: RequestContext = { userId: 'alice', authorize: (id) => void authorized.push(id), canRead: () => true };

function rawLines(engine: ReturnType<typeof createEngine>, body: Record<string, unknown> = {}): string[] {
  const result: RouteResult = threadsStreamQueryRoute.run(engine, { kind: 'value', value: { project_id: PROJECT, ...body } }, ctx);
  assert.equal(result.kind, 'stream');
  return [...(result as { lines: Iterable<string> }).lines];
}

interface Thread {
  thread_id: string;
  turn_count: number;
  start_time: string;
  last_updated: string;
  first_turn_id: string | null;
  last_turn_id: string | null;
  p50_turn_duration_ms: number | null;
  p99_turn_duration_ms: number | null;
}

const threads = (engine: ReturnType<typeof createEngine>, body: Record<string, unknown> = {}) =>
  rawLines(engine, body).map((l) => JSON.parse(l) as Thread);
const ids = (ts: Thread[]) => ts.map((t) => t.thread_id);
const at = (offsetUs: number) => formatMicros(T0 + offsetUs);


test('route: /threads/stream_query is exported', () => {
  assert.deepEqual(threadsRoutes.map((r) => [r.path, r.method, r.body]), [['/threads/stream_query', 'POST', 'json']]);
});

test('semantics.md#threads-line: every line carries all eight keys in schema order, floats as pydantic writes them', () => {
  const engine = engineWith([
    { id: 't1', start: 0, end: ms(100) },
    { id: 't2', start: ms(1000) + 123_456, end: ms(1200) + 123_456 },
  ]);
  authorized.length = 0;
  assert.deepEqual(rawLines(engine), [
    '{"thread_id":"th","turn_count":2,"start_time":"2024-05-01T12:00:00Z","last_updated":"2024-05-01T12:00:01.323456Z",' +
      '"first_turn_id":"t1","last_turn_id":"t2","p50_turn_duration_ms":150.0,"p99_turn_duration_ms":199.0}',
  ]);
  assert.deepEqual(authorized, [PROJECT]);
});

test('semantics.md#threads-turns: only calls with id == turn_id are turns; nested and turn-less calls do not count', () => {
  const engine = engineWith([
    { id: 'turn', start: ms(10), end: ms(20) },
    { id: 'child', turn: 'turn', start: ms(0), end: ms(500) }, // nested inside the turn: earlier start, later end
    { id: 'loose', turn: null, start: ms(1), end: ms(900) }, // carries the thread id but is no turn
  ]);
  const [t] = threads(engine);
  assert.equal(t.turn_count, 1);
  assert.equal(t.start_time, at(ms(10)));
  assert.equal(t.last_updated, at(ms(20)));
  assert.equal(t.first_turn_id, 'turn');
  assert.equal(t.last_turn_id, 'turn');
  assert.equal(t.p50_turn_duration_ms, 10);
});

test('semantics.md#threads-grouping: turns with a null or empty thread_id are dropped', () => {
  const engine = engineWith([
    { id: 'a', thread: null, start: 0, end: ms(1) },
    { id: 'b', thread: '', start: 0, end: ms(1) },
    { id: 'c', thread: 'real', start: 0, end: ms(1) },
  ]);
  assert.deepEqual(ids(threads(engine)), ['real']);
});

test('semantics.md#threads: thread_ids [""] names the empty-id thread, which then is reported (its nested calls are no turns)', () => {
  const engine = engineWith([
    { id: 'b', thread: '', start: 0, end: ms(4) },
    { id: 'b-child', thread: '', turn: 'b', start: ms(1), end: ms(2) },
    { id: 'b2', thread: '', start: ms(1), end: ms(3) },
    { id: 'c', thread: 'real', start: 0, end: ms(1) },
  ]);
  const [t, ...rest] = threads(engine, { filter: { thread_ids: [''] } });
  assert.deepEqual(rest, []);
  assert.equal(t.thread_id, '');
  assert.equal(t.turn_count, 2);
  assert.equal(t.first_turn_id, 'b');
  assert.equal(t.last_turn_id, 'b');
  assert.deepEqual(ids(threads(engine, { filter: { thread_ids: ['', 'real'] }, sort_by: [{ field: 'thread_id', direction: 'asc' }] })), ['', 'real']);
  assert.deepEqual(ids(threads(engine)), ['real']);
});

test('semantics.md#threads, semantics.md#threads-deleted as production has them: deleted turns count, unfinished threads drop out after paging', () => {
  const engine = engineWith([
    { id: 'a1', thread: 'a', start: 0, end: ms(30) },
    { id: 'a2', thread: 'a', start: ms(1), end: ms(2), deleted: true },
    { id: 'b1', thread: 'b', start: ms(5) }, // still running: sorts last (NULL last_updated), then dropped
    { id: 'c1', thread: 'c', start: 0, end: ms(20) },
  ]);
  const req = parseThreadsQuery({ project_id: PROJECT, sort_by: [{ field: 'thread_id', direction: 'asc' }], offset: 1, limit: 2 });
  const production = queryThreads(engine, req, PRODUCTION_THREAD_RULES);
  assert.deepEqual(production.map((t) => [t.thread_id, t.turn_count]), [['c', 1]]); // b was on the page, then dropped: a short page
  assert.deepEqual(queryThreads(engine, req).map((t) => [t.thread_id, t.turn_count]), [['c', 1]]);
  const all = parseThreadsQuery({ project_id: PROJECT, sort_by: [{ field: 'thread_id', direction: 'asc' }] });
  assert.deepEqual(queryThreads(engine, all, PRODUCTION_THREAD_RULES).map((t) => [t.thread_id, t.turn_count]), [['a', 2], ['c', 1]]);
  assert.deepEqual(queryThreads(engine, all).map((t) => [t.thread_id, t.turn_count]), [['a', 1], ['c', 1]]);
  const first = parseThreadsQuery({ project_id: PROJECT, sort_by: [{ field: 'thread_id', direction: 'asc' }], limit: 2 });
  assert.deepEqual(queryThreads(engine, first, PRODUCTION_THREAD_RULES).map((t) => t.thread_id), ['a']);
  assert.deepEqual(queryThreads(engine, first).map((t) => t.thread_id), ['a', 'c']);
});

test('semantics.md#threads-aggregates: start_time/first_turn_id from the earliest start; last_updated/last_turn_id from the latest end', () => {
  const engine = engineWith([
    { id: 'late-start-late-end', start: ms(50), end: ms(5000) },
    { id: 'early-start', start: ms(5), end: ms(60) },
    { id: 'mid', start: ms(20), end: ms(4000) },
  ]);
  const [t] = threads(engine);
  assert.equal(t.first_turn_id, 'early-start');
  assert.equal(t.start_time, at(ms(5)));
  assert.equal(t.last_turn_id, 'late-start-late-end');
  assert.equal(t.last_updated, at(ms(5000)));
});

test('semantics.md#threads-aggregates: unfinished turns count in turn_count and start_time, not in last_updated, last_turn_id or percentiles', () => {
  const engine = engineWith([
    { id: 'running-first', start: 0 },
    { id: 'done', start: ms(10), end: ms(40) },
    { id: 'running-last', start: ms(20) },
  ]);
  const [t] = threads(engine);
  assert.equal(t.turn_count, 3);
  assert.equal(t.start_time, at(0));
  assert.equal(t.first_turn_id, 'running-first');
  assert.equal(t.last_updated, at(ms(40)));
  assert.equal(t.last_turn_id, 'done');
  // One finished turn: both percentiles are its duration.
  assert.equal(t.p50_turn_duration_ms, 30);
  assert.equal(t.p99_turn_duration_ms, 30);
});

test('semantics.md#threads-unfinished: a thread whose turns are all running is omitted, before paging (a page is never short)', () => {
  const engine = engineWith([
    { id: 'r1', thread: 'running', start: ms(100) },
    { id: 'r2', thread: 'running', start: ms(200) },
    { id: 'd1', thread: 'done', start: 0, end: ms(1) },
  ]);
  assert.deepEqual(ids(threads(engine)), ['done']);
  // Sorted by start_time desc, 'running' would come first; limit 1 still yields 'done'.
  assert.deepEqual(ids(threads(engine, { sort_by: [{ field: 'start_time', direction: 'desc' }], limit: 1 })), ['done']);
});

test('semantics.md#threads-percentiles, semantics.md#threads-durations: durations are whole ms by boundary counting (floor each end, then subtract)', () => {
  assert.equal(turnDurationMs(999, 1000), 1); // 1 µs apart, crosses a ms boundary
  assert.equal(turnDurationMs(1000, 1999), 0); // 999 µs apart, crosses none
  assert.equal(turnDurationMs(1500, 3499), 2); // 1.999 ms apart, floor(3.499) - floor(1.5) = 2
  const engine = engineWith([{ id: 'x', start: 999, end: 1000 }]);
  assert.equal(threads(engine)[0].p50_turn_duration_ms, 1);
});

test('semantics.md#threads-percentiles: percentiles over finished turns match numpy (4 turns, unfinished ignored)', () => {
  const engine = engineWith([
    { id: 'a', start: 0, end: ms(10) },
    { id: 'b', start: ms(1), end: ms(21) },
    { id: 'c', start: ms(2), end: ms(32) },
    { id: 'open', start: ms(3) },
    { id: 'd', start: ms(4), end: ms(1004) },
  ]);
  const [t] = threads(engine);
  assert.equal(t.turn_count, 5);
  assert.equal(t.p50_turn_duration_ms, 25); // np.percentile([10, 20, 30, 1000], 50)
  assert.equal(t.p99_turn_duration_ms, 970.8999999999997); // np.percentile([10, 20, 30, 1000], 99)
});

test('semantics.md#threads-percentiles: percentiles over 100 turns match numpy', () => {
  const specs: CallSpec[] = Array.from({ length: 100 }, (_, i) => ({ id: `t${i}`, start: ms(i * 2000), end: ms(i * 2000 + (((i + 1) * (i + 1) * 37) % 997)) }));
  const [t] = threads(engineWith(specs));
  assert.equal(t.turn_count, 100);
  assert.equal(t.p50_turn_duration_ms, 452.5);
  assert.equal(t.p99_turn_duration_ms, 973.03);
});

test('semantics.md#threads-window: the window filters turns by start, strictly; a turn exactly on either bound is excluded', () => {
  const engine = engineWith([
    { id: 'on-after', start: ms(100), end: ms(150) },
    { id: 'inside1', start: ms(100) + 1, end: ms(300) },
    { id: 'inside2', start: ms(200), end: ms(210) },
    { id: 'on-before', start: ms(400), end: ms(401) },
    { id: 'outside', start: ms(500), end: ms(9000) },
  ]);
  const [t] = threads(engine, { filter: { after_datetime: at(ms(100)), before_datetime: at(ms(400)) } });
  assert.equal(t.turn_count, 2);
  assert.equal(t.first_turn_id, 'inside1');
  assert.equal(t.start_time, at(ms(100) + 1));
  assert.equal(t.last_turn_id, 'inside1');
  assert.equal(t.last_updated, at(ms(300)));
  // Partial stats: only the two inside turns (durations 200 and 10 ms).
  assert.equal(t.p50_turn_duration_ms, 105);
});

test('semantics.md#threads-window: the window does not filter whole threads by start_time/last_updated; a thread with no turn inside is gone', () => {
  const engine = engineWith([
    { id: 'a1', thread: 'spans', start: 0, end: ms(10) },
    { id: 'a2', thread: 'spans', start: ms(50), end: ms(100_000) }, // ends long after `before`
    { id: 'b1', thread: 'before-window', start: 0, end: ms(5) },
  ]);
  const out = threads(engine, { filter: { after_datetime: at(ms(1)), before_datetime: at(ms(60)) } });
  assert.deepEqual(ids(out), ['spans']);
  assert.equal(out[0].last_updated, at(ms(100_000)));
  assert.equal(out[0].turn_count, 1);
});

test('semantics.md#threads-window: one-sided windows and offsets other than Z', () => {
  const engine = engineWith([
    { id: 'a', start: 0, end: ms(1) },
    { id: 'b', start: ms(10), end: ms(11) },
  ]);
  assert.equal(threads(engine, { filter: { after_datetime: '2024-05-01T14:00:00+02:00' } })[0].first_turn_id, 'b');
  assert.equal(threads(engine, { filter: { before_datetime: '2024-05-01T12:00:00.005Z' } })[0].last_turn_id, 'a');
});

test('semantics.md#threads-sort, semantics.md#order-ties: default order is last_updated desc, ties by thread_id asc', () => {
  const engine = engineWith([
    { id: 'a', thread: 'early', start: 0, end: ms(10) },
    { id: 'b', thread: 'zeta', start: 0, end: ms(50) },
    { id: 'c', thread: 'alpha', start: ms(5), end: ms(50) },
    { id: 'd', thread: 'mid', start: 0, end: ms(30) },
  ]);
  assert.deepEqual(ids(threads(engine)), ['alpha', 'zeta', 'mid', 'early']);
  assert.deepEqual(ids(threads(engine, { sort_by: [] })), ['alpha', 'zeta', 'mid', 'early']);
});

/** Four threads with distinct values on every sortable field. */
function sortFixture() {
  return engineWith([
    // 'b': 1 turn, start 30, end 100, duration 70
    { id: 'b1', thread: 'b', start: ms(30), end: ms(100) },
    // 'a': 3 turns, start 10, end 60, durations 5, 10, 40
    { id: 'a1', thread: 'a', start: ms(10), end: ms(15) },
    { id: 'a2', thread: 'a', start: ms(20), end: ms(30) },
    { id: 'a3', thread: 'a', start: ms(20), end: ms(60) },
    // 'd': 2 turns, start 0, end 400, durations 300, 2
    { id: 'd1', thread: 'd', start: 0, end: ms(300) },
    { id: 'd2', thread: 'd', start: ms(398), end: ms(400) },
    // 'c': 4 turns, start 5, end 80, durations 1, 1, 1, 50
    { id: 'c1', thread: 'c', start: ms(5), end: ms(6) },
    { id: 'c2', thread: 'c', start: ms(7), end: ms(8) },
    { id: 'c3', thread: 'c', start: ms(9), end: ms(10) },
    { id: 'c4', thread: 'c', start: ms(30), end: ms(80) },
  ]);
}

test('semantics.md#threads-sort: sorting on each of the six fields, both directions', () => {
  const engine = sortFixture();
  const expectAsc: Record<string, string[]> = {
    thread_id: ['a', 'b', 'c', 'd'],
    turn_count: ['b', 'd', 'a', 'c'],
    start_time: ['d', 'c', 'a', 'b'],
    last_updated: ['a', 'c', 'b', 'd'],
    p50_turn_duration_ms: ['c', 'a', 'b', 'd'], // 1, 10, 70, 151
    p99_turn_duration_ms: ['a', 'c', 'b', 'd'], // 39.4, 48.529…, 70, 297.02
  };
  for (const [field, asc] of Object.entries(expectAsc)) {
    assert.deepEqual(ids(threads(engine, { sort_by: [{ field, direction: 'asc' }] })), asc, `${field} asc`);
    assert.deepEqual(ids(threads(engine, { sort_by: [{ field, direction: 'desc' }] })), [...asc].reverse(), `${field} desc`);
  }
  const byId = Object.fromEntries(threads(engine).map((t) => [t.thread_id, t]));
  assert.equal(byId.a.p99_turn_duration_ms, 39.4);
  assert.equal(byId.c.p99_turn_duration_ms, 48.52999999999999); // numpy: 48.52999999999999
  assert.equal(byId.d.p50_turn_duration_ms, 151);
  assert.equal(byId.d.p99_turn_duration_ms, 297.02);
});

test('semantics.md#threads-sort: several keys apply in order; remaining ties go to thread_id asc whatever the direction', () => {
  const engine = engineWith([
    { id: 'x1', thread: 'x', start: 0, end: ms(10) },
    { id: 'y1', thread: 'y', start: 0, end: ms(10) },
    { id: 'y2', thread: 'y', start: ms(1), end: ms(5) },
    { id: 'w1', thread: 'w', start: 0, end: ms(10) },
    { id: 'v1', thread: 'v', start: 0, end: ms(10) },
    { id: 'v2', thread: 'v', start: ms(2), end: ms(3) },
  ]);
  const sorted = ids(threads(engine, { sort_by: [{ field: 'turn_count', direction: 'desc' }, { field: 'last_updated', direction: 'desc' }] }));
  assert.deepEqual(sorted, ['v', 'y', 'w', 'x']);
});

test('semantics.md#empty-list-means-all, semantics.md#threads-filter-ids: thread_ids [] returns every thread; a list restricts; unknown ids are ignored', () => {
  const engine = sortFixture();
  assert.deepEqual(ids(threads(engine, { filter: { thread_ids: [] }, sort_by: [{ field: 'thread_id', direction: 'asc' }] })), ['a', 'b', 'c', 'd']);
  assert.deepEqual(ids(threads(engine, { filter: { thread_ids: ['d', 'nope', 'b', 'd'] }, sort_by: [{ field: 'thread_id', direction: 'asc' }] })), ['b', 'd']);
  assert.deepEqual(threads(engine, { filter: { thread_ids: [''] } }), []);
});

test('semantics.md#threads-paging: limit and offset page after sorting; limit 0 returns nothing', () => {
  const engine = sortFixture();
  const sort_by = [{ field: 'thread_id', direction: 'asc' }];
  assert.deepEqual(ids(threads(engine, { sort_by, limit: 2 })), ['a', 'b']);
  assert.deepEqual(ids(threads(engine, { sort_by, offset: 1, limit: 2 })), ['b', 'c']);
  assert.deepEqual(ids(threads(engine, { sort_by, offset: 3 })), ['d']);
  assert.deepEqual(threads(engine, { sort_by, offset: 4 }), []);
  assert.deepEqual(threads(engine, { limit: 0 }), []);
});

test('semantics.md#threads-deleted: deleted turns are invisible; a thread of only deleted turns is gone', () => {
  const engine = engineWith([
    { id: 'kept', thread: 'm', start: ms(10), end: ms(20) },
    { id: 'gone', thread: 'm', start: 0, end: ms(900), deleted: true },
    { id: 'only', thread: 'deleted-thread', start: 0, end: ms(1), deleted: true },
  ]);
  const out = threads(engine);
  assert.deepEqual(ids(out), ['m']);
  assert.equal(out[0].turn_count, 1);
  assert.equal(out[0].first_turn_id, 'kept');
  assert.equal(out[0].last_updated, at(ms(20)));
});

test('semantics.md#threads-empty: an unknown project or a project without turns answers with an empty stream', () => {
  const engine = engineWith([{ id: 'n', turn: null, start: 0, end: 1 }]);
  assert.deepEqual(rawLines(engine), []);
  const result = threadsStreamQueryRoute.run(engine, { kind: 'value', value: { project_id: 'no/such' } }, ctx);
  assert.deepEqual([...(result as { lines: Iterable<string> }).lines], []);
});

test('a later end and a repeated start are reflected (the turn index follows the call table)', () => {
  const engine = engineWith([{ id: 't', start: 0 }]);
  assert.deepEqual(threads(engine), []);
  const calls = engine.store.project(PROJECT)!.calls;
  calls.end({ id: 't', ended_at: T0 + ms(7), exception: null, output: null, summary: {}, run_step_end: null });
  assert.equal(threads(engine)[0].p50_turn_duration_ms, 7);
});

test('semantics.md#errors-before-stream: errors are thrown by run(), before any stream exists, with exact status and body', () => {
  const engine = sortFixture();
  const e = errorOf(() =>
    threadsStreamQueryRoute.run(engine, { kind: 'value', value: { project_id: PROJECT, sort_by: [{ field: 'first_turn_id', direction: 'asc' }] } }, ctx),
  );
  assert.equal(e.status, 400);
  assert.deepEqual(e.body(), {
    reason:
      "Unsupported sort field: first_turn_id. Supported fields: ['thread_id', 'turn_count', 'start_time', 'last_updated', 'p50_turn_duration_ms', 'p99_turn_duration_ms']",
  });
  const schema = errorOf(() => threadsStreamQueryRoute.run(engine, { kind: 'value', value: { project_id: PROJECT, thread_ids: [] } }, ctx));
  assert.equal(schema.status, 422);
});

test('the fused thread comparator orders exactly as one closure per term did (generated threads)', () => {
  let s = 77;
  const rand = (n: number) => {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    return s % n;
  };
  // Few distinct values, so that ties, NaN (missing) and -0 meet often.
  const num = () => [NaN, 0, -0, 1, 2.5, -3, 1e300][rand(7)];
  const threads: ThreadStats[] = Array.from({ length: 400 }, (_, i) => ({
    thread_id: ['a', 'b', 'B', 'é', '😀', ''][rand(6)] + (i % 50),
    turn_count: rand(4),
    start_time: num(),
    last_updated: num(),
    first_turn_id: 'f',
    last_turn_id: null,
    p50_turn_duration_ms: rand(3) === 0 ? null : num(),
    p99_turn_duration_ms: rand(3) === 0 ? null : num(),
  }));
  for (let round = 0; round < 60; round++) {
    const terms: ThreadSortTerm[] = Array.from({ length: 1 + rand(3) }, () => ({
      field: THREAD_SORT_FIELD_NAMES[rand(THREAD_SORT_FIELD_NAMES.length)],
      direction: rand(2) ? 'asc' : 'desc',
    }));
    const order = (cmp: (a: number, b: number) => number) => threads.map((_, i) => i).sort(cmp);
    assert.deepEqual(order(threadsComparator(threads, terms)), order(threadsComparatorOracle(threads, terms)), JSON.stringify(terms));
  }
});

test('the threads aggregate is reused while the table is unchanged, and recomputed after a start, an end or a delete', () => {
  const engine = engineWith([
    { id: 'a1', thread: 'A', start: ms(0), end: ms(10) },
    { id: 'b1', thread: 'B', start: ms(1), end: ms(5) },
  ]);
  const calls = engine.store.project(PROJECT)!.calls;
  const stats = (filter?: Record<string, unknown>) =>
    queryThreads(engine, parseThreadsQuery({ project_id: PROJECT, sort_by: [{ field: 'turn_count', direction: 'desc' }], ...(filter ? { filter } : {}) }));
  const run = (filter?: Record<string, unknown>) => stats(filter).map((t) => `${t.thread_id}:${t.turn_count}:${t.last_turn_id}`);
  const first = stats();
  assert.deepEqual(run(), ['A:1:a1', 'B:1:b1']);
  assert.equal(stats()[0], first[0], 'the same aggregate, not a second one');
  assert.ok(engine.store.derived.report()['threads.aggregates'] > 0, 'counted among the derived caches');
  addCalls(calls, [{ id: 'b2', thread: 'B', start: ms(20) }]); // a running turn: counted, not ended
  assert.deepEqual(run(), ['B:2:b1', 'A:1:a1']);
  calls.end({ id: 'b2', ended_at: T0 + ms(30), exception: null, output: null, summary: {}, run_step_end: null });
  assert.deepEqual(run(), ['B:2:b2', 'A:1:a1']);
  calls.markDeleted(calls.rowOf('b2')!, T0 + ms(40));
  assert.deepEqual(run(), ['A:1:a1', 'B:1:b1']);
  // Another window is another aggregate.
  assert.deepEqual(run({ after_datetime: formatMicros(T0 + ms(0.5)) }), ['B:1:b1']);
  assert.deepEqual(run(), ['A:1:a1', 'B:1:b1']);
});
