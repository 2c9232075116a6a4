/**
 * Issue 22 §4: the call writes and `/obj/create` are split routes (src/write/prepared-calls.ts,
 * src/write/objects.ts). A body of 1 MiB or
 * more is prepared in the worker; the answers must be the synchronous path's byte for byte
 * (every status a call write gives), the stored calls the same, and one max-size batch must
 * leave the event loop free for others.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runRoute } from '../api/run-route.ts';
import type { Engine, RequestContext } from '../api/types.ts';
import { CallsCompleteModeRequiredError, tqError } from '../core/errors.ts';
import { findRoute } from '../routes.ts';
import { DEFAULT_MAX_BODY_BYTES, TAKE_TURNS_FROM_BYTES } from './server.ts';
import { startDemoServer } from './serving.testing.ts';
import { ALL_ACCESS, assertLoopFreeDuring, countingEngine, listBody, post, serverForBob, syncAnswer } from './off-loop.testing.ts';
import { Users } from './basic-auth.ts';

const P = 'acme/calls';
/** A project in calls_complete mode: the legacy writes to it are refused (400). */
const COMPLETE_ONLY = 'acme/complete-only';
const FILLER = 'x'.repeat(900);


const start = (i: number, project = P) => ({
  project_id: project,
  // Every 7th without ids: drawn in the store step, in order.
  ...(i % 7 === 0 ? {} : { id: `c${i}`, trace_id: `t${i % 50}` }),
  ...(i % 5 === 1 ? { parent_id: `c${i - 1}` } : {}),
  op_name: i % 3 === 0 ? `weave:///${P}/op/op${i % 4}:v1` : 'plain-op',
  started_at: '2026-01-01T00:00:00Z',
  attributes: { a: i },
  // Refs in inputs and a float spelled 1.0 (kept as spelled: the lossless path).
  inputs: { i, ref: `weave:///${P}/object/o${i % 9}:v1`, f: 1.5, text: FILLER },
});
const end = (i: number, project = P) => ({ project_id: project, id: `c${i}`, ended_at: '2026-01-01T00:00:01Z', output: i % 2 ? `weave:///${P}/object/out${i}:v1` : { o: i }, summary: { status_counts: { error: i % 3, success: 1 } } });

const batchBody = (bytes: number, item: (i: number) => unknown = (i) => (i % 4 === 3 ? { mode: 'end', req: { end: end(i - 1) } } : { mode: 'start', req: { start: start(i) } })) =>
  listBody(bytes, '{"batch":[', ']}', (i) => JSON.stringify(item(i)).replace('1.5', '1.0'));
const completeBody = (bytes: number, project = P, bodyProject = (i: number) => project) =>
  listBody(bytes, '{"batch":[', ']}', (i) => JSON.stringify({ ...start(i, bodyProject(i)), ...end(i, bodyProject(i)), ...(i % 7 === 0 ? { id: undefined } : {}) }).replace('1.5', '1.0'));
const bigStart = (bytes: number) => listBody(bytes, `{"start":${JSON.stringify({ ...start(1), id: 'big' }).slice(0, -1)},"extra":[`, ']}}', (i) => JSON.stringify({ i, text: FILLER }));
const bigEnd = (bytes: number) => listBody(bytes, `{"end":${JSON.stringify({ ...end(1), id: 'big' }).slice(0, -1)},"extra":[`, ']}}', (i) => JSON.stringify({ i, f: 2.5, text: FILLER }).replace('2.5', '2.0'));

/** As the server's user `bob`: every project but acme/secret. */
const BOB: RequestContext = {
  userId: 'bob',
  authorize(projectId) {
    if (projectId === 'acme/secret') throw tqError('TQ_PROJECT_FORBIDDEN', { user: 'bob', project: projectId });
  },
  canRead: (projectId) => projectId !== 'acme/secret',
  assertLegacyCallWrite(projectId) {
    if (projectId === COMPLETE_ONLY) throw new CallsCompleteModeRequiredError(projectId);
  },
};



