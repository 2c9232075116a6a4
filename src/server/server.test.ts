/**
 * The HTTP front end against a real server on port 0 with a small fake route set (the real
 * routes are tested where they live).
 */
import { lineStream } from '../api/line-stream.ts';
import assert from 'node:assert/strict';
import { request, type IncomingMessage } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { plainBody } from '../api/body.ts';
import type { Engine, RequestBody, Route } from '../api/types.ts';
import { invalidRequest } from '../core/errors.ts';
import { MALFORMED_CREDENTIALS, MISSING_CREDENTIALS, Users, WRONG_CREDENTIALS } from './basic-auth.ts';
import { createTqServer, type TqServer, type TqServerOptions } from './server.ts';
import { formatText } from './request-log.ts';

const basic = (user: string, password: string) => 'Basic ' + Buffer.from(`${user}:${password}`).toString('base64');
const ALICE = basic('alice', 'wonderland');
const ROOT = basic('root', 'to:or');

const users = new Users([
  { name: 'alice', password: 'wonderland', projects: ['acme/*'] },
  { name: 'bob', password: 'builder', projects: ['x/y'] },
  { name: 'root', password: 'to:or', projects: ['*'] },
]);

/** The fake routes never touch the engine. */
const engine = { options: { fieldPrefix: 'svc_', now: () => 0, newId: () => 'id' } } as unknown as Engine;

function objectBody(body: RequestBody): Record<string, unknown> {
  const value = plainBody(body);
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw invalidRequest('TQ_INVALID_REQUEST', { reason: 'not an object' });
  return value as Record<string, unknown>;
}

/** Observations of the lazily pulled stream of /big. */
const big = { lineChars: 1024, total: 100_000, pulled: 0, closed: false };

function* bigLines() {
  big.pulled = 0;
  big.closed = false;
  const pad = 'x'.repeat(big.lineChars - 20);
  try {
    for (let i = 0; i < big.total; i++) {
      big.pulled++;
      yield JSON.stringify({ i, pad });
    }
  } finally {
    big.closed = true;
  }
}

const routes: Route[] = [
  { path: '/health', method: 'GET', body: 'none', run: () => ({ kind: 'json', body: { status: 'ok' } }) },
  { path: '/whoami', method: 'GET', body: 'none', run: (_e, _b, ctx) => ({ kind: 'json', body: { user: ctx.userId } }) },
  {
    path: '/echo',
    method: 'POST',
    body: 'json',
    run: (_e, body, ctx) => {
      const value = objectBody(body);
      ctx.authorize(String(value.project_id));
      return { kind: 'json', body: { user: ctx.userId, value } };
    },
  },
  {
    path: '/lines',
    method: 'POST',
    body: 'json',
    run: (_e, body, ctx) => {
      const value = objectBody(body);
      ctx.authorize(String(value.project_id));
      const n = Number(value.n);
      return lineStream((function* () { for (let i = 0; i < n; i++) yield JSON.stringify({ i }); })());
    },
  },
  { path: '/big', method: 'POST', body: 'json', run: () => lineStream(bigLines()) },
  {
    path: '/boom',
    method: 'POST',
    body: 'json',
    run: () => {
      throw new Error('boom: secret internals at /srv/tq');
    },
  },
  {
    path: '/first-line-fails',
    method: 'POST',
    body: 'json',
    run: () =>
      lineStream(
        (function* (): Generator<string> {
          throw invalidRequest('TQ_EMPTY_AND');
        })(),
      ),
  },
  {
    path: '/fails-midway',
    method: 'POST',
    body: 'json',
    run: () =>
      lineStream(
        (function* () {
          for (let i = 0; i < 200_000; i++) yield JSON.stringify({ i });
          throw new Error('bug after the headers');
        })(),
      ),
  },
  {
    path: '/upload',
    method: 'POST',
    body: 'multipart',
    run: (_e, body, ctx) => {
      assert.equal(body.kind, 'multipart');
      const project = body.fields.get('project_id');
      if (project === undefined) throw invalidRequest('TQ_INVALID_REQUEST', { reason: 'project_id missing' });
      ctx.authorize(project);
      const files: Record<string, string> = {};
      for (const [name, bytes] of body.files) files[name] = Buffer.from(bytes).toString('base64');
      return { kind: 'json', body: { fields: Object.fromEntries(body.fields), files } };
    },
  },
];

