/**
 * semantics.md#auth-grants-refs / issue 11: a grant covers every byte returned, including what refs
 * reach. A user granted `a/*` writes refs into `b/x` in his own project; every place tq follows a
 * ref must treat them exactly as refs to nothing.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { allRoutes } from '../routes.ts';
import { runRoute } from '../api/run-route.ts';
import type { Engine, RequestContext } from '../api/types.ts';
import { TqError } from '../core/errors.ts';
import { createEngine } from '../engine.ts';
import { Users } from '../server/basic-auth.ts';

const users = new Users([
  { name: 'mallory', password: 'm', projects: ['a/*'] },
  { name: 'root', password: 'r', projects: ['*'] },
]);
const login = (name: string, password: string): RequestContext =>
  users.authenticate('Basic ' + Buffer.from(`${name}:${password}`).toString('base64'));
const mallory = login('mallory', 'm');
const root = login('root', 'r');

function send(engine: Engine, path: string, body: unknown, ctx: RequestContext): { status: number; body: unknown } {
  const route = allRoutes().find((r) => r.path === path)!;
  try {
    const result = runRoute(route, engine, { kind: 'text', text: JSON.stringify(body) }, ctx);
    if (result.kind === 'json') return { status: 200, body: result.body };
    if (result.kind === 'bytes') return { status: 200, body: new TextDecoder().decode(result.bytes) };
    return { status: 200, body: [...result.lines].map((l) => JSON.parse(l)) };
  } catch (e) {
    if (e instanceof TqError) return { status: e.status, body: e.body() };
    throw e;
  }
}

/** b/x holds a secret object and a table; a/p holds calls whose inputs ref into b/x. */
function setUp() {
  const engine = createEngine();
  const table = send(engine, '/table/create', { table: { project_id: 'b/x', rows: [{ secret_row: 1 }] } }, root).body as { digest: string };
  const tableRef = `weave:///b/x/table/${table.digest}`;
  const secret = send(engine, '/obj/create', { obj: { project_id: 'b/x', object_id: 'secret', val: { answer: 42, rows: tableRef } } }, root).body as { digest: string };
  const own = send(engine, '/obj/create', { obj: { project_id: 'a/p', object_id: 'own', val: { answer: 7, rows: tableRef } } }, mallory).body as { digest: string };
  const refs = {
    secret: `weave:///b/x/object/secret:${secret.digest}`,
    secretRows: `weave:///b/x/object/secret:${secret.digest}/attr/rows/index/0`,
    missing: `weave:///b/x/object/secret:${'0'.repeat(64)}`,
    own: `weave:///a/p/object/own:${own.digest}`,
    ownRows: `weave:///a/p/object/own:${own.digest}/attr/rows/index/0`,
    malformedProject: `weave:///b/x\u200b/object/secret:${secret.digest}`,
  };
  let second = 0;
  for (const [id, x] of Object.entries(refs)) {
    const started_at = `2024-05-01T12:00:0${second++}Z`;
    const r = send(engine, '/call/start', { start: { project_id: 'a/p', id, op_name: 'op', trace_id: 't', started_at, attributes: {}, inputs: { x } } }, mallory);
    assert.equal(r.status, 200);
  }
  return { engine, refs, table };
}

type Line = { id: string; inputs: { x: unknown } };
const query = (engine: Engine, ctx: RequestContext, extra: Record<string, unknown>) => {
  const r = send(engine, '/calls/stream_query', { project_id: 'a/p', expand_columns: ['inputs.x'], ...extra }, ctx);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body as Line[];
};

test('expand_columns: a ref into a project without a grant stays the ref string, as a ref to nothing does', () => {
  const { engine, refs, table } = setUp();
  const tableRef = `weave:///b/x/table/${table.digest}`;
  const byId = (lines: Line[]) => Object.fromEntries(lines.map((l) => [l.id, l.inputs.x]));
  const seen = byId(query(engine, mallory, {}));
  assert.deepEqual(seen, {
    secret: refs.secret,
    secretRows: refs.secretRows,
    missing: refs.missing,
    own: { answer: 7, rows: tableRef, _ref: refs.own },
    // A table ref inside an object of a granted project still does not reach b/x's rows.
    ownRows: refs.ownRows,
    malformedProject: refs.malformedProject,
  });
  // With a grant on b/x the same refs expand: the difference is the grant, not the data.
  const all = byId(query(engine, root, {}));
  assert.deepEqual(all.secret, { answer: 42, rows: tableRef, _ref: refs.secret });
  assert.deepEqual(all.secretRows, { secret_row: 1, _ref: refs.secretRows });
  assert.deepEqual(all.ownRows, { secret_row: 1, _ref: refs.ownRows });
  assert.equal(all.missing, refs.missing);
});

test('$getField through an expanded ref reads no value without a grant', () => {
  const { engine } = setUp();
  const eq = (path: string, v: unknown) => ({ query: { $expr: { $eq: [{ $getField: path }, { $literal: v }] } } });
  assert.deepEqual(query(engine, mallory, eq('inputs.x.answer', 42)), []);
  assert.deepEqual(query(engine, mallory, eq('inputs.x.secret_row', 1)), []);
  assert.deepEqual(query(engine, mallory, eq('inputs.x.answer', 7)).map((l) => l.id), ['own']);
  assert.deepEqual(query(engine, root, eq('inputs.x.answer', 42)).map((l) => l.id), ['secret']);
  assert.deepEqual(query(engine, root, eq('inputs.x.secret_row', 1)).map((l) => l.id), ['secretRows', 'ownRows']);
});

test('sorting through a ref: a ref without a grant sorts as no value (last, by the tie-breaker), like a missing one', () => {
  const { engine } = setUp();
  for (const direction of ['asc', 'desc']) {
    const ids = query(engine, mallory, { sort_by: [{ field: 'inputs.x.answer', direction }] }).map((l) => l.id);
    // Tied rows (all but `own`) follow `id` asc (semantics.md#calls-sort-tiebreak), whatever their
    // refs point to.
    assert.deepEqual(ids, ['own', 'malformedProject', 'missing', 'ownRows', 'secret', 'secretRows'], direction);
  }
  assert.deepEqual(query(engine, root, { sort_by: [{ field: 'inputs.x.answer', direction: 'desc' }] }).map((l) => l.id).slice(0, 2), ['secret', 'own']);
});

test('/obj/read and /table/query_stream of the ref target are 403 without a grant; a malformed id is a 400', () => {
  const { engine, table } = setUp();
  const read = send(engine, '/obj/read', { project_id: 'b/x', object_id: 'secret', digest: 'latest' }, mallory);
  assert.deepEqual(read, { status: 403, body: { reason: "User 'mallory' has no access to project 'b/x'" } });
  const rows = send(engine, '/table/query_stream', { project_id: 'b/x', digest: table.digest }, mallory);
  assert.equal(rows.status, 403);
  const around = send(engine, '/obj/read', { project_id: 'a/../b/x', object_id: 'secret', digest: 'latest' }, mallory);
  assert.deepEqual(around, { status: 400, body: { reason: "Invalid project_id 'a/../b/x': expected the form <entity>/<project>" } });
  assert.equal(send(engine, '/obj/read', { project_id: 'b/x', object_id: 'secret', digest: 'latest' }, root).status, 200);
});
