import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { allRoutes } from '../routes.ts';
import { runMainCaptured } from '../cli/run-tq.testing.ts';
import { createEngine } from '../engine.ts';
import { Users } from '../server/basic-auth.ts';
import { createTqServer, type TqServer } from '../server/server.ts';
import { fetchServerInfo, hasControlPlane, preflight, resetTarget } from './preflight.ts';

const API = { name: 'api', password: 'pw' };
const BOB = { name: 'bob', password: 'b' };

/** A port nothing listens on: bound, then closed. */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as AddressInfo;
  await new Promise((r) => s.close(r));
  return port;
}

describe('preflight', () => {
  let srv: TqServer, base: string, dead: string;
  before(async () => {
    srv = createTqServer({
      engine: createEngine(),
      routes: allRoutes(),
      users: new Users([
        { name: 'api', password: 'pw', projects: ['conf/*', 'fuzz/*'] },
        { name: 'bob', password: 'b', projects: ['x/y'] },
      ]),
    });
    base = `http://127.0.0.1:${(await srv.listen('127.0.0.1', 0)).port}`;
    dead = `http://127.0.0.1:${await closedPort()}`;
  });
  after(() => srv.close());

  it('passes for a granted user and a valid user without the grant', async () => {
    assert.equal(await preflight({ baseUrl: base + '/', user: API, other: BOB, entity: 'conf' }), undefined);
    assert.equal(await preflight({ baseUrl: base, user: API, entity: 'fuzz' }), undefined);
  });

  it('names what is wrong, in one line', async () => {
    const problems = await Promise.all([
      preflight({ baseUrl: dead, user: API, entity: 'conf' }),
      preflight({ baseUrl: base, user: { name: 'api', password: 'wrong' }, entity: 'conf' }),
      preflight({ baseUrl: base, user: BOB, entity: 'conf' }),
      preflight({ baseUrl: base, user: API, other: { name: 'bob', password: 'x' }, entity: 'conf' }),
      preflight({ baseUrl: base, user: API, other: API, entity: 'conf' }),
      preflight({ baseUrl: base + '/api', user: API, entity: 'conf' }),
      preflight({ baseUrl: 'localhost:6345', user: API, entity: 'conf' }),
      preflight({ baseUrl: 'not a url', user: API, entity: 'conf' }),
    ]);
    const expected = [
      new RegExp(`^cannot reach ${dead}: ECONNREFUSED \\(is the server running there\\?\\)$`),
      new RegExp(`^${base} refused user 'api' \\(401\\): check --user and --password$`),
      /^user 'bob' has no grant on conf\/tq-preflight-\w+ \(403\): the run writes to projects under 'conf\/'; grant it 'conf\/\*'$/,
      new RegExp(`^${base} refused --other-user 'bob' \\(401\\): check --other-user and --other-password$`),
      /^--other-user 'api' may read conf\/tq-preflight-\w+: the auth cases need a valid user without a grant on 'conf\/\*'$/,
      new RegExp(`^${base}/api has no POST /calls/stream_query \\(404\\): is it a trace server, and is --base-url its root\\?$`),
      /^--base-url: must be an http:\/\/ or https:\/\/ URL, got 'localhost:6345'$/,
      /^--base-url: not a URL, got 'not a url'$/,
    ];
    problems.forEach((p, i) => assert.match(p ?? '(none)', expected[i]));
  });

  it('another status is reported with the body; a silent server times out', async () => {
    const odd = createServer((req, res) => {
      if (req.headers.authorization?.includes(Buffer.from('slow:').toString('base64').slice(0, 4))) return; // never answers
      res.writeHead(500).end('kaput');
    });
    await new Promise<void>((r) => odd.listen(0, '127.0.0.1', r));
    const oddBase = `http://127.0.0.1:${(odd.address() as AddressInfo).port}`;
    try {
      assert.equal(await preflight({ baseUrl: oddBase, user: API, entity: 'conf' }), `${oddBase} answered a preflight query with 500: kaput`);
      assert.equal(await preflight({ baseUrl: oddBase, user: { name: 'slow', password: '' }, entity: 'conf', timeoutMs: 200 }), `cannot reach ${oddBase}: no answer within 0.2 s (is the server running there?)`);
    } finally {
      odd.closeAllConnections();
      await new Promise((r) => odd.close(r));
    }
  });

  it('tq check and tq fuzz stop after the preflight with one line and exit 2', async () => {
    for (const command of ['check', 'fuzz']) {
      const r = await runMainCaptured([command, '--base-url', dead, '--password', 'pw']);
      assert.deepEqual([r.code, r.out, r.err], [2, '', `error: cannot reach ${dead}: ECONNREFUSED (is the server running there?)\n`], command);
    }
    const wrong = await runMainCaptured(['check', '--base-url', base, '--password', 'nope']);
    assert.deepEqual([wrong.code, wrong.err], [2, `error: ${base} refused user 'api' (401): check --user and --password\n`]);
  });

  it('a server that speaks the other field spelling is named once, with the flag that fixes it', async () => {
    const wb = createTqServer({ engine: createEngine(undefined, { fieldPrefix: 'wb_' }), routes: allRoutes(), users: new Users([{ name: 'api', password: 'pw', projects: ['conf/*'] }]) });
    const wbBase = `http://127.0.0.1:${(await wb.listen('127.0.0.1', 0)).port}`;
    try {
      assert.equal(await preflight({ baseUrl: wbBase, user: API, entity: 'conf' }), 'the server answers wb_ fields: add --field-prefix wb_');
      assert.equal(await preflight({ baseUrl: wbBase, user: API, entity: 'conf', fieldPrefix: 'wb_' }), undefined);
      assert.equal(await preflight({ baseUrl: base, user: API, entity: 'conf', fieldPrefix: 'wb_' }), 'the server answers svc_ fields: add --field-prefix svc_');
      const r = await runMainCaptured(['check', '--base-url', wbBase, '--password', 'pw']);
      assert.deepEqual([r.code, r.out, r.err], [2, '', 'error: the server answers wb_ fields: add --field-prefix wb_\n']);
    } finally {
      await wb.close();
    }
  });

  it('server_info is read when the server has it; a control plane is found by /test/health and reset by /test/reset', async () => {
    assert.deepEqual(await fetchServerInfo(base, API), JSON.parse(await (await fetch(`${base}/server_info`, { headers: { authorization: `Basic ${Buffer.from('api:pw').toString('base64')}` } })).text()));
    assert.equal(await fetchServerInfo(dead, API), null);
    assert.equal(await hasControlPlane(base, API), false);
    assert.equal(await hasControlPlane(dead, API), false);
    const seen: string[] = [];
    const plane = createServer((req, res) => {
      seen.push(`${req.method} ${req.url}`);
      if (req.url === '/test/health') res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
      else if (req.url === '/test/reset' && seen.length < 3) res.writeHead(200).end('{}');
      else res.writeHead(500).end('reset failed');
    });
    await new Promise<void>((r) => plane.listen(0, '127.0.0.1', r));
    const planeBase = `http://127.0.0.1:${(plane.address() as AddressInfo).port}`;
    try {
      assert.equal(await hasControlPlane(planeBase, API), true);
      await resetTarget(planeBase, API);
      await assert.rejects(resetTarget(planeBase, API), { message: 'POST /test/reset answered 500: reset failed' });
      assert.deepEqual(seen, ['GET /test/health', 'POST /test/reset', 'POST /test/reset']);
    } finally {
      await new Promise((r) => plane.close(r));
    }
  });
});