async function startServer(extra: Partial<TqServerOptions> = {}): Promise<{ srv: TqServer; base: string; port: number }> {
  const srv = createTqServer({ engine, routes, users, ...extra });
  const { port } = await srv.listen('127.0.0.1', 0);
  return { srv, base: `http://127.0.0.1:${port}`, port };
}

/** `auth: null` sends no Authorization header. */
const post = (base: string, path: string, body: unknown, auth: string | null = ROOT, headers: Record<string, string> = {}) =>
  fetch(base + path, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...(auth ? { Authorization: auth } : {}), ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

async function expectJson(res: Response, status: number, body: unknown): Promise<void> {
  const text = await res.text();
  assert.equal(res.status, status, text);
  assert.equal(res.headers.get('content-type'), 'application/json');
  assert.deepEqual(JSON.parse(text), body);
}

/** Raw request with node:http, for the cases fetch hides (pausing, disconnecting). */
function rawRequest(port: number, path: string, body: string, auth = ROOT): Promise<{ res: IncomingMessage; abort: () => void }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path, method: 'POST', agent: false, headers: { Authorization: auth, 'Content-Type': 'application/json' } },
      (res) => resolve({ res, abort: () => req.destroy() }),
    );
    req.on('error', reject);
    req.end(body);
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(condition: () => boolean, what: string, ms = 3000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await sleep(5);
  }
}

describe('tq serve: auth (semantics.md#auth-401, semantics.md#auth-basic)', () => {
  let base: string;
  let srv: TqServer;
  before(async () => ({ srv, base } = await startServer()));
  after(() => srv.close());

  const unauthorized = async (res: Response, reason: string) => {
    assert.equal(res.headers.get('www-authenticate'), 'Basic realm="tq"');
    await expectJson(res, 401, { reason });
  };

  it('no Authorization header → 401 with WWW-Authenticate', async () => {
    await unauthorized(await post(base, '/echo', { project_id: 'acme/bot' }, null), MISSING_CREDENTIALS);
  });

  it('malformed header → 401', async () => {
    await unauthorized(await post(base, '/echo', { project_id: 'acme/bot' }, 'Digest xyz'), MALFORMED_CREDENTIALS);
    await unauthorized(await post(base, '/echo', { project_id: 'acme/bot' }, 'Basic ###'), MALFORMED_CREDENTIALS);
    await unauthorized(await post(base, '/echo', { project_id: 'acme/bot' }, 'Basic ' + Buffer.from('alice').toString('base64')), MALFORMED_CREDENTIALS);
  });

  it('wrong password and unknown user → the same 401', async () => {
    await unauthorized(await post(base, '/echo', { project_id: 'acme/bot' }, basic('alice', 'nope')), WRONG_CREDENTIALS);
    await unauthorized(await post(base, '/echo', { project_id: 'acme/bot' }, basic('mallory', 'wonderland')), WRONG_CREDENTIALS);
  });

  it('credentials are checked before the body: a 401 for an invalid body too', async () => {
    await unauthorized(await post(base, '/echo', '{not json', null), MISSING_CREDENTIALS);
  });

  it('valid user without a grant → 403 PermissionDenied body', async () => {
    await expectJson(await post(base, '/echo', { project_id: 'x/y' }, ALICE), 403, { reason: "User 'alice' has no access to project 'x/y'" });
    await expectJson(await post(base, '/echo', { project_id: 'acme/bot' }, basic('bob', 'builder')), 403, {
      reason: "User 'bob' has no access to project 'acme/bot'",
    });
  });

  it('grant by glob entity/*, exact grant and * → 200', async () => {
    await expectJson(await post(base, '/echo', { project_id: 'acme/bot' }, ALICE), 200, { user: 'alice', value: { project_id: 'acme/bot' } });
    await expectJson(await post(base, '/echo', { project_id: 'x/y' }, basic('bob', 'builder')), 200, { user: 'bob', value: { project_id: 'x/y' } });
    await expectJson(await post(base, '/echo', { project_id: 'any/where' }, ROOT), 200, { user: 'root', value: { project_id: 'any/where' } });
  });

  it('a 403 on a stream route comes before any byte of the stream', async () => {
    await expectJson(await post(base, '/lines', { project_id: 'x/y', n: 3 }, ALICE), 403, { reason: "User 'alice' has no access to project 'x/y'" });
  });

  it('GET /health needs no credentials (and ignores bad ones); other GETs do', async () => {
    await expectJson(await fetch(base + '/health'), 200, { status: 'ok' });
    await expectJson(await fetch(base + '/health', { headers: { Authorization: 'Basic ###' } }), 200, { status: 'ok' });
    await unauthorized(await fetch(base + '/whoami'), MISSING_CREDENTIALS);
    await expectJson(await fetch(base + '/whoami', { headers: { Authorization: ALICE } }), 200, { user: 'alice' });
  });
});

