/**
 * Test helpers for load snapshots: a differential check that a restored engine answers every
 * read route exactly as a freshly loaded one, before and after the same writes.
 */
import assert from 'node:assert/strict';
import { runRoute } from '../api/run-route.ts';
import { fullAccessContext } from '../api/context.ts';
import { findRoute } from '../routes.ts';
import type { Engine } from '../api/types.ts';
import { TqError } from '../core/errors.ts';
import type { CallTable } from './call-table.ts';
import { columnValues } from './call-table.testing.ts';

const ctx = fullAccessContext('snapshot-test');

/** The answer of one route as bytes-equivalent text (lines joined; errors as their body). */
export function answer(engine: Engine, path: string, body: unknown): string {
  const route = findRoute(path);
  assert.ok(route, path);
  try {
    const r = runRoute(route, engine, { kind: 'text', text: JSON.stringify(body) }, ctx);
    if (r.kind === 'stream') return [...r.lines].join('\n');
    if (r.kind === 'bytes') return Buffer.from(r.bytes).toString('base64');
    return r.text ?? JSON.stringify(r.body);
  } catch (e) {
    if (e instanceof TqError) return `error ${e.status} ${JSON.stringify(e.body())}`;
    throw e;
  }
}

const pick = <T>(xs: readonly T[], k: number): T[] => {
  const step = Math.max(1, Math.floor(xs.length / k));
  const out: T[] = [];
  for (let i = 0; i < xs.length && out.length < k; i += step) out.push(xs[i]);
  return out;
};
const nonNull = <T>(xs: ReadonlyArray<T | null>): T[] => xs.filter((x): x is T => x !== null);

/** Read requests over every call route and filter kind, built from one project's data. */
function readRequests(projectId: string, t: CallTable, prefix: string): Array<[string, unknown]> {
  const P = projectId;
  const ids = pick(columnValues(t, 'id'), 5);
  const traces = pick([...new Set(columnValues(t, 'traceId'))], 3);
  const parents = pick([...new Set(nonNull(columnValues(t, 'parentId')))], 3);
  const threads = pick([...new Set(nonNull(columnValues(t, 'threadId')))], 3);
  const turns = pick([...new Set(nonNull(columnValues(t, 'turnId')))], 3);
  const ops = pick(t.opNames.values, 3);
  const users = pick([...new Set(nonNull(columnValues(t, 'userId')))], 2);
  const opPrefix = ops.length ? ops[0].slice(0, ops[0].lastIndexOf(':') + 1) + '*' : 'x:*';
  const q = (body: Record<string, unknown>): [string, unknown] => ['/calls/stream_query', { project_id: P, ...body }];
  return [
    q({}),
    q({ sort_by: [{ field: 'started_at', direction: 'desc' }], limit: 7 }),
    q({ filter: { trace_roots_only: true }, sort_by: [{ field: 'started_at', direction: 'desc' }], limit: 100 }),
    q({ filter: { call_ids: ids } }),
    q({ filter: { trace_ids: traces } }),
    q({ filter: { parent_ids: parents } }),
    q({ filter: { thread_ids: threads } }),
    q({ filter: { turn_ids: turns } }),
    q({ filter: { op_names: ops } }),
    q({ filter: { op_names: [opPrefix] }, limit: 50 }),
    q({ filter: { [`${prefix}user_ids`]: users } }),
    q({ filter: { trace_roots_only: true }, offset: 3, limit: 5, columns: ['id', 'op_name', 'started_at', 'summary'] }),
    q({ sort_by: [{ field: 'summary.weave.latency_ms', direction: 'desc' }], limit: 10 }),
    q({ query: { $expr: { $gt: [{ $getField: 'started_at' }, { $literal: 0 }] } }, limit: 20 }),
    q({ query: { $expr: { $contains: { input: { $getField: 'inputs' }, substr: { $literal: 'a' } } } }, limit: 20 }),
    q({ query: { $expr: { $eq: [{ $getField: 'summary.weave.status' }, { $literal: 'error' }] } } }),
    q({ include_feedback: true, include_costs: true, limit: 30 }),
    q({ expand_columns: ['inputs.self', 'inputs.model'], limit: 20 }),
    q({ filter: { trace_ids: traces }, sort_by: [{ field: 'ended_at', direction: 'asc' }, { field: 'id', direction: 'desc' }] }),
    ...ids.slice(0, 3).map((id): [string, unknown] => ['/call/read', { project_id: P, id }]),
    ['/threads/stream_query', { project_id: P }],
    ['/threads/stream_query', { project_id: P, sort_by: [{ field: 'last_updated', direction: 'desc' }], limit: 3 }],
  ];
}

/**
 * Asserts that `restored` answers like `fresh` on every project's read requests, then applies
 * the same writes to both (an append under a restored trace, an end, a display name, a delete,
 * a repeated start) and asserts again. Both engines must draw ids and times the same way.
 */
export function assertSameAnswers(fresh: Engine, restored: Engine): number {
  assert.deepEqual([...restored.store.projects.keys()], [...fresh.store.projects.keys()], 'project order');
  let compared = 0;
  const compareAll = (when: string) => {
    for (const [projectId, p] of fresh.store.projects) {
      for (const [path, body] of readRequests(projectId, p.calls, fresh.options.fieldPrefix)) {
        assert.equal(answer(restored, path, body), answer(fresh, path, body), `${when}: ${path} ${JSON.stringify(body)}`);
        compared++;
      }
    }
  };
  compareAll('after load');
  for (const [projectId, p] of fresh.store.projects) {
    const t = p.calls;
    if (t.size === 0) continue;
    const row = Math.floor(t.size / 2);
    const writes: Array<[string, unknown]> = [
      ['/call/start', { start: { project_id: projectId, id: 'snap-new-1', op_name: t.opNames.values[0], trace_id: t.traceId(row), parent_id: t.id(row), started_at: '2030-01-01T00:00:00Z', attributes: {}, inputs: { x: 1 } } }],
      ['/call/end', { end: { project_id: projectId, id: 'snap-new-1', ended_at: '2030-01-01T00:00:01Z', output: 'done', summary: {} } }],
      ['/call/update', { project_id: projectId, call_id: t.id(0), display_name: 'renamed' }],
      ['/calls/delete', { project_id: projectId, call_ids: [t.id(t.size - 1)] }],
      ['/call/start', { start: { project_id: projectId, id: t.id(row), op_name: 'moved', trace_id: 'snap-other-trace', started_at: '2020-01-01T00:00:00Z', attributes: {}, inputs: {} } }],
    ];
    for (const [path, body] of writes) {
      const a = answer(fresh, path, body);
      assert.equal(answer(restored, path, body), a, `write ${path}`);
      assert.ok(!a.startsWith('error'), `${path}: ${a}`);
    }
  }
  compareAll('after writes');
  return compared;
}
