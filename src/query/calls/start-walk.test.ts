import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createEngine } from '../../engine.ts';
import { rng } from '../../gen/generate.ts';
import type { CallStartPart } from '../../store/call-table.ts';
import { planFilter } from './filter.ts';
import { callsStreamQueryRoute } from './route.ts';
import { isStartOrder, startOrderPage } from './start-walk.ts';
import { allRoutes } from '../../routes.ts';

const P = 'e/p';
const ctx = { userId: 'u', authorize() {}, canRead: () => true };

/** 400 calls: starts with many ties, a fifth of them roots, two ops, some deleted. */
function engineWithCalls() {
  const engine = createEngine();
  const t = engine.store.projectForWrite(P).calls;
  const r = rng(7);
  for (let i = 0; i < 400; i++) {
    const part: CallStartPart = {
      id: `c${Math.floor(r() * 1e6).toString(36)}-${i}`, op_name: `weave:///${P}/op/${r() < 0.3 ? 'a' : 'b'}:x`, display_name: null,
      trace_id: `t${i % 40}`, parent_id: r() < 0.2 ? null : 'someone', thread_id: null, turn_id: null,
      started_at: Math.floor(r() * 50) * 1000, attributes: {}, inputs: { n: i }, user_id: null, run_id: null, run_step: null,
    };
    t.start(part);
    if (r() < 0.05) t.markDeleted(i, 1);
  }
  return { engine, t };
}

/**
 * What the query must return: filter, sort by started_at (desc or not), then id (ascending
 * unless `idDesc`: semantics.md#calls-sort-tiebreak), page.
 */
function expectedIds(t: ReturnType<typeof engineWithCalls>['t'], keep: (row: number) => boolean, desc: boolean, offset: number, limit: number | null, idDesc = false): string[] {
  const rows = Array.from({ length: t.size }, (_, r) => r).filter((r) => !t.isDeleted(r) && keep(r));
  const byStart = (a: number, b: number) => (desc ? -1 : 1) * (t.startedAt.data[a] - t.startedAt.data[b]);
  const byId = (a: number, b: number) => (idDesc ? -1 : 1) * (t.id(a) < t.id(b) ? -1 : 1);
  rows.sort((a, b) => byStart(a, b) || byId(a, b));
  return rows.slice(offset, limit === null ? undefined : offset + limit).map((r) => t.id(r));
}

function ids(engine: ReturnType<typeof createEngine>, body: Record<string, unknown>): string[] {
  const res = callsStreamQueryRoute.run(engine, { kind: 'value', value: { project_id: P, ...body } }, ctx);
  assert.equal(res.kind, 'stream');
  return [...(res as { lines: Iterable<string> }).lines].map((l) => (JSON.parse(l) as { id: string }).id);
}

test('start-order walks: default and newest-first pages, offsets, filters and $expr give the filtered-then-sorted rows', () => {
  const { engine, t } = engineWithCalls();
  for (const desc of [false, true]) {
    const sort = desc ? { sort_by: [{ field: 'started_at', direction: 'desc' }] } : {};
    for (const [offset, limit] of [[0, 10], [0, 1], [37, 50], [0, null], [380, 100], [1000, 5]] as const) {
      const page = { ...(offset ? { offset } : {}), ...(limit !== null ? { limit } : {}) };
      assert.deepEqual(ids(engine, { ...sort, ...page }), expectedIds(t, () => true, desc, offset, limit), `all ${desc} ${offset} ${limit}`);
      assert.deepEqual(
        ids(engine, { ...sort, ...page, filter: { trace_roots_only: true } }),
        expectedIds(t, (r) => t.parentId(r) === null, desc, offset, limit),
        `roots ${desc} ${offset} ${limit}`,
      );
      assert.deepEqual(
        ids(engine, { ...sort, ...page, filter: { op_names: [`weave:///${P}/op/a:*`] } }),
        expectedIds(t, (r) => t.opName(r)!.includes('/op/a:'), desc, offset, limit),
        `op ${desc} ${offset} ${limit}`,
      );
      const expr = { $expr: { $gt: [{ $getField: 'inputs.n' }, { $literal: 200 }] } };
      assert.deepEqual(
        ids(engine, { ...sort, ...page, query: expr }),
        expectedIds(t, (r) => r > 200, desc, offset, limit),
        `expr ${desc} ${offset} ${limit}`,
      );
      // An explicit id term in either direction is walked too.
      for (const idDesc of [false, true]) {
        const both = { sort_by: [{ field: 'started_at', direction: desc ? 'desc' : 'asc' }, { field: 'id', direction: idDesc ? 'desc' : 'asc' }] };
        assert.deepEqual(ids(engine, { ...both, ...page }), expectedIds(t, () => true, desc, offset, limit, idDesc), `explicit id ${desc} ${idDesc} ${offset} ${limit}`);
        assert.deepEqual(
          ids(engine, { ...both, ...page, filter: { trace_roots_only: true } }),
          expectedIds(t, (r) => t.parentId(r) === null, desc, offset, limit, idDesc),
          `explicit id roots ${desc} ${idDesc} ${offset} ${limit}`,
        );
      }
    }
  }
});

