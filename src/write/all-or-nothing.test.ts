/**
 * Every write is all or nothing: a write that throws part-way (here: at each value it draws
 * from the clock or the id generator, the points where a write derives what it stores) leaves
 * the store exactly as it was. Every mutating route is listed, so a new write route must be
 * added here.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runRoute } from '../api/run-route.ts';
import type { Engine, RequestBody } from '../api/types.ts';
import { createEngine } from '../engine.ts';
import { answers } from '../journal/journal.testing.ts';
import { allRoutes, findRoute } from '../routes.ts';
import { otlpExport, protobufOf } from '../otel/otlp.testing.ts';
import { testContext } from './writes.testing.ts';

const P = 'acme/one';
const start = (id: string, extra: Record<string, unknown> = {}) => ({ project_id: P, id, trace_id: 't', op_name: 'weave:///acme/one/op/o%:v', started_at: '2024-01-01T00:00:00Z', attributes: {}, inputs: { r: 'weave:///acme/x/object/o%:v' }, ...extra });
const end = (id: string) => ({ project_id: P, id, ended_at: '2024-01-01T00:00:01Z', output: 'weave:///acme/x/object/o%:v', summary: {} });

/** What the store holds before each write (so repeats, overwrites and deletes are exercised). */
const SETUP: Array<[string, unknown]> = [
  ['/call/start', { start: start('c1') }],
  ['/call/end', { end: end('c1') }],
  ['/obj/create', { obj: { project_id: P, object_id: 'o', val: { a: 1 } } }],
  ['/obj/create', { obj: { project_id: P, object_id: 'o', val: { a: 2 } } }],
  ['/table/create', { table: { project_id: P, rows: [{ a: 1 }] } }],
  ['/feedback/create', { project_id: P, weave_ref: 'weave:///acme/one/call/c1', feedback_type: 'note', payload: { note: 'x' } }],
  ['/cost/create', { project_id: P, costs: { m: { prompt_token_cost: 1, completion_token_cost: 2 } } }],
];

/** One or more writes per mutating route; each draws values, changes the store, or both. */
const WRITES: Array<[string, unknown | RequestBody]> = [
  ['/call/start', { start: { ...start('c2'), id: undefined, trace_id: undefined } }],
  ['/call/start', { start: start('c1', { op_name: 'other' }) }],
  ['/call/end', { end: end('c3') }],
  ['/call/end', { end: end('c1') }],
  ['/call/upsert_batch', { batch: [{ mode: 'start', req: { start: { ...start('b1'), id: undefined } } }, { mode: 'end', req: { end: end('c1') } }, { mode: 'start', req: { start: { ...start('b2'), id: undefined, trace_id: undefined } } }] }],
  ['/call/update', { project_id: P, call_id: 'c1', display_name: 'renamed' }],
  ['/calls/delete', { project_id: P, call_ids: ['c1'] }],
  ['/v2/{entity}/{project}/call/start', { start: start('v2') }],
  ['/v2/{entity}/{project}/call/end', { end: end('v2') }],
  ['/v2/{entity}/{project}/calls/complete', { batch: [1, 2].map((i) => ({ ...start(`k${i}`), id: undefined, trace_id: undefined, ended_at: '2024-01-01T00:00:02Z', output: i, summary: {} })) }],
  ['/obj/create', { obj: { project_id: P, object_id: 'o', val: { a: 3 } } }],
  ['/obj/create', { obj: { project_id: 'acme/new', object_id: 'n', val: { a: 3 } } }],
  ['/obj/delete', { project_id: P, object_id: 'o' }],
  ['/table/create', { table: { project_id: P, rows: [{ a: 1 }, { b: 2 }] } }],
  ['/table/update', { project_id: P, base_digest: 'BASE', updates: [{ append: { row: { c: 3 } } }, { pop: { index: 0 } }] }],
  ['/table/create_from_digests', { project_id: P, row_digests: ['d1', 'd2'] }],
  ['/feedback/create', { project_id: 'acme/new', weave_ref: 'weave:///acme/new/call/c1', feedback_type: 'note', payload: { note: 'y' } }],
  ['/feedback/batch/create', { batch: [1, 2, 3].map((i) => ({ project_id: `acme/f${i}`, weave_ref: `weave:///acme/f${i}/call/c1`, feedback_type: 'note', payload: { note: 'z' } })) }],
  ['/feedback/replace', { project_id: P, weave_ref: 'weave:///acme/one/call/c1', feedback_type: 'note', payload: { note: 'w' }, feedback_id: 'FEEDBACK' }],
  ['/feedback/purge', { project_id: P, query: { $expr: { $eq: [{ $getField: 'id' }, { $literal: 'FEEDBACK' }] } } }],
  ['/cost/create', { project_id: P, costs: { m1: { prompt_token_cost: 1, completion_token_cost: 2 }, m2: { prompt_token_cost: 3, completion_token_cost: 4 } } }],
  ['/cost/purge', { project_id: P, query: { $expr: { $eq: [{ $getField: 'id' }, { $literal: 'COST' }] } } }],
  ['/file/create', { kind: 'multipart', fields: new Map([['project_id', P]]), files: new Map([['file', new Uint8Array([1, 2, 3])]]) }],
  ['/files/create', { kind: 'multipart', fields: new Map([['project_id', 'acme/new']]), files: new Map([['file', new Uint8Array([4])]]) }],
  ['/otel/v1/traces', { kind: 'binary', bytes: protobufOf(otlpExport([{ 'wandb.entity': 'acme', 'wandb.project': 'otel' }, [{ id: '00000000000000a1' }, { id: '00000000000000a2', parent: '00000000000000a1' }]])), headers: { 'content-type': 'application/x-protobuf' } }],
  // Two projects, each with a new op name: both creation times are drawn before the first write.
  ['/otel/v1/traces', { kind: 'binary', bytes: protobufOf(otlpExport([{ 'wandb.entity': 'acme', 'wandb.project': 'otel1' }, [{ id: '00000000000000b1', name: 'one' }]], [{ 'wandb.entity': 'acme', 'wandb.project': 'otel2' }, [{ id: '00000000000000b2', name: 'two' }]])), headers: { 'content-type': 'application/x-protobuf' } }],
  ['/test/reset', { kind: 'text', text: '' }],
];