describe('tq serve: transport errors (semantics.md#errors-transport) and bodies (semantics.md#errors-422)', () => {
  let base: string;
  let port: number;
  let srv: TqServer;
  const logged: string[] = [];
  before(async () => ({ srv, base, port } = await startServer({ maxBodyBytes: 4096, log: (m) => logged.push(m), requestLog: (e) => logged.push(formatText(e)) })));
  after(() => srv.close());

  it('unknown path → 404 {reason}; the query string is ignored; //path is not normalised', async () => {
    await expectJson(await post(base, '/nope', {}), 404, { reason: 'Not Found' });
    await expectJson(await post(base, '/echo?x=1', { project_id: 'a/b' }), 200, { user: 'root', value: { project_id: 'a/b' } });
    const res = await new Promise<IncomingMessage>((resolve, reject) => {
      request({ host: '127.0.0.1', port, path: '//echo', method: 'POST', headers: { Authorization: ROOT } }, resolve).on('error', reject).end('{}');
    });
    assert.equal(res.statusCode, 404);
    res.resume();
  });

  it('wrong method → 405 with Allow, before authentication', async () => {
    const res = await fetch(base + '/echo');
    assert.equal(res.headers.get('allow'), 'POST');
    await expectJson(res, 405, { reason: 'Method Not Allowed' });
    const health = await post(base, '/health', {});
    assert.equal(health.headers.get('allow'), 'GET');
    await expectJson(health, 405, { reason: 'Method Not Allowed' });
    const options = await fetch(base + '/echo', { method: 'OPTIONS' });
    assert.equal(options.status, 405, 'OPTIONS without --cors');
    await options.arrayBuffer();
  });

  it('a body over the limit → 413 (declared Content-Length)', async () => {
    const res = await post(base, '/echo', JSON.stringify({ project_id: 'a/b', pad: 'x'.repeat(5000) }));
    assert.equal(res.headers.get('connection'), 'close');
    await expectJson(res, 413, { reason: 'Request too large' });
  });

  it('a chunked body over the limit → 413 (reading stops at the limit)', async () => {
    const res = await new Promise<IncomingMessage>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, path: '/echo', method: 'POST', agent: false, headers: { Authorization: ROOT } }, resolve);
      req.on('error', reject);
      req.write('{"pad": "' + 'x'.repeat(3000));
      req.write('x'.repeat(3000) + '"}');
      req.end();
    });
    assert.equal(res.statusCode, 413);
    assert.equal(res.headers['transfer-encoding'] ?? 'none', 'none');
    const text = await new Promise<string>((resolve) => {
      let t = '';
      res.on('data', (c) => (t += c)).on('end', () => resolve(t));
    });
    assert.deepEqual(JSON.parse(text), { reason: 'Request too large' });
    // The server still serves.
    await expectJson(await fetch(base + '/health'), 200, { status: 'ok' });
  });

  it('a body exactly at the limit is read', async () => {
    const body = JSON.stringify({ project_id: 'a/b', pad: '' });
    const padded = body.replace('"pad":""', `"pad":"${'y'.repeat(4096 - body.length)}"`);
    assert.equal(padded.length, 4096);
    const res = await post(base, '/echo', padded);
    assert.equal(res.status, 200);
    await res.arrayBuffer();
  });

  it('semantics.md#errors-422 invalid JSON → 422 json_invalid from the route', async () => {
    await expectJson(await post(base, '/echo', '{bad'), 422, {
      detail: [{ type: 'json_invalid', loc: ['body', 1], msg: 'JSON decode error', input: {}, ctx: { error: 'Expecting property name enclosed in double quotes' } }],
    });
    await expectJson(await post(base, '/echo', ''), 422, {
      detail: [{ type: 'json_invalid', loc: ['body', 0], msg: 'JSON decode error', input: {}, ctx: { error: 'Expecting value' } }],
    });
  });

  it('a bug → 500 {"reason":"Internal server error"} naming no internals; the server keeps serving', async () => {
    const res = await post(base, '/boom', {});
    const text = await res.text();
    assert.equal(res.status, 500);
    assert.equal(text, '{"reason":"Internal server error"}');
    assert.ok(logged.some((m) => m.includes('boom: secret internals') && m.includes('server.test.ts')), 'stack logged with --log');
    await expectJson(await post(base, '/echo', { project_id: 'a/b' }), 200, { user: 'root', value: { project_id: 'a/b' } });
  });

  it('a TqError on the first pull of a stream is still a clean status', async () => {
    await expectJson(await post(base, '/first-line-fails', {}), 400, { reason: 'Empty AND operation' });
  });

  it('a bug after the headers cuts the connection (never a short body that looks complete)', async () => {
    const res = await post(base, '/fails-midway', {});
    assert.equal(res.status, 200);
    await assert.rejects(res.text());
    assert.ok(logged.some((m) => m.includes('bug after the headers')));
    await expectJson(await fetch(base + '/health'), 200, { status: 'ok' });
  });

  it('the request log has one line per request', () => {
    assert.ok(logged.some((m) => /^\d\d:\d\d:\d\d\.\d{3} POST \/echo 200 project=a\/b user=root bytes=\d+ \d+\.\dms$/.test(m)), logged.join('\n'));
  });

  it('without log, a 500 is still a 500 and nothing is written', async () => {
    const quiet = await startServer();
    try {
      const res = await post(quiet.base, '/boom', {});
      assert.equal(res.status, 500);
      assert.equal(await res.text(), '{"reason":"Internal server error"}');
    } finally {
      await quiet.srv.close();
    }
  });
});