/** Every call of a project as the store holds it: the query answer, bodies and columns included. */
function storedCalls(engine: Engine, project: string): string {
  const r = runRoute(findRoute('/calls/stream_query')!, engine, { kind: 'text', text: JSON.stringify({ project_id: project }) }, ALL_ACCESS);
  assert.equal(r.kind, 'stream');
  return r.kind === 'stream' ? Buffer.concat([...r.chunks]).toString('utf8') : '';
}

test('a large call write gets the synchronous answer, byte for byte, and stores the same calls', async () => {
  const bytes = 2 * TAKE_TURNS_FROM_BYTES;
  const engine = countingEngine();
  const reference = countingEngine();
  const users = new Users([{ name: 'bob', password: 'b', projects: ['acme/calls', 'acme/complete-only', 'acme/other'] }]);
  const bob = `Basic ${Buffer.from('bob:b').toString('base64')}`;
  const { srv, base } = await startDemoServer({ engine, users, assertLegacyCallWrite: BOB.assertLegacyCallWrite });
  try {
    const v2 = (what: string, project = P) => `/v2/${project}/${what}`;
    const params = (project = P) => ({ entity: project.split('/')[0], project: project.split('/')[1] });
    const cases: Array<[string, string, Record<string, string>?]> = [
      // 200s: starts and ends, ids drawn, refs, floats as spelled; one huge input; one huge output.
      ['/call/upsert_batch', batchBody(bytes)],
      [v2('calls/complete'), completeBody(bytes), params()],
      ['/call/start', bigStart(bytes)],
      ['/call/end', bigEnd(bytes)],
      [v2('call/start'), bigStart(bytes).replace('"id":"big"', '"id":"big2"'), params()],
      [v2('call/end'), bigEnd(bytes).replace('"id":"big"', '"id":"big2"'), params()],
      // 422 (the model, in the worker): an item without op_name; not JSON.
      ['/call/upsert_batch', batchBody(bytes, (i) => ({ mode: 'start', req: { start: i === 500 ? { ...start(i), op_name: undefined } : start(i) } }))],
      ['/call/upsert_batch', batchBody(bytes).slice(0, -1)],
      // 400 in the worker: a mode that does not match the item's shape.
      ['/call/upsert_batch', batchBody(bytes, (i) => ({ mode: i === 700 ? 'end' : 'start', req: { start: start(i) } }))],
      // 400 at the grant: a malformed project id in item 900.
      ['/call/upsert_batch', batchBody(bytes, (i) => ({ mode: 'start', req: { start: start(i, i === 900 ? 'acme/..' : P) } }))],
      // 403 at the grant: item 800 names a project bob has no grant on.
      ['/call/upsert_batch', batchBody(bytes, (i) => ({ mode: 'start', req: { start: start(i, i === 800 ? 'acme/secret' : P) } }))],
      // 400 in the store step: a legacy write to a project in calls_complete mode; a v2 body naming another project.
      ['/call/upsert_batch', batchBody(bytes, (i) => ({ mode: 'start', req: { start: start(i, i === 600 ? COMPLETE_ONLY : P) } }))],
      [v2('calls/complete'), completeBody(bytes, P, (i) => (i === 300 ? 'acme/other' : P)), params()],
    ];
    const statuses: number[] = [];
    for (const [path, body, pathParams] of cases) {
      assert.ok(body.length >= TAKE_TURNS_FROM_BYTES);
      const got = await post(base, path, body, bob);
      const routePath = pathParams ? path.replace(`/v2/${P}/`, '/v2/{entity}/{project}/') : path;
      const want = syncAnswer(reference, routePath, body, BOB, pathParams);
      assert.deepEqual(got, want, `${path} ${body.slice(0, 80)}`);
      statuses.push(got.status);
    }
    assert.deepEqual(statuses, [200, 200, 200, 200, 200, 200, 422, 422, 400, 400, 403, 400, 400]);
    assert.equal(storedCalls(engine, P), storedCalls(reference, P));
    const lines = storedCalls(engine, P).split('\n').length;
    assert.ok(lines > 2000, `only ${lines} calls stored`);
    assert.equal(engine.store.project('acme/secret'), undefined);
    assert.equal(engine.store.project('acme/other'), undefined);
  } finally {
    await srv.close();
  }
});

