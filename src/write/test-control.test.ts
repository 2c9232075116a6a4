/**
 * The mock control plane's reset under `tq serve --data`: one journal record, fsync'd before the
 * answer, so a restart replays it and shows the reset state; and the reset route itself.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openServedData } from '../cli/serve-data.ts';
import { allRoutes, findRoute } from '../routes.ts';
import { runRoute } from '../api/run-route.ts';
import { createEngine } from '../engine.ts';
import { Users } from '../server/basic-auth.ts';
import { createTqServer } from '../server/server.ts';
import { MAX_TEST_CALLS } from './test-control.ts';
import { TqError } from '../core/errors.ts';

const AUTH = 'Basic ' + Buffer.from('root:pw').toString('base64');
const start = (projectId: string, id: string) => ({ start: { project_id: projectId, id, trace_id: id, op_name: 'op', started_at: '2024-01-01T00:00:00Z', attributes: {}, inputs: {} } });

async function serve(dir: string) {
  const data = await openServedData(dir, 'wb_', () => {});
  const tq = createTqServer({ engine: data.engine, routes: allRoutes(), users: new Users([{ name: 'root', password: 'pw', projects: ['*'] }]), writes: data.writes, testControl: true });
  const { port } = await tq.listen('127.0.0.1', 0);
  const base = `http://127.0.0.1:${port}`;
  return {
    base,
    post: (path: string, body?: unknown) => fetch(base + path, { method: 'POST', headers: { Authorization: AUTH, 'Content-Type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) }),
    ids: async (projectId: string) => ((await (await fetch(`${base}/test/getCalls?project_id=${projectId}`)).json()) as { calls: Array<{ id: string }> }).calls.map((c) => c.id),
    async close() {
      await tq.close();
      await data.close();
    },
  };
}

const journalText = (dir: string) => readdirSync(dir).filter((f) => f.startsWith('journal')).map((f) => readFileSync(join(dir, f), 'utf8')).join('');

test('with --data, /test/reset is journaled; a restart shows the reset state, later writes included', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tq-reset-'));
  try {
    let s = await serve(dir);
    for (const [p, id] of [['a/x', '1'], ['a/x', '2'], ['b/y', '3']]) assert.equal((await s.post('/call/start', start(p, id))).status, 200);
    assert.equal((await s.post('/test/reset?project_id=a/x')).status, 200);
    assert.equal((await s.post('/call/start', start('a/x', '4'))).status, 200);
    assert.deepEqual([await s.ids('a/x'), await s.ids('b/y')], [['4'], ['3']]);
    await s.close();
    assert.equal(journalText(dir).split('\n').filter((l) => l.includes('"route":"/test/reset"')).length, 1, 'one record for the reset');

    s = await serve(dir);
    assert.deepEqual([await s.ids('a/x'), await s.ids('b/y')], [['4'], ['3']], 'the restart replays the reset in its place');
    assert.equal((await s.post('/test/reset')).status, 200);
    await s.close();

    s = await serve(dir);
    assert.deepEqual([await s.ids('a/x'), await s.ids('b/y')], [[], []]);
    await s.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the reset route: project prices go with their project, default prices stay; a malformed id is a 400', () => {
  const engine = createEngine();
  const ctx = { userId: '', authorize() {}, canRead: () => true };
  const price = (level: 'default' | 'project', id: string) => ({ id: `${level}-${id}`, pricing_level: level, pricing_level_id: id } as never);
  engine.store.prices.push(price('default', 'default'), price('project', 'a/x'), price('project', 'b/y'));
  runRoute(findRoute('/test/reset')!, engine, { kind: 'text', text: '' }, ctx, { project_id: 'a/x' });
  assert.deepEqual(engine.store.prices.map((p) => p.id), ['default-default', 'project-b/y']);
  runRoute(findRoute('/test/reset')!, engine, { kind: 'text', text: '' }, ctx);
  assert.deepEqual(engine.store.prices.map((p) => p.id), ['default-default']);
  assert.throws(
    () => runRoute(findRoute('/test/reset')!, engine, { kind: 'text', text: '' }, ctx, { project_id: 'no-slash' }),
    (e: TqError) => e.status === 400 && e.code === 'TQ_INVALID_PROJECT_ID',
  );
});

test('/test/getCalls answers at most MAX_TEST_CALLS calls in its one body', () => {
  const engine = createEngine();
  const ctx = { userId: 'u', authorize() {}, canRead: () => true };
  const startRoute = findRoute('/call/start')!;
  for (let i = 0; i <= MAX_TEST_CALLS; i++) runRoute(startRoute, engine, { kind: 'value', value: start('big/p', `c${i}`) }, ctx);
  assert.throws(
    () => runRoute(findRoute('/test/getCalls')!, engine, { kind: 'text', text: '' }, ctx, { project_id: 'big/p' }),
    (e: TqError) => e.status === 400 && e.message === `big/p holds more than ${MAX_TEST_CALLS} calls: read them with /calls/stream_query`,
  );
});