describe('tq serve: JSONL streams (semantics.md#wire-jsonl)', () => {
  let base: string;
  let port: number;
  let srv: TqServer;
  before(async () => ({ srv, base, port } = await startServer()));
  after(() => srv.close());

  it('one object per line, "\\n" after each, content type application/jsonl', async () => {
    const res = await post(base, '/lines', { project_id: 'a/b', n: 3 });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/jsonl');
    assert.equal(await res.text(), '{"i":0}\n{"i":1}\n{"i":2}\n');
  });

  it('an empty result is an empty body with status 200', async () => {
    const res = await post(base, '/lines', { project_id: 'a/b', n: 0 });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/jsonl');
    assert.equal(res.headers.get('content-length'), '0');
    assert.equal(await res.text(), '');
  });

  it('backpressure: a slow reader does not make the server pull the whole stream', async () => {
    const pad = 'x'.repeat(big.lineChars - 20);
    let totalBytes = 0;
    for (let i = 0; i < big.total; i++) totalBytes += JSON.stringify({ i, pad }).length + 1;
    const { res } = await rawRequest(port, '/big', '{}');
    res.pause();
    await until(() => big.pulled > 0, 'the first pull');
    await sleep(300);
    const pulledWhilePaused = big.pulled;
    assert.ok(pulledWhilePaused < big.total / 5, `pulled ${pulledWhilePaused} of ${big.total} lines while the client read nothing`);
    // Reading on: everything arrives, line by line.
    let bytes = 0;
    let newlines = 0;
    res.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, i + 1)) newlines++;
    });
    res.resume();
    await new Promise((r) => res.on('end', r));
    assert.equal(newlines, big.total);
    assert.equal(bytes, totalBytes);
    assert.equal(big.pulled, big.total);
  });

  it('a client that disconnects mid-stream: pulling stops, the generator is closed, the server stays healthy', async () => {
    const { res, abort } = await rawRequest(port, '/big', '{}');
    await new Promise((r) => res.once('data', r));
    abort();
    await until(() => big.closed, 'the generator to be closed');
    const pulledAtClose = big.pulled;
    assert.ok(pulledAtClose < big.total, 'stopped before the end');
    await sleep(50);
    assert.equal(big.pulled, pulledAtClose, 'no pulls after the disconnect');
    await expectJson(await fetch(base + '/health'), 200, { status: 'ok' });
    assert.equal(await (await post(base, '/lines', { project_id: 'a/b', n: 2 })).text(), '{"i":0}\n{"i":1}\n');
  });
});

