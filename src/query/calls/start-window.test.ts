import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createEngine } from '../../engine.ts';
import { rng } from '../../gen/generate.ts';
import type { CallStartPart } from '../../store/call-table.ts';
import { parseQuery } from './expr/parse.ts';
import { callsStreamQueryRoute } from './route.ts';
import { callsQueryStatsRoute } from './stats.ts';
import { countFromIndexes, planCallsQuery } from './run.ts';
import { parseCallsQuery } from './request.ts';
import { startWindow, windowRun } from './start-window.ts';
import { columnValues } from '../../store/call-table.testing.ts';

const P = 'e/p';
const ctx = { userId: 'u', authorize() {}, canRead: () => true };

const cmp = (op: string, a: unknown, b: unknown) => ({ [op]: [a, b] });
const start = { $getField: 'started_at' };
const lit = (v: unknown) => ({ $literal: v });
const window = (e: unknown) => startWindow(parseQuery({ $expr: e }, ['body', 'query']));

test('startWindow: started_at bounds among the top-level conjuncts, either side, times as the compiler reads them', () => {
  assert.deepEqual(window(cmp('$gte', start, lit(10))), { from: 10e6, fromInclusive: true, to: Infinity, toInclusive: true, whole: true });
  assert.deepEqual(window({ $and: [cmp('$gt', lit(20), start), cmp('$gt', start, lit('1970-01-01T00:00:05Z'))] }), {
    from: 5e6, fromInclusive: false, to: 20e6, toInclusive: false, whole: true,
  });
  // The tighter bound wins; equal bounds keep the exclusive one.
  assert.deepEqual(window({ $and: [cmp('$gte', start, lit(3)), cmp('$gt', start, lit(3)), cmp('$lte', start, lit(9)), cmp('$lt', start, lit(12))] }), {
    from: 3e6, fromInclusive: false, to: 9e6, toInclusive: true, whole: true,
  });
  assert.deepEqual(window(cmp('$eq', start, lit(7.5))), { from: 7.5e6, fromInclusive: true, to: 7.5e6, toInclusive: true, whole: true });
  // Other conjuncts leave the window a narrowing only; no started_at bound at all is no window.
  assert.equal(window({ $and: [cmp('$gte', start, lit(1)), cmp('$eq', { $getField: 'op_name' }, lit('x'))] })?.whole, false);
  assert.equal(window({ $or: [cmp('$gte', start, lit(1)), cmp('$lt', start, lit(0))] }), null);
  assert.equal(window({ $not: [cmp('$gte', start, lit(1))] }), null);
  assert.equal(window(cmp('$gte', start, lit('not a time'))), null);
  assert.equal(window(cmp('$gte', { $getField: 'ended_at' }, lit(1))), null);
});

test('windowRun: the run of the ascending index inside the window, equal starts never split', () => {
  const started = Float64Array.from([5, 1, 3, 3, 3, 9]);
  const order = Int32Array.from([1, 2, 3, 4, 0, 5]); // starts 1 3 3 3 5 9
  const w = (from: number, fi: boolean, to: number, ti: boolean) => windowRun(order, started, { from, fromInclusive: fi, to, toInclusive: ti, whole: true });
  assert.deepEqual(w(3, true, 5, true), [1, 5]);
  assert.deepEqual(w(3, false, 5, false), [4, 4]);
  assert.deepEqual(w(-Infinity, true, 3, false), [0, 1]);
  assert.deepEqual(w(4, true, Infinity, true), [4, 6]);
  assert.deepEqual(w(9, false, 1, true), [6, 6]);
});

/** 500 calls with many equal starts, a fifth of them roots, three ops; deletions on demand. */
function engineWithCalls(deleteSome: boolean) {
  const engine = createEngine();
  const t = engine.store.projectForWrite(P).calls;
  const r = rng(11);
  for (let i = 0; i < 500; i++) {
    const part: CallStartPart = {
      id: `c${Math.floor(r() * 1e6).toString(36)}-${i}`, op_name: `weave:///${P}/op/${['a', 'b', 'c'][Math.floor(r() * 3)]}:x`, display_name: null,
      trace_id: `t${i % 40}`, parent_id: r() < 0.2 ? null : 'someone', thread_id: null, turn_id: null,
      started_at: Math.floor(r() * 60) * 100_000, attributes: {}, inputs: { n: i }, user_id: null, run_id: null, run_step: null,
    };
    t.start(part);
    if (deleteSome && r() < 0.05) t.markDeleted(i, 1);
  }
  return { engine, t };
}

