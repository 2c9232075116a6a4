/**
 * Issue 22 §4: one bound on the body bytes read and processed at once across connections (503
 * with Retry-After before the body is read), credentials before the body, and large bodies
 * taking turns so waiting requests are answered between them.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request, type IncomingMessage } from 'node:http';
import { connect } from 'node:net';
import { BodyBudget, TakeTurns } from './body-budget.ts';
import { API_AUTH, startDemoServer } from './serving.testing.ts';
import { Users } from './basic-auth.ts';

const KIB = 1024;

test('BodyBudget: room is taken whole or not at all, and given back once', () => {
  const budget = new BodyBudget(100);
  const a = budget.reserve();
  const b = budget.reserve();
  assert.equal(a.grow(60), true);
  assert.equal(b.grow(50), false);
  assert.equal(b.bytes, 0);
  assert.equal(b.grow(40), true);
  assert.equal(budget.inUse, 100);
  a.release();
  a.release();
  assert.equal(budget.inUse, 40);
  assert.equal(a.grow(1), false, 'a released reservation takes nothing more');
  b.release();
  assert.equal(budget.inUse, 0);
});

test('TakeTurns: jobs run one at a time in order, with a turn of the event loop between them', async () => {
  const turns = new TakeTurns();
  const seen: string[] = [];
  const first = turns.run(() => {
    seen.push('first');
    // Scheduled while the first job runs: it must run before the second job starts.
    setImmediate(() => seen.push('waiting request'));
    return 1;
  });
  const second = turns.run(async () => {
    seen.push('second');
    return 2;
  });
  const failing = turns.run(() => {
    throw new Error('boom');
  });
  const after = turns.run(() => 'after');
  assert.equal(turns.waiting, 4);
  assert.deepEqual(await Promise.all([first, second, failing.catch((e: Error) => e.message), after]), [1, 2, 'boom', 'after']);
  assert.deepEqual(seen, ['first', 'waiting request', 'second']);
  assert.equal(turns.waiting, 0);
});

/** A /table/create body of exactly `bytes` bytes. */
function tableBody(bytes: number, project = 'acme/budget'): string {
  const shell = JSON.stringify({ table: { project_id: project, rows: [{ s: '' }] } });
  return shell.replace('"s":""', `"s":"${'x'.repeat(bytes - shell.length)}"`);
}

interface Answer {
  status: number;
  headers: IncomingMessage['headers'];
  text: string;
}

/** Sends the headers (declaring `length`) and `sent` of the body; resolves with the answer. */
function partialPost(base: string, path: string, length: number | 'chunked', sent: string[], auth = API_AUTH) {
  const url = new URL(base);
  const headers: Record<string, string> = { Authorization: auth, 'Content-Type': 'application/json' };
  if (length !== 'chunked') headers['Content-Length'] = String(length);
  const req = request({ host: url.hostname, port: url.port, path, method: 'POST', headers, agent: false });
  const answer = new Promise<Answer>((resolve, reject) => {
    req.on('response', (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text }));
    });
    req.on('error', reject);
  });
  req.flushHeaders();
  for (const part of sent) req.write(part);
  return { req, answer };
}

const settle = (ms = 150) => new Promise((r) => setTimeout(r, ms));

test('beyond the bytes in flight: 503 with Retry-After and a reason before the body is read; room comes back once answered', async () => {
  const { srv, base } = await startDemoServer({ maxBodyBytes: 1024 * KIB, maxBodyBytesInFlight: 1536 * KIB });
  try {
    const big = tableBody(1024 * KIB);
    const holder = partialPost(base, '/table/create', big.length, [big.slice(0, 512 * KIB)]);
    await settle();
    // Its body is never sent: the answer comes from the headers alone.
    const refused = partialPost(base, '/table/create', 600 * KIB, []);
    const busy = await refused.answer;
    assert.equal(busy.status, 503);
    assert.equal(busy.headers['retry-after'], '1');
    assert.deepEqual(JSON.parse(busy.text), { reason: 'Server busy: request bodies being read and processed at once would pass 1572864 bytes; retry after 1 s' });
    refused.req.destroy();
    // Small requests still fit, and /health needs no room.
    const small = await fetch(`${base}/calls/query_stats`, { method: 'POST', headers: { Authorization: API_AUTH }, body: JSON.stringify({ project_id: 'acme/support-bot' }) });
    assert.equal(small.status, 200);
    assert.equal((await fetch(`${base}/health`)).status, 200);
    holder.req.end(big.slice(512 * KIB));
    const held = await holder.answer;
    assert.equal(held.status, 200, held.text);
    // The room is given back: the same request now goes through.
    const again = tableBody(600 * KIB);
    const retried = partialPost(base, '/table/create', again.length, [again]);
    retried.req.end();
    assert.equal((await retried.answer).status, 200);
  } finally {
    await srv.close();
  }
});