describe('tq serve: multipart/form-data', () => {
  let base: string;
  let srv: TqServer;
  before(async () => ({ srv, base } = await startServer({ maxBodyBytes: 64 * 1024 })));
  after(() => srv.close());

  const bytes = Buffer.concat([Buffer.from(Array.from({ length: 256 }, (_, i) => i)), Buffer.from('\r\n--\r\n\r\n')]);

  it('fields and binary file bytes arrive exactly (as the Weave SDK sends /file/create)', async () => {
    const form = new FormData();
    form.append('project_id', 'acme/bot');
    form.append('file', new Blob([bytes], { type: 'application/octet-stream' }), 'blob');
    const res = await fetch(base + '/upload', { method: 'POST', headers: { Authorization: ALICE }, body: form });
    await expectJson(res, 200, { fields: { project_id: 'acme/bot' }, files: { file: bytes.toString('base64') } });
  });

  it('the project grant applies to multipart routes too', async () => {
    const form = new FormData();
    form.append('project_id', 'x/y');
    const res = await fetch(base + '/upload', { method: 'POST', headers: { Authorization: ALICE }, body: form });
    await expectJson(res, 403, { reason: "User 'alice' has no access to project 'x/y'" });
  });

  it('a non-multipart body reaches the route with no fields', async () => {
    await expectJson(await post(base, '/upload', { project_id: 'acme/bot' }, ALICE), 400, { reason: 'project_id missing' });
  });

  it('a malformed multipart body → 400 as Starlette words it', async () => {
    const res = await fetch(base + '/upload', {
      method: 'POST',
      headers: { Authorization: ALICE, 'Content-Type': 'multipart/form-data; boundary=XYZ' },
      body: '--XYZ\r\nContent-Disposition: form-data; name="project_id"\r\n\r\nacme/bot',
    });
    await expectJson(res, 400, { reason: 'There was an error parsing the body' });
  });

  it('a multipart body over the limit → 413', async () => {
    const form = new FormData();
    form.append('project_id', 'acme/bot');
    form.append('file', new Blob([Buffer.alloc(70 * 1024)]), 'blob');
    await expectJson(await fetch(base + '/upload', { method: 'POST', headers: { Authorization: ALICE }, body: form }), 413, {
      reason: 'Request too large',
    });
  });
});

