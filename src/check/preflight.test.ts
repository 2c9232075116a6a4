import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { allRoutes } from '../routes.ts';
import { runMainCaptured } from '../cli/run-tq.testing.ts';
import { createEngine } from '../engine.ts';
import { Users } from '../server/basic-auth.ts';
import { createTqServer, type TqServer } from '../server/server.ts';
import { preflight } from './preflight.ts';

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
});