const objBody = (bytes: number, obj: Record<string, unknown>, item: (i: number) => unknown = (i) => ({ i, f: 2.5, text: FILLER })) =>
  listBody(bytes, `{"obj":${JSON.stringify({ ...obj, val: null }).slice(0, -5)}{"list":[`, ']}}}', (i) => JSON.stringify(item(i)).replace('2.5', '2.0'));

test('a large /obj/create gets the synchronous answer, byte for byte, and stores the same versions', async () => {
  const bytes = 2 * TAKE_TURNS_FROM_BYTES;
  const engine = countingEngine();
  const reference = countingEngine();
  const { srv, base, bob } = await serverForBob(engine, [P]);
  try {
    const o = { project_id: P, object_id: 'big' };
    const first = objBody(bytes, o);
    const cases: string[] = [
      first,
      // The same value again (the existing version); another value (a new version).
      first,
      objBody(bytes, o, (i) => ({ i, other: true, text: FILLER })),
      // 409: the expected digest does not match; 400: a bad object id; 400: another base class for the id.
      objBody(bytes, { ...o, expected_digest: 'nope' }),
      objBody(bytes, { ...o, object_id: 'bad id!' }),
      objBody(bytes, { ...o, builtin_object_class: 'Model' }),
      // 403: no grant on the project; 422: the model (object_id missing), not JSON.
      objBody(bytes, { ...o, project_id: 'acme/secret' }),
      objBody(bytes, { project_id: P }),
      first.slice(0, -2),
    ];
    const statuses: number[] = [];
    for (const body of cases) {
      assert.ok(body.length >= TAKE_TURNS_FROM_BYTES);
      const got = await post(base, '/obj/create', body, bob);
      assert.deepEqual(got, syncAnswer(reference, '/obj/create', body, BOB), body.slice(0, 120));
      statuses.push(got.status);
    }
    assert.deepEqual(statuses, [200, 200, 200, 409, 400, 400, 403, 422, 422]);
    const versions = (e: Engine) => JSON.stringify([...e.store.project(P)!.objects], (k, v) => (k === 'createdAtUs' ? 0 : v));
    assert.equal(versions(engine), versions(reference));
    assert.equal(engine.store.project(P)!.objects.get('big')!.length, 2);
  } finally {
    await srv.close();
  }
});

/** As off-loop.test.ts for the table writes: ratios and counts, not milliseconds. */
const MAX_BODIES: Record<string, () => string> = {
  '/call/upsert_batch': () => batchBody(DEFAULT_MAX_BODY_BYTES - 1024),
  '/v2/acme/calls/calls/complete': () => completeBody(DEFAULT_MAX_BODY_BYTES - 1024),
  '/obj/create': () => objBody(DEFAULT_MAX_BODY_BYTES - 1024, { project_id: P, object_id: 'big' }),
};
for (const path of Object.keys(MAX_BODIES)) {
  test(`${path}: one max-size body leaves the event loop free for others`, async () => {
    const { srv, base } = await startDemoServer({ engine: countingEngine() });
    try {
      const body = Buffer.from(MAX_BODIES[path]());
      // Warm the worker so that the measured request is the work itself.
      assert.equal((await post(base, '/call/upsert_batch', batchBody(TAKE_TURNS_FROM_BYTES + 1024))).status, 200);
      await assertLoopFreeDuring(base, path, body);
    } finally {
      await srv.close();
    }
  });
}
