/**
 * Issue 22 §4: one large request must not hold the event loop. A split route (the table writes)
 * prepares a body of 1 MiB or more in a worker thread (off-loop.ts); the event loop only
 * authorizes and stores. Checked here: the answers are the synchronous path's, byte for byte
 * (200s and refusals alike), and while a max-size body is prepared, the server keeps answering.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Engine } from '../api/types.ts';
import { createEngine } from '../engine.ts';
import { DEFAULT_MAX_BODY_BYTES, TAKE_TURNS_FROM_BYTES } from './server.ts';
import { startDemoServer } from './serving.testing.ts';
import { assertLoopFreeDuring, listBody, post, syncAnswer } from './off-loop.testing.ts';
import { Users } from './basic-auth.ts';
import { OffLoop, OffLoopUnavailable, PreparedRefusal } from './off-loop.ts';

const P = 'acme/offloop';
const FILLER = 'x'.repeat(900);

/** JSON text `head` + items + `tail`, items `item(0)`, `item(1)`, … while the whole stays under `bytes`. */

const createBody = (bytes: number, row: (i: number) => unknown = (i) => ({ i, text: FILLER })) =>
  listBody(bytes, `{"table":{"project_id":"${P}","rows":[`, ']}}', (i) => JSON.stringify(row(i)));

function updateBody(bytes: number, base: string): string {
  // Appends, inserts (one at 0), a pop, rows repeated and rows with floats (lossless digests).
  return listBody(bytes, `{"project_id":"${P}","base_digest":"${base}","updates":[`, ']}', (i) =>
    JSON.stringify(i % 7 === 3 ? { pop: { index: 0 } } : i % 5 === 1 ? { insert: { index: 0, row: { i: i % 50, f: 1.5 } } } : { append: { row: { i, text: FILLER } } }).replace('1.5', '1.0'),
  );
}



const TABLE_SETUP = `{"table":{"project_id":"${P}","rows":[{"a":1},{"b":2}]}}`;

test('a large body of a split route gets the synchronous answer, byte for byte, and the same store', async () => {
  const bytes = 3 * TAKE_TURNS_FROM_BYTES;
  const engine = createEngine();
  const { srv, base } = await startDemoServer({ engine });
  const reference = createEngine();
  try {
    const setup = await post(base, '/table/create', TABLE_SETUP);
    assert.deepEqual(setup, syncAnswer(reference, '/table/create', TABLE_SETUP));
    const baseDigest = JSON.parse(setup.text).digest as string;
    const cases: Array<[string, string]> = [
      ['/table/create', createBody(bytes)],
      // Rows the project already holds, repeated rows, and a float spelled 1.0 (digested as a float).
      ['/table/create', createBody(bytes, (i) => (i % 3 === 0 ? { a: 1 } : { i: i % 100, f: 2.5 })).replaceAll('2.5', '2.0')],
      ['/table/update', updateBody(bytes, baseDigest)],
      // Refused in the worker: a row that is not an object (422, the model's detail), bad JSON (422).
      ['/table/create', createBody(bytes, (i) => (i === 1000 ? [i] : { i }))],
      ['/table/create', createBody(bytes).slice(0, -1)],
      // Refused on the event loop: an unknown base table (404), a pop past the end (400), a digest mismatch (409).
      ['/table/update', updateBody(bytes, 'no-such-table')],
      ['/table/update', updateBody(bytes, baseDigest).replace('"updates":[', '"updates":[{"pop":{"index":99999999}},')],
      ['/table/create', createBody(bytes).replace('"rows":', '"expected_digest":"nope","rows":')],
    ];
    for (const [path, body] of cases) {
      assert.ok(body.length >= TAKE_TURNS_FROM_BYTES);
      const got = await post(base, path, body);
      assert.deepEqual(got, syncAnswer(reference, path, body), `${path} ${body.slice(0, 80)}`);
    }
    // The same store: every table and row.
    const tables = (e: Engine) => JSON.stringify([...e.store.project(P)!.tables]);
    const rows = (e: Engine) => JSON.stringify([...e.store.project(P)!.rows]);
    assert.equal(tables(engine), tables(reference));
    assert.equal(rows(engine), rows(reference));
  } finally {
    await srv.close();
  }
});

test('a large body of a split route from a user without a grant is a 403, and stores nothing', async () => {
  const engine = createEngine();
  const users = new Users([{ name: 'api', password: 'pw', projects: ['acme/other'] }]);
  const { srv, base } = await startDemoServer({ engine, users });
  try {
    const got = await post(base, '/table/create', createBody(2 * TAKE_TURNS_FROM_BYTES));
    assert.equal(got.status, 403);
    assert.match(JSON.parse(got.text).reason, /acme\/offloop/);
    assert.equal(engine.store.project(P), undefined);
  } finally {
    await srv.close();
  }
});

/**
 * While one max-size body is being handled, the event loop stays free: its longest gap is a
 * small part of the request's time, and /health requests sent one after another in that time
 * are answered before the big answer. Ratios and counts, not milliseconds: a loaded machine
 * slows the worker and the loop alike. On the synchronous path, the longest gap was nearly all
 * of the request (parsing, validating and digesting 32 MiB in one turn) and no /health was
 * answered meanwhile.
 */
for (const path of ['/table/create', '/table/update']) {
  test(`${path}: one max-size body leaves the event loop free for others`, async () => {
    const engine = createEngine();
    const { srv, base } = await startDemoServer({ engine });
    try {
      const baseDigest = JSON.parse((await post(base, '/table/create', TABLE_SETUP)).text).digest as string;
      const body = Buffer.from(path === '/table/create' ? createBody(DEFAULT_MAX_BODY_BYTES - 1024) : updateBody(DEFAULT_MAX_BODY_BYTES - 1024, baseDigest));
      // Warm the worker (its start loads the routes) so that the measured request is the work itself.
      await post(base, '/table/create', createBody(TAKE_TURNS_FROM_BYTES + 1024));
      await assertLoopFreeDuring(base, path, body);
    } finally {
      await srv.close();
    }
  });
}

test('OffLoop: a job the worker cannot run, or one cut by close, is OffLoopUnavailable (the server then runs the route itself)', async () => {
  const offLoop = new OffLoop();
  const bytes = Buffer.from(TABLE_SETUP);
  // Not a split route: the worker reports it instead of guessing.
  await assert.rejects(offLoop.prepare('/calls/delete', bytes, 'svc_', {}), (e: unknown) => e instanceof OffLoopUnavailable && /not a split route/.test(e.message));
  const prepared = await offLoop.prepare('/table/create', bytes, 'svc_', {});
  assert.deepEqual(prepared.projects, [P]);
  const refused = await offLoop.prepare('/table/create', Buffer.from('{"table":{}}'), 'svc_', {}).catch((e: unknown) => e);
  assert.ok(refused instanceof PreparedRefusal);
  assert.equal(refused.status, 422);
  assert.deepEqual({ status: refused.status, text: refused.text }, syncAnswer(createEngine(), '/table/create', '{"table":{}}'));
  const cut = offLoop.prepare('/table/create', Buffer.from(createBody(TAKE_TURNS_FROM_BYTES)), 'svc_', {}).catch((e: unknown) => e);
  await offLoop.close();
  const cutError = await cut;
  assert.ok(cutError instanceof OffLoopUnavailable && /closing/.test(cutError.message), String(cutError));
  // A new job after close starts a new worker.
  assert.deepEqual((await offLoop.prepare('/table/create', bytes, 'svc_', {})).projects, [P]);
  await offLoop.close();
});