test('a chunked body is refused (503, connection closed) once its bytes pass the room left', async () => {
  const { srv, base } = await startDemoServer({ maxBodyBytes: 1024 * KIB, maxBodyBytesInFlight: 1536 * KIB });
  try {
    const big = tableBody(1024 * KIB);
    const holder = partialPost(base, '/table/create', big.length, [big.slice(0, 1000)]);
    await settle();
    const chunked = partialPost(base, '/table/create', 'chunked', ['x'.repeat(300 * KIB), 'x'.repeat(300 * KIB)]);
    const busy = await chunked.answer;
    assert.equal(busy.status, 503);
    assert.equal(busy.headers.connection, 'close');
    assert.equal(busy.headers['retry-after'], '1');
    chunked.req.destroy();
    holder.req.end(big.slice(1000));
    assert.equal((await holder.answer).status, 200);
  } finally {
    await srv.close();
  }
});

/** Headers only, the declared body never sent: the server's whole answer ('no answer' after 5 s). */
function headersOnly(port: number, head: string): Promise<string> {
  return new Promise<string>((resolve) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(head));
    const timer = setTimeout(() => {
      resolve('no answer');
      socket.destroy();
    }, 5000);
    socket.on('close', () => clearTimeout(timer));
    let text = '';
    socket.on('data', (d) => {
      text += d;
      if (/\r\n\r\n\{.*\}$/s.test(text)) {
        resolve(text);
        socket.destroy();
      }
    });
  });
}

test('credentials are checked before the body: a large body without them is a 401 without a byte of it read', async () => {
  const { srv, base } = await startDemoServer({ maxBodyBytes: 1024 * KIB, maxBodyBytesInFlight: 1024 * KIB });
  try {
    const port = Number(new URL(base).port);
    // Raw socket: headers only, the declared 1 MiB never sent.
    const answer = await headersOnly(port, `POST /table/create HTTP/1.1\r\nHost: x\r\nContent-Length: ${1024 * KIB}\r\nAuthorization: Basic ${Buffer.from('api:wrong').toString('base64')}\r\n\r\n`);
    assert.match(answer, /^HTTP\/1\.1 401 /);
    // It held no room: a body of the whole budget still fits.
    const whole = tableBody(1024 * KIB);
    const post = partialPost(base, '/table/create', whole.length, [whole]);
    post.req.end();
    assert.equal((await post.answer).status, 200);
  } finally {
    await srv.close();
  }
});

test('a project named by the path is checked before the body: no grant is a 403 without a byte of it read', async () => {
  const users = new Users([{ name: 'api', password: 'pw', projects: ['*'] }, { name: 'bob', password: 'b', projects: ['x/y'] }]);
  const { srv, base } = await startDemoServer({ maxBodyBytes: 1024 * KIB, users });
  try {
    const port = Number(new URL(base).port);
    const bob = { Authorization: `Basic ${Buffer.from('bob:b').toString('base64')}` };
    const forbidden = await headersOnly(port, `POST /v2/acme/support-bot/call/start HTTP/1.1\r\nHost: x\r\nContent-Length: ${1024 * KIB}\r\nAuthorization: ${bob.Authorization}\r\n\r\n`);
    assert.match(forbidden, /^HTTP\/1\.1 403 /);
    assert.deepEqual(JSON.parse(forbidden.slice(forbidden.indexOf('\r\n\r\n') + 4)), { reason: "User 'bob' has no access to project 'acme/support-bot'" });
    // A bad project id in the path is still the route's 400 (read after the body), not a 403.
    const start = JSON.stringify({ start: { project_id: 'acme/..', op_name: 'op', trace_id: 't', started_at: '2024-01-01T00:00:00Z', attributes: {}, inputs: {} } });
    const bad = await fetch(`${base}/v2/acme/..%2Fx/call/start`, { method: 'POST', headers: bob, body: start });
    assert.equal(bad.status, 400);
    assert.deepEqual(await bad.json(), { reason: "Invalid project_id 'acme/../x': expected the form <entity>/<project>" });
    // With the grant the body is read and validated as before.
    const granted = await fetch(`${base}/v2/x/y/call/start`, { method: 'POST', headers: bob, body: '{"start":{}}' });
    assert.equal(granted.status, 422);
  } finally {
    await srv.close();
  }
});

test('a request waiting behind large bodies is answered between them, not after all of them', async () => {
  const { srv, base } = await startDemoServer({ maxBodyBytes: 2048 * KIB, maxBodyBytesInFlight: 8 * 2048 * KIB });
  try {
    const bodies = Array.from({ length: 6 }, (_, i) => tableBody(2000 * KIB, `acme/turns-${i}`));
    const order: string[] = [];
    const uploads = bodies.map((body, i) => {
      const p = partialPost(base, '/table/create', body.length, [body]);
      p.req.end();
      return p.answer.then((a) => {
        order.push(`upload ${i}`);
        return a.status;
      });
    });
    // Once the first upload has been answered, a /health asked then comes before the last upload.
    await Promise.race(uploads);
    const health = fetch(`${base}/health`).then((r) => {
      order.push('health');
      return r.status;
    });
    assert.deepEqual(await Promise.all(uploads), [200, 200, 200, 200, 200, 200]);
    assert.equal(await health, 200);
    assert.ok(order.indexOf('health') < order.length - 1, `health answered after every upload: ${order.join(', ')}`);
  } finally {
    await srv.close();
  }
});