test('startOrderPage: only (started_at, id), in any directions, and not for a small candidate list', () => {
  const { t } = engineWithCalls();
  const asc = [{ field: 'started_at', direction: 'asc' as const }, { field: 'id', direction: 'asc' as const }];
  assert.equal(isStartOrder(asc), true);
  assert.equal(isStartOrder([asc[0], { field: 'id', direction: 'desc' }]), true);
  assert.equal(isStartOrder([{ field: 'ended_at', direction: 'asc' }, asc[1]]), false);
  assert.equal(isStartOrder([asc[0]]), false);
  const all = planFilter(t, null, []);
  assert.equal(startOrderPage(t, all, null, [{ field: 'op_name', direction: 'asc' }, asc[1]], 0, 5), null);
  assert.equal(startOrderPage(t, all, null, asc, 0, 5)!.length, 5);
  // Three calls of one trace: sorting them beats walking the table.
  const oneTrace = planFilter(t, { trace_ids: ['t3'] }, []);
  assert.equal(startOrderPage(t, oneTrace, null, asc, 0, 5), null);
});

test('start-order pages of a table without deletions are slices of the index; a delete, an end or a moved start is seen by the next page', () => {
  const engine = createEngine();
  const t = engine.store.projectForWrite(P).calls;
  const part = (id: string, at: number, root: boolean): CallStartPart => ({
    id, op_name: `weave:///${P}/op/a:x`, display_name: null, trace_id: 't', parent_id: root ? null : 'r', thread_id: null, turn_id: null,
    started_at: at, attributes: {}, inputs: {}, user_id: null, run_id: null, run_step: null,
  });
  for (let i = 0; i < 60; i++) t.start(part(`c${String(i).padStart(2, '0')}`, (i * 13) % 17, i % 3 === 0));
  const check = (what: string) => {
    for (const desc of [false, true]) {
      const sort = desc ? { sort_by: [{ field: 'started_at', direction: 'desc' }] } : {};
      for (const [offset, limit] of [[0, 5], [20, 7], [55, 10], [70, 3]] as const) {
        assert.deepEqual(ids(engine, { ...sort, offset, limit }), expectedIds(t, () => true, desc, offset, limit), `${what} all ${desc} ${offset}`);
        assert.deepEqual(
          ids(engine, { ...sort, offset, limit, filter: { trace_roots_only: true } }),
          expectedIds(t, (r) => t.parentId(r) === null, desc, offset, limit),
          `${what} roots ${desc} ${offset}`,
        );
      }
    }
  };
  check('no deletions');
  t.markDeleted(t.rowOf('c03')!, 1);
  t.markDeleted(t.rowOf('c10')!, 1);
  check('two deleted');
  t.start(part('c06', -1, false)); // a root moved first and turned into a child
  t.start(part('new', 5, true));
  check('moved and appended');
});

test('pages through the write routes: starts, ends, upsert batches, repeated starts, renames and deletes keep the start-order walks exact', () => {
  const engine = createEngine();
  const routes = new Map(allRoutes().map((r) => [r.path, r]));
  const post = (path: string, body: unknown) => routes.get(path)!.run(engine, { kind: 'value', value: body }, ctx);
  const at = (s: number) => new Date(Date.UTC(2024, 0, 1) + s * 1000).toISOString();
  const start = (id: string, s: number, parent: string | null) => ({
    project_id: P, id, op_name: `weave:///${P}/op/a:x`, trace_id: 't', parent_id: parent, started_at: at(s), attributes: {}, inputs: {},
  });
  const check = (what: string) => {
    const t = engine.store.project(P)!.calls;
    for (const desc of [false, true]) {
      const sort = desc ? { sort_by: [{ field: 'started_at', direction: 'desc' }] } : {};
      for (const [offset, limit] of [[0, 4], [3, 5], [0, null]] as const) {
        const page = { offset, ...(limit === null ? {} : { limit }) };
        assert.deepEqual(ids(engine, { ...sort, ...page }), expectedIds(t, () => true, desc, offset, limit), `${what}: all ${desc} ${offset}`);
        assert.deepEqual(
          ids(engine, { ...sort, ...page, filter: { trace_roots_only: true } }),
          expectedIds(t, (r) => t.parentId(r) === null, desc, offset, limit),
          `${what}: roots ${desc} ${offset}`,
        );
      }
    }
  };
  for (let i = 0; i < 12; i++) post('/call/start', { start: start(`c${i}`, (i * 5) % 7, i % 3 === 0 ? null : 'c0') });
  check('starts');
  post('/call/end', { end: { project_id: P, id: 'c4', ended_at: at(30), output: 1, summary: {} } });
  post('/call/upsert_batch', {
    batch: [
      { mode: 'end', req: { end: { project_id: P, id: 'late', ended_at: at(40), output: null, summary: {} } } },
      { mode: 'start', req: { start: start('late', 20, null) } },
      { mode: 'start', req: { start: start('c3', -3, 'c0') } }, // upsert: a root moves first and becomes a child
      { mode: 'start', req: { start: start('c5', 9, null) } }, // a child becomes a root
    ],
  });
  check('ends and upserts');
  post('/call/update', { project_id: P, call_id: 'c6', display_name: 'renamed' });
  post('/calls/delete', { project_id: P, call_ids: ['c9', 'late'] });
  check('rename and deletes');
});