class Injected extends Error {}

/** An engine with SETUP applied whose clock and ids throw at draw number `failAt` (never when -1). */
function engineFailingAt(failAt: number): { engine: Engine; draws: () => number } {
  let draws = 0;
  let n = 0;
  const draw = <T>(v: () => T) => () => {
    if (draws++ === failAt) throw new Injected(`injected at draw ${failAt}`);
    return v();
  };
  const engine = createEngine(undefined, { now: draw(() => 1_717_243_200_000_000 + draws), newId: draw(() => `id-${++n}`) });
  const saved = failAt;
  failAt = -1;
  for (const [path, body] of SETUP) run(engine, path, body);
  failAt = saved;
  draws = 0;
  return { engine, draws: () => draws };
}

function bodyOf(engine: Engine, body: unknown): RequestBody {
  if (body !== null && typeof body === 'object' && 'kind' in body) return body as RequestBody;
  const p = engine.store.project(P);
  const text = JSON.stringify(body)
    .replace('BASE', [...(p?.tables.keys() ?? [])][0] ?? '')
    .replace('FEEDBACK', p?.feedback[0]?.id ?? '')
    .replace('COST', engine.store.prices[0]?.id ?? '');
  return { kind: 'text', text };
}

function run(engine: Engine, path: string, body: unknown) {
  const route = findRoute(path)!;
  return runRoute(route, engine, bodyOf(engine, body), testContext(), path.startsWith('/v2/') ? { entity: 'acme', project: 'one' } : {});
}

describe('every write is all or nothing', () => {
  it('lists every mutating route', () => {
    const mutating = allRoutes().filter((r) => r.mutates === true).map((r) => r.path).sort();
    const covered = [...new Set(WRITES.map(([path]) => path))].sort();
    assert.deepEqual(mutating.filter((p) => !covered.includes(p)), []);
  });

  for (const [path, body] of WRITES) {
    it(`${path}: a throw at every draw leaves the store unchanged (${JSON.stringify(body).slice(0, 60)})`, () => {
      const clean = engineFailingAt(-1);
      const before = answers(clean.engine);
      run(clean.engine, path, body);
      const total = clean.draws();
      for (let k = 0; k < total; k++) {
        const { engine } = engineFailingAt(k);
        assert.throws(() => run(engine, path, body), Injected);
        assert.equal(answers(engine), before, `${path} changed the store before its draw ${k} threw`);
      }
    });
  }
});