describe('tq serve --cors', () => {
  let base: string;
  let srv: TqServer;
  before(async () => ({ srv, base } = await startServer({ cors: true, corsOrigins: ['http://app.example'] })));
  after(() => srv.close());

  it('allows loopback origins and the --cors-origin ones only; no other page can read an answer (issue 22 §6)', async () => {
    const allowOf = async (origin: string) => {
      const res = await post(base, '/echo', { project_id: 'a/b' }, ROOT, { Origin: origin });
      await res.arrayBuffer();
      return [res.headers.get('access-control-allow-origin'), res.headers.get('access-control-allow-credentials'), res.headers.get('vary')];
    };
    assert.deepEqual(await allowOf('http://localhost:3000'), ['http://localhost:3000', 'true', 'Origin']);
    assert.deepEqual(await allowOf('http://127.0.0.1:5173'), ['http://127.0.0.1:5173', 'true', 'Origin']);
    assert.deepEqual(await allowOf('https://[::1]'), ['https://[::1]', 'true', 'Origin']);
    assert.deepEqual(await allowOf('https://evil.example'), [null, null, 'Origin']);
    assert.deepEqual(await allowOf('http://localhost.evil.example'), [null, null, 'Origin']);
    assert.deepEqual(await allowOf('null'), [null, null, 'Origin']);
  });

  it('grants a Private Network Access preflight to an allowed origin only', async () => {
    const pna = async (origin: string) => {
      const res = await fetch(base + '/echo', { method: 'OPTIONS', headers: { Origin: origin, 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Private-Network': 'true' } });
      await res.arrayBuffer();
      return [res.status, res.headers.get('access-control-allow-private-network'), res.headers.get('access-control-allow-origin')];
    };
    assert.deepEqual(await pna('http://app.example'), [204, 'true', 'http://app.example']);
    assert.deepEqual(await pna('https://evil.example'), [204, null, null]);
  });

  it('answers a preflight without credentials', async () => {
    const res = await fetch(base + '/echo', {
      method: 'OPTIONS',
      headers: { Origin: 'http://app.example', 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'authorization,content-type' },
    });
    assert.equal(res.status, 204);
    assert.equal(res.headers.get('access-control-allow-origin'), 'http://app.example');
    assert.equal(res.headers.get('access-control-allow-methods'), 'POST, OPTIONS');
    assert.equal(res.headers.get('access-control-allow-headers'), 'authorization,content-type');
    assert.equal(res.headers.get('access-control-allow-credentials'), 'true');
    assert.equal(res.headers.get('access-control-max-age'), '600');
    assert.equal(await res.text(), '');
  });

  it('adds the CORS headers to results and errors', async () => {
    const ok = await post(base, '/echo', { project_id: 'a/b' }, ROOT, { Origin: 'http://app.example' });
    assert.equal(ok.headers.get('access-control-allow-origin'), 'http://app.example');
    assert.equal(ok.headers.get('vary'), 'Origin');
    await ok.arrayBuffer();
    const denied = await post(base, '/echo', { project_id: 'a/b' }, null, { Origin: 'http://app.example' });
    assert.equal(denied.status, 401);
    assert.equal(denied.headers.get('access-control-allow-origin'), 'http://app.example');
    await denied.arrayBuffer();
    const missing = await fetch(base + '/nope', { method: 'OPTIONS', headers: { Origin: 'http://app.example' } });
    assert.equal(missing.status, 404);
    await missing.arrayBuffer();
  });

  it('405 lists OPTIONS in Allow', async () => {
    const res = await fetch(base + '/echo', { method: 'PUT', headers: { Authorization: ROOT } });
    assert.equal(res.headers.get('allow'), 'POST, OPTIONS');
    await expectJson(res, 405, { reason: 'Method Not Allowed' });
  });
});

describe('tq serve: graceful close', () => {
  it('stops accepting, lets an in-flight stream finish, then resolves', async () => {
    const { srv, base, port } = await startServer();
    // A keep-alive agent (Node's default): the idle socket must not hold close() open.
    const { res } = await new Promise<{ res: IncomingMessage }>((resolve, reject) => {
      request({ host: '127.0.0.1', port, path: '/big', method: 'POST', headers: { Authorization: ROOT } }, (r) => resolve({ res: r }))
        .on('error', reject)
        .end('{}');
    });
    res.pause();
    await until(() => big.pulled > 0, 'the stream to start');
    let closed = false;
    const closing = srv.close().then(() => (closed = true));
    await sleep(100);
    assert.equal(closed, false, 'close() waits for the in-flight stream');
    await assert.rejects(fetch(base + '/health'), 'no new connections while closing');
    let newlines = 0;
    res.on('data', (chunk: Buffer) => {
      for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, i + 1)) newlines++;
    });
    res.resume();
    await new Promise((r) => res.on('end', r));
    assert.equal(newlines, big.total, 'the stream finished whole');
    await closing;
    assert.equal(closed, true);
    assert.equal(srv.server.listening, false);
  });

  it('close() on a server that never listened resolves', async () => {
    const srv = createTqServer({ engine, routes, users });
    await srv.close();
  });
});
