import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { allRoutes, findRoute } from '../routes.ts';
import { routesForPath } from '../api/route-path.ts';
import type { RequestBody, Route } from '../api/types.ts';
import { TqError } from '../core/errors.ts';
import { createEngine } from '../engine.ts';
import { testContext } from '../write/writes.testing.ts';
import { ReplayError, replayRecord, runRecorded } from './apply.ts';
import { answers } from './journal.testing.ts';
import { decodeRecord, encodeRecord, type JournalRecord } from './record.ts';

import { otlpExport, protobufOf } from '../otel/otlp.testing.ts';
const text = (value: unknown): RequestBody => ({ kind: 'text', text: JSON.stringify(value) });
const P = 'acme/one';
const start = (id: string | undefined, extra: Record<string, unknown> = {}) => ({
  start: { project_id: P, ...(id ? { id } : {}), op_name: 'op', started_at: '2024-01-01T00:00:00Z', attributes: {}, inputs: { q: 1.5 }, ...extra },
});
const end = (id: string) => ({ end: { project_id: P, id, ended_at: '2024-01-01T00:00:02Z', output: 'ok', summary: {} } });

/** One successful request of every write route. */
const WRITES: Array<[string, RequestBody]> = [
  ['/call/start', text(start(undefined))],
  ['/call/start', text(start('c1', { thread_id: 'th', turn_id: 'c1' }))],
  ['/call/end', text(end('c1'))],
  ['/call/end', text(end('later'))],
  ['/call/upsert_batch', text({ batch: [{ mode: 'start', req: start('c2') }, { mode: 'end', req: end('c2') }, { mode: 'start', req: start(undefined) }] })],
  ['/call/update', text({ project_id: P, call_id: 'c2', display_name: 'two' })],
  ['/calls/delete', text({ project_id: P, call_ids: ['c2'] })],
  ['/obj/create', { kind: 'text', text: '{"obj":{"project_id":"acme/one","object_id":"o","val":{"n":1.0,"b":[1,2]}}}' }],
  ['/obj/create', text({ obj: { project_id: P, object_id: 'o', val: { n: 2 } } })],
  ['/table/create', { kind: 'text', text: '{"table":{"project_id":"acme/one","rows":[{"a":1.0},{"a":2}]}}' }],
  ['/feedback/create', text({ project_id: P, weave_ref: `weave:///${P}/call/c1`, feedback_type: 'wandb.reaction.1', payload: { emoji: '👍' } })],
  ['/cost/create', text({ project_id: P, costs: { 'gpt-4o': { prompt_token_cost: 1e-6, completion_token_cost: 2e-6 }, 'gpt-4o-mini': { prompt_token_cost: 1e-7, completion_token_cost: 2e-7 } } })],
  ['/file/create', { kind: 'multipart', fields: new Map([['project_id', P]]), files: new Map([['file', new TextEncoder().encode('bytes')]]) }],
  ['/feedback/batch/create', text({ batch: ['fb-a', 'fb-b', undefined].map((id) => ({ project_id: P, weave_ref: `weave:///${P}/call/c1`, feedback_type: 'score', payload: { v: 1 }, ...(id ? { id } : {}) })) })],
  ['/feedback/replace', text({ project_id: P, weave_ref: `weave:///${P}/call/c1`, feedback_type: 'score', payload: { v: 2 }, feedback_id: 'fb-a' })],
  ['/feedback/purge', text({ project_id: P, query: { $expr: { $eq: [{ $getField: 'id' }, { $literal: 'fb-b' }] } } })],
  ['/obj/delete', text({ project_id: P, object_id: 'o', digests: ['latest'] })],
  ['/v2/acme/one/call/start', text({ start: { project_id: P, id: 'v2', op_name: 'op', started_at: '2024-01-01T00:00:00Z', attributes: {}, inputs: {} } })],
  ['/v2/acme/one/call/end', text({ end: { project_id: P, id: 'v2', ended_at: '2024-01-01T00:00:01Z', output: 1, summary: {}, started_at: '2024-01-01T00:00:00Z' } })],
  // An OTLP export: raw protobuf bytes and the headers the route reads.
  ['/otel/v1/traces', { kind: 'binary', bytes: protobufOf(otlpExport([{}, [{ id: '00000000000000a1' }, { id: '00000000000000a2', parent: '00000000000000a1' }]])), headers: { 'content-type': 'application/x-protobuf', project_id: P } }],
  ['/v2/acme/one/calls/complete', text({ batch: [{ project_id: P, op_name: 'op', started_at: '2024-01-01T00:00:00Z', attributes: {}, inputs: {}, ended_at: '2024-01-01T00:00:02Z', output: 'done', summary: {} }] })],
];

function route(path: string): Route {
  const r = findRoute(path);
  assert.ok(r, path);
  return r;
}

