/**
 * `tq serve` as the Weave SDKs meet it (docs/local-weave-server.md), over a real server on port 0:
 * Bearer tokens, the calls_complete switch (the request sequence of the Python client's
 * StainlessRemoteHTTPTraceServer), Weave's mock control plane, the path aliases and hints, TLS.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { get as httpsGet } from 'node:https';
import { readFileSync, rmSync } from 'node:fs';
import { allRoutes } from '../routes.ts';
import { createEngine } from '../engine.ts';
import { Users } from './basic-auth.ts';
import { createTqServer, type TqServer, type TqServerOptions } from './server.ts';
import { callsCompleteCheck, DOUBLE_SLASH_REASON } from './weave-compat.ts';
import { makeTestCert } from './tls.testing.ts';

const KEY = 'sdk-key';
const basic = (user: string, password: string) => 'Basic ' + Buffer.from(`${user}:${password}`).toString('base64');
const API = basic('api', KEY);

function users() {
  return new Users([
    { name: 'api', password: KEY, projects: ['team/*', 'cc/*', 'mixed/*'] },
    { name: 'agent', password: 'unused-password', projects: ['team/*'], tokens: ['wandb_v1_agent-token'] },
    { name: 'outsider', password: 'o', projects: ['elsewhere/*'], tokens: ['outsider-token'] },
  ]);
}

async function start(extra: Partial<TqServerOptions> = {}): Promise<{ srv: TqServer; base: string }> {
  const srv = createTqServer({ engine: createEngine(undefined, { fieldPrefix: 'wb_' }), routes: allRoutes(), users: users(), ...extra });
  const { port } = await srv.listen('127.0.0.1', 0);
  return { srv, base: `http://127.0.0.1:${port}` };
}

const post = (base: string, path: string, body: unknown, auth: string | undefined = API) =>
  fetch(base + path, { method: 'POST', headers: { 'Content-Type': 'application/json', ...(auth ? { Authorization: auth } : {}) }, body: JSON.stringify(body) });
const answer = async (r: Response) => ({ status: r.status, body: (await r.json()) as unknown });

const started = (projectId: string, id: string) => ({
  project_id: projectId, id, trace_id: `t-${id}`, op_name: 'weave:///x/op/f:1', started_at: '2024-05-01T00:00:00Z', attributes: {}, inputs: { a: 1 },
});
const ended = (projectId: string, id: string) => ({ project_id: projectId, id, ended_at: '2024-05-01T00:00:01Z', output: 2, summary: {} });
const streamRows = async (base: string, projectId: string) =>
  (await (await post(base, '/calls/stream_query', { project_id: projectId })).text()).split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);

describe('Bearer tokens (semantics.md#auth-basic, semantics.md#auth-401)', () => {
  let s: { srv: TqServer; base: string };
  before(async () => (s = await start()));
  after(() => s.srv.close());
  const bearer = (token: string) => `Bearer ${token}`;

  it('a listed token and the api password sign in as their users; grants apply', async () => {
    const asAgent = await post(s.base, '/calls/stream_query', { project_id: 'team/p' }, bearer('wandb_v1_agent-token'));
    assert.equal(asAgent.status, 200);
    const asApi = await post(s.base, '/calls/stream_query', { project_id: 'cc/p' }, bearer(KEY));
    assert.equal(asApi.status, 200);
    // agent's grants are team/* only.
    assert.deepEqual(await answer(await post(s.base, '/calls/stream_query', { project_id: 'cc/p' }, bearer('wandb_v1_agent-token'))), {
      status: 403,
      body: { reason: "User 'agent' has no access to project 'cc/p'" },
    });
    assert.deepEqual(await answer(await post(s.base, '/calls/stream_query', { project_id: 'team/p' }, 'bearer  outsider-token ')), {
      status: 403,
      body: { reason: "User 'outsider' has no access to project 'team/p'" },
    });
  });

  it('an unknown token, a user password that is not api\'s, an empty token: 401', async () => {
    for (const [header, reason] of [
      [bearer('nope'), 'Invalid API key'],
      [bearer('unused-password'), 'Invalid API key'],
      ['Bearer', "Malformed Authorization header: expected 'Bearer <token>'"],
      ['Bearer   ', "Malformed Authorization header: expected 'Bearer <token>'"],
    ]) {
      const r = await post(s.base, '/calls/stream_query', { project_id: 'team/p' }, header);
      assert.equal(r.status, 401, header);
      assert.equal(r.headers.get('www-authenticate'), 'Basic realm="tq"');
      assert.deepEqual(await r.json(), { reason }, header);
    }
  });

  it('a token given to two users, or equal to the api password, is refused at start-up', () => {
    assert.throws(() => new Users([{ name: 'a', password: 'p', projects: [], tokens: ['t'] }, { name: 'b', password: 'q', projects: [], tokens: ['t'] }]), /a token of user 'b' is already another user's token or the 'api' password/);
    assert.throws(() => new Users([{ name: 'api', password: 'k', projects: [] }, { name: 'b', password: 'q', projects: [], tokens: ['k'] }]), /already another user's token or the 'api' password/);
    assert.throws(() => new Users([{ name: 'b', password: 'q', projects: [], tokens: [''] }]), /empty token for user 'b'/);
  });
});

describe('calls_complete mode: the Python client\'s request sequence', () => {
  let s: { srv: TqServer; base: string };
  before(async () => (s = await start({ assertLegacyCallWrite: callsCompleteCheck('legacy', ['cc/*']) })));
  after(() => s.srv.close());
  const required = (projectId: string) => ({
    status: 400,
    body: {
      reason: `The project '${projectId}' has been created in the more performant 'complete' mode. Please upgrade your SDK to at least: 0.52.26 to write to this project.`,
      error_code: 'CALLS_COMPLETE_MODE_REQUIRED',
    },
  });

  it('legacy writes get production\'s 400; the client switches to /v2 and its calls read back unchanged', async () => {
    // 1. The batch processor's flush: POST /call/upsert_batch (StartBatchItem, EndBatchItem).
    const batch = { batch: [{ mode: 'start', req: { start: started('cc/app', 'c1') } }, { mode: 'end', req: { end: ended('cc/app', 'c1') } }] };
    assert.deepEqual(await answer(await post(s.base, '/call/upsert_batch', batch)), required('cc/app'));
    assert.deepEqual(await answer(await post(s.base, '/call/start', { start: started('cc/app', 'c0') })), required('cc/app'));
    assert.deepEqual(await answer(await post(s.base, '/call/end', { end: ended('cc/app', 'c0') })), required('cc/app'));
    assert.deepEqual(await streamRows(s.base, 'cc/app'), [], 'a refused write writes nothing');
    // 2. Upgraded: the same call re-sent whole to /v2/{entity}/{project}/calls/complete.
    const complete = { batch: [{ ...started('cc/app', 'c1'), ...ended('cc/app', 'c1') }] };
    assert.deepEqual(await answer(await post(s.base, '/v2/cc/app/calls/complete', complete)), { status: 200, body: {} });
    // 3. Eager ops (evaluations) go one by one to /v2/.../call/start and /call/end.
    assert.deepEqual(await answer(await post(s.base, '/v2/cc/app/call/start', { start: started('cc/app', 'c2') })), { status: 200, body: { id: 'c2', trace_id: 't-c2' } });
    assert.deepEqual(await answer(await post(s.base, '/v2/cc/app/call/end', { end: ended('cc/app', 'c2') })), { status: 200, body: {} });
    // 4. Reads are unchanged.
    const rows = await streamRows(s.base, 'cc/app');
    assert.deepEqual(rows.map((r) => [r.id, r.output, r.wb_user_id]), [['c1', 2, 'api'], ['c2', 2, 'api']]);
  });

  it('only the named projects; a batch touching one is refused whole', async () => {
    assert.equal((await post(s.base, '/call/start', { start: started('team/app', 'l1') })).status, 200);
    const mixed = { batch: [{ mode: 'start', req: { start: started('team/app', 'l2') } }, { mode: 'start', req: { start: started('cc/other', 'l3') } }] };
    assert.deepEqual(await answer(await post(s.base, '/call/upsert_batch', mixed)), required('cc/other'));
    assert.deepEqual((await streamRows(s.base, 'team/app')).map((r) => r.id), ['l1']);
  });

  it('a 403 and a 422 come before the mode check, as in production', async () => {
    assert.equal((await post(s.base, '/call/start', { start: started('cc/app', 'x') }, basic('outsider', 'o'))).status, 403);
    assert.equal((await post(s.base, '/call/start', { start: { project_id: 'cc/app' } })).status, 422);
  });

  it('--calls-mode complete covers every project; a bad pattern is refused', () => {
    const all = callsCompleteCheck('complete', [])!;
    assert.throws(() => all('any/thing'), (e: Error & { body(): unknown }) => (e.body() as { error_code: string }).error_code === 'CALLS_COMPLETE_MODE_REQUIRED');
    assert.equal(callsCompleteCheck('legacy', []), undefined);
    assert.throws(() => callsCompleteCheck('legacy', ['a/b/c']), /invalid project pattern 'a\/b\/c'/);
  });
});

describe("Weave's mock control plane (--test-control)", () => {
  let s: { srv: TqServer; base: string };
  before(async () => (s = await start({ testControl: true })));
  after(() => s.srv.close());

  it('health, getCalls and reset answer without credentials, in the mock\'s shapes', async () => {
    assert.deepEqual(await answer(await fetch(s.base + '/test/health')), { status: 200, body: { ok: true } });
    await post(s.base, '/call/start', { start: started('team/a', 'a1') });
    await post(s.base, '/call/start', { start: started('team/b', 'b1') });
    const got = await answer(await fetch(s.base + '/test/getCalls?project_id=team%2Fa'));
    assert.equal(got.status, 200);
    assert.deepEqual((got.body as { calls: Array<{ id: string; project_id: string }> }).calls.map((c) => [c.project_id, c.id]), [['team/a', 'a1']]);
    assert.deepEqual(await answer(await fetch(s.base + '/test/getCalls')), {
      status: 400,
      body: { reason: 'Missing query parameter: project_id (e.g. /test/getCalls?project_id=entity/project)' },
    });
    assert.deepEqual(await answer(await fetch(s.base + '/test/reset?project_id=team/a', { method: 'POST' })), { status: 200, body: { ok: true } });
    assert.deepEqual(await answer(await fetch(s.base + '/test/getCalls?project_id=team/a')), { status: 200, body: { calls: [] } });
    assert.equal((await streamRows(s.base, 'team/b')).length, 1, 'a per-project reset keeps the others');
    assert.deepEqual(await answer(await fetch(s.base + '/test/reset', { method: 'POST' })), { status: 200, body: { ok: true } });
    assert.deepEqual(await streamRows(s.base, 'team/b'), []);
  });

  it('without --test-control the paths do not exist', async () => {
    const plain = await start();
    try {
      assert.deepEqual(await answer(await fetch(plain.base + '/test/health')), { status: 404, body: { reason: 'Not Found' } });
      assert.equal((await fetch(plain.base + '/test/reset', { method: 'POST', headers: { Authorization: API } })).status, 404);
    } finally {
      await plain.srv.close();
    }
  });
});

describe('paths and hints the SDKs need', () => {
  let s: { srv: TqServer; base: string };
  before(async () => (s = await start()));
  after(() => s.srv.close());

  it('a // path is a 404 whose reason says to drop the trailing slash', async () => {
    assert.deepEqual(await answer(await post(s.base, '//call/upsert_batch', { batch: [] })), { status: 404, body: { reason: DOUBLE_SLASH_REASON } });
    assert.deepEqual(await answer(await post(s.base, '/nope', {})), { status: 404, body: { reason: 'Not Found' } });
  });

  it('/traces/<path> (WANDB_BASE_URL without WF_TRACE_SERVER_URL) is served as /<path>', async () => {
    await post(s.base, '/traces/call/start', { start: started('team/t', 't1') });
    assert.deepEqual((await streamRows(s.base, 'team/t')).map((r) => r.id), ['t1']);
    assert.equal((await post(s.base, '/traces', {})).status, 404);
  });

  it('/server_info has trace_server_version; /files/content is /file/content', async () => {
    const info = (await answer(await fetch(s.base + '/server_info', { headers: { Authorization: API } }))).body as Record<string, string>;
    assert.equal(info.min_required_weave_python_version, '0.0.0');
    assert.match(info.trace_server_version, /^\d+\.\d+\.\d+/);
    const form = new FormData();
    form.set('project_id', 'team/f');
    form.set('file', new Blob([Buffer.from('print(1)\n')]), 'obj.py');
    const created = (await (await fetch(s.base + '/files/create', { method: 'POST', headers: { Authorization: API }, body: form })).json()) as { digest: string };
    for (const path of ['/files/content', '/file/content']) {
      const r = await post(s.base, path, { project_id: 'team/f', digest: created.digest });
      assert.equal(r.status, 200, path);
      assert.equal(await r.text(), 'print(1)\n');
    }
    assert.equal((await post(s.base, '/files/content', { project_id: 'elsewhere/f', digest: created.digest }, basic('agent', 'unused-password'))).status, 403);
  });

  it('the other spelling of a field: a 422 whose reason names this server\'s spelling and the flag', async () => {
    const r = await answer(await post(s.base, '/calls/stream_query', { project_id: 'team/p', filter: { svc_user_ids: ['u'] } }));
    assert.deepEqual(r, {
      status: 422,
      body: {
        detail: [{ type: 'extra_forbidden', loc: ['body', 'filter', 'svc_user_ids'], msg: 'Extra inputs are not permitted', input: ['u'] }],
        reason: 'This server speaks wb_ field names, and the request uses svc_ ones (svc_user_ids): restart tq serve with --field-prefix svc_ (the Weave SDKs send wb_)',
      },
    });
    // A 422 about anything else stays FastAPI's bare body.
    assert.deepEqual(Object.keys((await answer(await post(s.base, '/calls/stream_query', { project_id: 'team/p', limit: 'x' }))).body as object), ['detail']);
  });

  it('and the other way round: a svc_ server told wb_', async () => {
    const svc = await start({ engine: createEngine() });
    try {
      const r = (await answer(await post(svc.base, '/calls/stream_query', { project_id: 'team/p', filter: { wb_user_ids: ['u'], wb_run_ids: ['r'] } }))).body as { reason: string };
      assert.equal(r.reason, 'This server speaks svc_ field names, and the request uses wb_ ones (wb_user_ids, wb_run_ids): restart tq serve with --field-prefix wb_ (the Weave SDKs send wb_)');
    } finally {
      await svc.srv.close();
    }
  });
});

describe('TLS (--tls-cert/--tls-key)', () => {
  it('serves https with the certificate; a client trusting it reads /server_info', async () => {
    const cert = makeTestCert();
    const srv = createTqServer({ engine: createEngine(), routes: allRoutes(), users: users(), tls: { cert: readFileSync(cert.certFile), key: readFileSync(cert.keyFile) } });
    try {
      const { port } = await srv.listen('127.0.0.1', 0);
      const body = await new Promise<{ status?: number; text: string }>((resolve, reject) => {
        httpsGet({ host: '127.0.0.1', port, path: '/traces/server_info', ca: readFileSync(cert.certFile), headers: { Authorization: `Bearer ${KEY}` } }, (res) => {
          let text = '';
          res.on('data', (c: Buffer) => (text += c.toString()));
          res.on('end', () => resolve({ status: res.statusCode, text }));
        }).on('error', reject);
      });
      assert.equal(body.status, 200);
      assert.match(body.text, /"trace_server_version":/);
      // Plain http to the TLS port is not answered as http.
      await assert.rejects(fetch(`http://127.0.0.1:${port}/health`));
    } finally {
      await srv.close();
      rmSync(cert.dir, { recursive: true, force: true });
    }
  });
});
