/**
 * Issue 11 §1 and semantics.md#writes-user-id over HTTP: deep bodies on every route and a smaller
 * seeded hostile-input run against `tq serve` on loopback. No 5xx, JSON error bodies of the
 * documented shape, and the server answers a normal query afterwards (it did not die, and kept its
 * data).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { allRoutes } from '../routes.ts';
import { assertAnswer, hostileBodyText, nestedText } from '../api/hostile.testing.ts';
import type { Route } from '../api/types.ts';
import { tqError } from '../core/errors.ts';
import { createEngine } from '../engine.ts';
import { Users } from './basic-auth.ts';
import { createTqServer } from './server.ts';

const AUTH = 'Basic ' + Buffer.from('u:p').toString('base64');

test('tq serve: deep and hostile bodies on every route, then a normal query', async () => {
  const tq = createTqServer({ engine: createEngine(), routes: allRoutes(), users: new Users([{ name: 'u', password: 'p', projects: ['e/*'] }]) });
  const { port } = await tq.listen('127.0.0.1', 0);
  const send = async (route: Pick<Route, 'path' | 'method'>, body: string) => {
    // A templated path names a project the user may write (its grant is checked before the body).
    const path = route.path.replace('{entity}', 'e').replace('{project}', 'p');
    const res = await fetch(`http://127.0.0.1:${port}${path}`, {
      method: route.method,
      headers: { authorization: AUTH, 'content-type': 'application/json' },
      body: route.method === 'POST' ? body : undefined,
    });
    const text = await res.text();
    if (res.status >= 400) assert.equal(res.headers.get('content-type'), 'application/json', `${route.path}: ${text.slice(0, 200)}`);
    return { status: res.status, text };
  };
  const stillServing = async () => {
    const r = await send({ path: '/calls/stream_query', method: 'POST' }, '{"project_id":"e/seed"}');
    assert.equal(r.status, 200);
    assert.deepEqual(r.text.split('\n').filter(Boolean).map((l) => (JSON.parse(l) as { id: string }).id), ['seed-call']);
  };
  try {
    const seed = await send({ path: '/call/start', method: 'POST' }, JSON.stringify({ start: { project_id: 'e/seed', id: 'seed-call', op_name: 'op', trace_id: 't', started_at: '2024-01-01T00:00:00Z', attributes: {}, inputs: {} } }));
    assert.equal(seed.status, 200);
    for (const route of allRoutes().filter((r) => r.method === 'POST')) {
      for (const depth of [1000, 5000, 100_000, 1_000_000]) {
        for (const text of [nestedText(depth), `{"project_id":"e/p","inputs":${nestedText(depth - 1)}}`]) {
          const r = await send(route, text);
          const context = `${route.path} depth ${depth}`;
          assertAnswer(r.status, JSON.parse(r.text), context);
          if (depth > 1000 && route.body === 'json') assert.equal(r.status, 400, context);
        }
      }
      await stillServing();
    }
    const routes = allRoutes();
    await fc.assert(
      fc.asyncProperty(fc.nat({ max: routes.length - 1 }), hostileBodyText, async (i, text) => {
        const r = await send(routes[i], text);
        const body = routes[i].method === 'POST' && r.status === 200 && r.text.includes('\n') ? null : JSON.parse(r.text || 'null');
        assertAnswer(r.status, body, `${routes[i].path} ${text.slice(0, 200)}`);
      }),
      { seed: 11, numRuns: 100 },
    );
    await stillServing();
  } finally {
    await tq.close();
  }
});

test('tq serve: an error whose answer cannot be written cuts that connection, not the process', async () => {
  const unanswerable: Route = {
    path: '/test/unanswerable',
    method: 'POST',
    body: 'none',
    run: () => {
      const e = tqError('TQ_INVALID_REQUEST', { reason: 'x' });
      e.body = () => {
        throw new RangeError('Maximum call stack size exceeded');
      };
      throw e;
    },
  };
  const tq = createTqServer({ engine: createEngine(), routes: [...allRoutes(), unanswerable], users: new Users([{ name: 'u', password: 'p', projects: ['*'] }]) });
  const { port } = await tq.listen('127.0.0.1', 0);
  try {
    await assert.rejects(fetch(`http://127.0.0.1:${port}/test/unanswerable`, { method: 'POST', headers: { authorization: AUTH } }));
    const health = await fetch(`http://127.0.0.1:${port}/health`);
    assert.equal(health.status, 200);
  } finally {
    await tq.close();
  }
});