describe('journaling a write request', () => {
  it('covers every route marked mutates, and only those', () => {
    const mutating = allRoutes().filter((r) => r.mutates).map((r) => r.path).sort();
    const covered = new Set(WRITES.map(([p]) => routesForPath(allRoutes(), p)!.routes[0].path));
    // /test/reset: journaled and replayed in src/write/test-control.test.ts.
    const elsewhere = ['/files/create', '/table/update', '/table/create_from_digests', '/cost/purge', '/test/reset'];
    assert.deepEqual(mutating.filter((p) => !covered.has(p) && !elsewhere.includes(p)), []);
  });

  it('records what each write drew, and replaying the records rebuilds the same store', () => {
    const live = createEngine();
    const records: JournalRecord[] = [];
    for (const [path, body] of WRITES) {
      const { routes, params } = routesForPath(allRoutes(), path)!;
      records.push(runRecorded(routes[0], live, body, testContext(), params).record);
    }
    assert.deepEqual(records.find((r) => r.route === '/v2/{entity}/{project}/call/start')!.params, { entity: 'acme', project: 'one' });
    const priceId = live.store.prices[0].id;
    records.push(runRecorded(route('/cost/purge'), live, text({ project_id: P, query: { $expr: { $in: [{ $getField: 'id' }, [{ $literal: priceId }]] } } }), testContext()).record);
    const table = live.store.project(P)!.tables.keys().next().value!;
    records.push(runRecorded(route('/table/update'), live, text({ project_id: P, base_digest: table, updates: [{ append: { row: { a: 3 } } }] }), testContext()).record);
    const rows = [...live.store.project(P)!.rows.keys()];
    records.push(runRecorded(route('/table/create_from_digests'), live, text({ project_id: P, row_digests: rows.slice(0, 2) }), testContext()).record);

    assert.deepEqual(records[0].ids.length, 2, 'a call start without ids draws the call id and the trace id');
    assert.equal(records[2].ids.length + records[2].now.length, 0, 'a call end draws nothing');
    assert.equal(records[6].now.length, 1, 'a delete draws its deletion time');
    assert.deepEqual([records[11].now.length, records[11].ids.length], [1, 2], 'a cost create draws one time and an id per model');

    const replayed = createEngine(undefined, { now: () => assert.fail('replay must not read the clock'), newId: () => assert.fail('replay must not draw ids') });
    for (const r of records) replayRecord(replayed, decodeRecord(encodeRecord(r)));
    assert.equal(answers(replayed), answers(live));
  });

  it('runs with the user, field prefix and path parameters the write had', () => {
    const live = createEngine(undefined, { fieldPrefix: 'wb_' });
    const { record } = runRecorded(route('/call/start'), live, text({ start: { ...start('c9').start, wb_run_id: 'r1' } }), testContext('bob'), { entity: 'acme' });
    assert.equal(record.user, 'bob');
    assert.equal(record.prefix, 'wb_');
    assert.deepEqual(record.params, { entity: 'acme' });
    const replayed = createEngine(undefined, { fieldPrefix: 'svc_' });
    replayRecord(replayed, record);
    const calls = replayed.store.project(P)!.calls;
    assert.equal(calls.userId(0), 'bob');
    assert.equal(calls.runIds.get(0), 'r1');
  });

  it('records the answers of ctx.canRead in order', () => {
    const probe: Route = {
      path: '/probe',
      method: 'POST',
      body: 'json',
      mutates: true,
      run: (_e, _b, ctx) => ({ kind: 'json', body: [ctx.canRead('acme/one'), ctx.canRead('x/forbidden')] }),
    };
    const { result, record } = runRecorded(probe, createEngine(), text({}), testContext());
    assert.deepEqual(result, { kind: 'json', body: [true, false] });
    assert.deepEqual(record.canRead, [true, false]);
  });

  it('a write that fails changes nothing (so it is not journaled)', () => {
    const engine = createEngine();
    for (const [path, body] of WRITES) {
      const { routes, params } = routesForPath(allRoutes(), path)!;
      runRecorded(routes[0], engine, body, testContext(), params);
    }
    const before = answers(engine);
    const table = engine.store.project(P)!.tables.keys().next().value!;
    const failing: Array<[string, unknown]> = [
      ['/call/start', { start: { project_id: P } }],
      ['/call/start', start('c1', { project_id: 'x/forbidden' })],
      ['/call/start', start('c1', { project_id: 'no-slash' })],
      ['/call/end', { end: { project_id: P, id: 'c1' } }],
      ['/call/upsert_batch', { batch: [{ mode: 'start', req: start('new') }, { mode: 'start', req: start('new2', { project_id: 'x/forbidden' }) }] }],
      ['/call/upsert_batch', { batch: [{ mode: 'start', req: start('new') }, { mode: 'end', req: start('new3') }] }],
      ['/call/update', { project_id: P, call_id: 'c1' }],
      ['/calls/delete', { project_id: P, call_ids: Array.from({ length: 1001 }, (_, i) => `c${i}`) }],
      ['/obj/create', { obj: { project_id: P, object_id: 'bad name!', val: {} } }],
      ['/obj/create', { obj: { project_id: P, object_id: 'o', val: { n: 3 }, expected_digest: 'abc' } }],
      ['/table/create', { table: { project_id: P, rows: [{ a: 1 }], expected_digest: 'abc' } }],
      ['/table/update', { project_id: P, base_digest: table, updates: [{ append: { row: { a: 9 } } }, { pop: { index: 99 } }] }],
      ['/table/update', { project_id: P, base_digest: 'f'.repeat(64), updates: [] }],
      ['/table/create_from_digests', { project_id: 'x/forbidden', row_digests: ['nope'] }],
      ['/feedback/create', { project_id: P, weave_ref: `weave:///${P}/call/c1`, feedback_type: 'wandb.reaction.1', payload: { emoji: 'no' } }],
      ['/cost/create', { project_id: 'x/forbidden', costs: { m: { prompt_token_cost: 1, completion_token_cost: 1 } } }],
    ];
    // Nested deeper than the store walks: refused whole, before anything is stored.
    const deep = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;
    const deepStart = `{"project_id":"${P}","id":"deep","op_name":"op","started_at":"2024-01-01T00:00:00Z","attributes":{},"inputs":{"d":${deep(100_000)}}}`;
    for (const [path, bodyText] of [
      ['/call/start', `{"start":${deepStart}}`],
      ['/call/end', `{"end":{"project_id":"${P}","id":"c9","ended_at":"2024-01-01T00:00:00Z","output":${deep(100_000)},"summary":{}}}`],
      ['/call/upsert_batch', `{"batch":[{"mode":"start","req":{"start":${JSON.stringify(start('fine').start)}}},{"mode":"start","req":{"start":${deepStart}}}]}`],
      ['/feedback/create', `{"project_id":"${P}","weave_ref":"weave:///${P}/call/c1","feedback_type":"custom","payload":{"d":${deep(100_000)}}}`],
    ]) {
      assert.throws(() => runRecorded(route(path), engine, { kind: 'text', text: bodyText }, testContext()), (e) => e instanceof TqError && e.code === 'TQ_BODY_TOO_DEEP', path);
      assert.equal(answers(engine), before, `${path} changed the store although it failed`);
    }
    for (const [path, body] of failing) {
      assert.throws(() => runRecorded(route(path), engine, text(body), testContext()), (e) => e instanceof TqError && e.status >= 400 && e.status < 500, `${path} ${JSON.stringify(body).slice(0, 80)}`);
      assert.equal(answers(engine), before, `${path} changed the store although it failed`);
    }
    assert.throws(() => runRecorded(route('/file/create'), engine, { kind: 'multipart', fields: new Map([['project_id', 'x/forbidden']]), files: new Map([['file', new Uint8Array(1)]]) }, testContext()), TqError);
    assert.equal(answers(engine), before);
  });
});