test('pages and counts in a started_at window (with roots, op filters, other conjuncts, deletions) equal filtering then sorting', () => {
  for (const deleteSome of [false, true]) {
    const { engine, t } = engineWithCalls(deleteSome);
    const r = rng(5);
    for (let k = 0; k < 60; k++) {
      const a = Math.floor(r() * 70) / 10, b = Math.floor(r() * 70) / 10;
      const [lo, hi] = [Math.min(a, b), Math.max(a, b)];
      const loOp = r() < 0.5 ? '$gte' : '$gt', hiOp = r() < 0.5 ? '$lte' : '$lt';
      const roots = r() < 0.5, op = r() < 0.3, extra = r() < 0.3, desc = r() < 0.5, iso = r() < 0.3;
      const time = (s: number) => lit(iso ? new Date(s * 1000).toISOString() : s);
      const conjuncts: unknown[] = [cmp(loOp, start, time(lo)), r() < 0.5 ? cmp(hiOp, start, time(hi)) : cmp(hiOp === '$lt' ? '$gt' : '$gte', time(hi), start)];
      if (extra) conjuncts.push(cmp('$gt', { $convert: { input: { $getField: 'inputs.n' }, to: 'double' } }, lit(200)));
      const filter = { ...(roots ? { trace_roots_only: true } : {}), ...(op ? { op_names: [`weave:///${P}/op/b:*`] } : {}) };
      const body = { project_id: P, filter, query: { $expr: { $and: conjuncts } } };
      const within = (row: number) => {
        const s = t.startedAt.data[row] / 1e6;
        return (loOp === '$gte' ? s >= lo : s > lo) && (hiOp === '$lte' ? s <= hi : s < hi);
      };
      const keep = (row: number) =>
        Number.isNaN(t.deletedAt.data[row]) && within(row) && (!roots || t.parentId(row) === null) && (!op || t.opName(row)!.includes('/op/b:')) && (!extra || row > 200);
      const rows = Array.from({ length: t.size }, (_, i) => i).filter(keep);
      const sign = desc ? -1 : 1;
      rows.sort((x, y) => sign * (t.startedAt.data[x] - t.startedAt.data[y]) || (t.id(x) < t.id(y) ? -1 : 1));
      const what = JSON.stringify({ body, desc, deleteSome });
      for (const [offset, limit] of [[0, 10], [3, 50], [0, 1000]] as const) {
        const res = callsStreamQueryRoute.run(engine, { kind: 'value', value: { ...body, sort_by: [{ field: 'started_at', direction: desc ? 'desc' : 'asc' }], offset, limit } }, ctx);
        assert.equal(res.kind, 'stream');
        const ids = [...(res as { lines: Iterable<string> }).lines].map((l) => (JSON.parse(l) as { id: string }).id);
        assert.deepEqual(ids, rows.slice(offset, offset + limit).map((row) => t.id(row)), what);
      }
      for (const limit of [null, 3]) {
        const res = callsQueryStatsRoute.run(engine, { kind: 'value', value: { ...body, ...(limit === null ? {} : { limit }) } }, ctx);
        assert.equal(res.kind, 'json');
        assert.deepEqual((res as { body: unknown }).body, { count: limit === null ? rows.length : Math.min(limit, rows.length), total_storage_size_bytes: null }, what);
      }
    }
  }
});

test('countFromIndexes answers roots and whole windows on a table without deletions, and nothing else', () => {
  const plan = (engine: ReturnType<typeof createEngine>, body: Record<string, unknown>) => planCallsQuery(engine, parseCallsQuery({ project_id: P, ...body }, 'svc_'), () => true);
  const live = engineWithCalls(false);
  const roots = columnValues(live.t, 'id').filter((_, row) => live.t.parentId(row) === null).length;
  assert.equal(countFromIndexes(plan(live.engine, { filter: { trace_roots_only: true } })), roots);
  assert.equal(countFromIndexes(plan(live.engine, {})), 500);
  const inWindow = Array.from(live.t.startedAt.data.subarray(0, 500)).filter((s) => s >= 1e6 && s < 3e6).length;
  assert.equal(countFromIndexes(plan(live.engine, { query: { $expr: { $and: [cmp('$gte', start, lit(1)), cmp('$lt', start, lit(3))] } } })), inWindow);
  // Not from the indexes: another conjunct, an op filter, an id filter, deletions.
  assert.equal(countFromIndexes(plan(live.engine, { query: { $expr: { $and: [cmp('$gte', start, lit(1)), cmp('$eq', { $getField: 'op_name' }, lit('x'))] } } })), null);
  assert.equal(countFromIndexes(plan(live.engine, { filter: { op_names: [`weave:///${P}/op/a:x`] } })), null);
  assert.equal(countFromIndexes(plan(live.engine, { filter: { trace_ids: ['t1'] } })), null);
  const withDeletes = engineWithCalls(true);
  assert.equal(countFromIndexes(plan(withDeletes.engine, { filter: { trace_roots_only: true } })), null);
});