describe('replaying a record', () => {
  const good = (): JournalRecord => runRecorded(route('/call/start'), createEngine(), text(start(undefined)), testContext()).record;
  const replayProblem = (r: JournalRecord) => {
    try {
      replayRecord(createEngine(), r);
    } catch (e) {
      assert.ok(e instanceof ReplayError, String(e));
      return e.message;
    }
    assert.fail('expected a ReplayError');
  };

  it('refuses routes that are not write routes of this tq', () => {
    assert.equal(replayProblem({ ...good(), route: '/no/such' }), '/no/such is not a write route of this tq');
    assert.equal(replayProblem({ ...good(), route: '/obj/read' }), '/obj/read is not a write route of this tq');
  });

  it('fails when the write draws other values than recorded', () => {
    assert.equal(replayProblem({ ...good(), ids: ['only-one'] }), 'the write drew more ids than the 1 recorded');
    assert.equal(replayProblem({ ...good(), ids: ['a', 'b', 'c'], now: [1] }), '/call/start drew 2 fewer recorded values on replay than when it ran');
  });

  it('fails when the write answers differently than when it was acknowledged', () => {
    const r = good();
    assert.match(r.ack!, /^[0-9a-f]{16}$/);
    assert.equal(replayProblem({ ...r, ack: '0000000000000000' }), `/call/start answered differently on replay than when it was acknowledged (ack ${r.ack} instead of 0000000000000000)`);
  });

  it('fails when the write itself fails', () => {
    assert.equal(replayProblem({ ...good(), body: { kind: 'text', text: '{"start":{}}' } }), '/call/start failed on replay: body.start.project_id: Field required; body.start.op_name: Field required; body.start.started_at: Field required; body.start.attributes: Field required; body.start.inputs: Field required');
  });
});
