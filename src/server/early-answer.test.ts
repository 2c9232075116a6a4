/**
 * Answers sent before the body is read (401, 403 from the path, 413 from the declared length,
 * 503 from the body budget, 404): the server reads and discards the rest of the body, within a
 * bound of bytes and time, so a client still sending receives the answer instead of EPIPE or
 * ECONNRESET; a client that keeps sending past the bound is cut off (issue 22 §4).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Agent, request } from 'node:http';
import { connect } from 'node:net';
import { API_AUTH, startDemoServer } from './serving.testing.ts';
import { Users } from './basic-auth.ts';
import type { TqServerOptions } from './server.ts';

const MIB = 1024 * 1024;
const CHUNK = Buffer.alloc(64 * 1024, 'x');

interface Upload {
  /** The answer's status and text, when one was received whole. */
  status?: number;
  text?: string;
  connection?: string;
  /** What the client met while sending or reading (EPIPE, ECONNRESET, ...), if anything. */
  error?: string;
  /** Body bytes the client handed to its socket. */
  sent: number;
  /** Milliseconds from the first byte until the connection was closed. */
  closedAfterMs: number;
}

/**
 * Sends a body of `total` bytes (Infinity: forever) in 64 KiB chunks, as a client does that
 * writes its whole body before it looks at the answer, `pauseMs` between chunks; resolves once
 * the connection is closed.
 */
function upload(base: string, path: string, options: { auth?: string; total: number; chunked?: boolean; keepAlive?: boolean; pauseMs?: number }): Promise<Upload> {
  const url = new URL(base);
  const headers: Record<string, string> = { Authorization: options.auth ?? API_AUTH, 'Content-Type': 'application/json' };
  if (!options.chunked) headers['Content-Length'] = String(options.total);
  if (options.keepAlive === false) headers.Connection = 'close';
  const started = performance.now();
  // A keep-alive client, as the SDKs are, or one that asks for the connection to be closed.
  const agent = new Agent({ keepAlive: options.keepAlive ?? true, maxSockets: 1 });
  const req = request({ host: url.hostname, port: url.port, path, method: 'POST', headers, agent });
  const out: Upload = { sent: 0, closedAfterMs: -1 };
  let stop = false;
  let wake = () => {};
  req.on('response', (res) => {
    let text = '';
    res.on('data', (d) => (text += d));
    res.on('end', () => {
      out.status = res.statusCode;
      out.text = text;
      out.connection = res.headers.connection;
    });
    res.on('error', (e: NodeJS.ErrnoException) => (out.error ??= e.code ?? e.message));
  });
  req.on('error', (e: NodeJS.ErrnoException) => {
    out.error ??= e.code ?? e.message;
    stop = true;
  });
  const closed = new Promise<void>((resolve) => {
    req.on('socket', (socket) =>
      socket.on('close', () => {
        stop = true;
        wake();
        agent.destroy();
        out.closedAfterMs = performance.now() - started;
        resolve();
      }),
    );
  });
  void (async () => {
    while (!stop && out.sent < options.total) {
      const piece = options.total - out.sent < CHUNK.length ? CHUNK.subarray(0, options.total - out.sent) : CHUNK;
      out.sent += piece.length;
      if (!req.write(piece)) {
        await new Promise<void>((resolve) => {
          wake = resolve;
          req.once('drain', resolve);
        });
        req.off('drain', wake);
      }
      if (options.pauseMs) await new Promise((r) => setTimeout(r, options.pauseMs));
    }
    if (!stop) req.end();
  })();
  return closed.then(() => out);
}

async function withServer(extra: Partial<TqServerOptions>, body: (base: string) => Promise<void>): Promise<void> {
  const { srv, base } = await startDemoServer({ maxBodyBytes: 16 * MIB, ...extra });
  try {
    await body(base);
  } finally {
    await srv.close();
  }
}

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

/** The answer a client that sent its whole body must see: exact status and body, no error. */
function assertAnswered(got: Upload, status: number, body: unknown): void {
  assert.equal(got.error, undefined, `the client met ${got.error} (answer: ${got.status} ${got.text})`);
  assert.equal(got.status, status);
  assert.deepEqual(JSON.parse(got.text!), body);
  assert.equal(got.connection, 'close');
}

test('a client still sending its body receives the 401 sent before the body was read', async () => {
  await withServer({}, async (base) => {
    const closing = await upload(base, '/table/create', { auth: basic('api', 'wrong'), total: 12 * MIB, keepAlive: false });
    assertAnswered(closing, 401, { reason: 'Invalid username or password' });
    const got = await upload(base, '/table/create', { auth: basic('api', 'wrong'), total: 12 * MIB });
    assertAnswered(got, 401, { reason: 'Invalid username or password' });
    const chunked = await upload(base, '/table/create', { auth: basic('api', 'wrong'), total: 12 * MIB, chunked: true });
    assertAnswered(chunked, 401, { reason: 'Invalid username or password' });
  });
});

test("a client still sending its body receives the 403 from the path's project", async () => {
  const users = new Users([{ name: 'bob', password: 'b', projects: ['x/y'] }]);
  await withServer({ users }, async (base) => {
    for (const keepAlive of [false, true]) {
      const got = await upload(base, '/v2/acme/support-bot/call/start', { auth: basic('bob', 'b'), total: 12 * MIB, keepAlive });
      assertAnswered(got, 403, { reason: "User 'bob' has no access to project 'acme/support-bot'" });
    }
  });
});

test('a client sending a body over the limit receives the 413, declared or chunked', async () => {
  await withServer({}, async (base) => {
    const declared = await upload(base, '/table/create', { total: 24 * MIB });
    assertAnswered(declared, 413, { reason: 'Request too large' });
    const chunked = await upload(base, '/table/create', { total: 24 * MIB, chunked: true });
    assertAnswered(chunked, 413, { reason: 'Request too large' });
  });
});

test('a client refused for want of room receives the 503 with Retry-After while it sends', async () => {
  await withServer({ maxBodyBytesInFlight: 16 * MIB }, async (base) => {
    // A request that holds the whole budget: declared, barely sent.
    const url = new URL(base);
    const holder = request({ host: url.hostname, port: url.port, path: '/table/create', method: 'POST', headers: { Authorization: API_AUTH, 'Content-Length': String(16 * MIB) }, agent: false });
    holder.on('error', () => {});
    holder.write('{');
    try {
      await new Promise((r) => setTimeout(r, 150));
      const got = await upload(base, '/table/create', { total: 12 * MIB });
      assertAnswered(got, 503, { reason: `Server busy: request bodies being read and processed at once would pass ${16 * MIB} bytes; retry after 1 s` });
    } finally {
      holder.destroy();
    }
  });
});

test('a client posting a body to an unknown path receives the 404', async () => {
  await withServer({}, async (base) => {
    const got = await upload(base, '/no/such/route', { total: 12 * MIB });
    assertAnswered(got, 404, { reason: 'Not Found' });
  });
});

/**
 * A client that ignores the answer and sends a declared 1 GiB body for ever (a raw socket: Node's
 * own client stops sending once it has a complete answer with `Connection: close`); resolves
 * with what it read and when the server closed the connection.
 */
function sendForever(base: string, auth: string, pauseMs = 0): Promise<{ answer: string; sent: number; closedAfterMs: number }> {
  const port = Number(new URL(base).port);
  const started = performance.now();
  return new Promise((resolve) => {
    let answer = '';
    let sent = 0;
    let open = true;
    const socket = connect(port, '127.0.0.1', async () => {
      socket.write(`POST /table/create HTTP/1.1\r\nHost: x\r\nAuthorization: ${auth}\r\nContent-Length: ${1024 * MIB}\r\n\r\n`);
      while (open) {
        sent += CHUNK.length;
        if (!socket.write(CHUNK)) await new Promise((r) => (socket.once('drain', r), socket.once('close', r)));
        if (pauseMs) await new Promise((r) => setTimeout(r, pauseMs));
      }
    });
    socket.setMaxListeners(0);
    socket.on('data', (d) => (answer += d));
    socket.on('error', () => {});
    socket.on('close', () => {
      open = false;
      resolve({ answer, sent, closedAfterMs: performance.now() - started });
    });
  });
}

test('a client that keeps sending past the drain bound is cut off: bytes, then time', { timeout: 20_000 }, async () => {
  const wrong = basic('api', 'wrong');
  await withServer({ earlyAnswerDrain: { bytes: 4 * MIB, ms: 60_000, connections: 8 } }, async (base) => {
    const fast = await sendForever(base, wrong);
    assert.match(fast.answer, /^HTTP\/1\.1 401 [^]*\r\n\r\n\{"reason":"Invalid username or password"\}$/, 'the answer came before the cut');
    assert.ok(fast.sent >= 4 * MIB, `cut after ${fast.sent} bytes sent`);
    assert.ok(fast.closedAfterMs < 5000, `cut after ${fast.closedAfterMs} ms`);
  });
  await withServer({ earlyAnswerDrain: { bytes: 64 * MIB, ms: 600, connections: 8 } }, async (base) => {
    const slow = await sendForever(base, wrong, 20);
    assert.match(slow.answer, /^HTTP\/1\.1 401 /);
    assert.ok(slow.closedAfterMs >= 600 && slow.closedAfterMs < 5000, `cut after ${slow.closedAfterMs} ms`);
  });
});

test('past the bound on connections drained at once, an early answer closes the connection at once', { timeout: 20_000 }, async () => {
  const wrong = basic('api', 'wrong');
  await withServer({ earlyAnswerDrain: { bytes: 64 * MIB, ms: 3000, connections: 1 } }, async (base) => {
    // The first refused client holds the one drain (a slow sender, cut after 3 s).
    const first = sendForever(base, wrong, 20);
    await new Promise((r) => setTimeout(r, 300));
    const second = await sendForever(base, wrong, 20);
    assert.match(second.answer, /^HTTP\/1\.1 401 [^]*\r\n\r\n\{"reason":"Invalid username or password"\}$/);
    assert.ok(second.closedAfterMs < 2000, `the second closed after ${second.closedAfterMs} ms, not at once`);
    const held = await first;
    assert.match(held.answer, /^HTTP\/1\.1 401 /);
    assert.ok(held.closedAfterMs >= 3000, `the drained one closed after ${held.closedAfterMs} ms`);
    // The drain given back, the next refused client is drained again.
    const third = await sendForever(base, wrong, 20);
    assert.ok(third.closedAfterMs >= 3000, `the third closed after ${third.closedAfterMs} ms`);
  });
});

/**
 * A client that sends `Expect: 100-continue` and holds its body back until told to continue (as
 * curl does for large bodies): sends the body only after `100 Continue`; resolves with all it
 * read, the body bytes it sent, and when the server closed the connection.
 */
function expectContinue(base: string, head: string, body: string): Promise<{ answer: string; sentBody: number; closedAfterMs: number }> {
  const port = Number(new URL(base).port);
  const started = performance.now();
  return new Promise((resolve) => {
    let answer = '';
    let sentBody = 0;
    const socket = connect(port, '127.0.0.1', () => socket.write(`${head}Expect: 100-continue\r\nConnection: close\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`));
    socket.on('data', (d) => {
      answer += d;
      if (sentBody === 0 && answer.startsWith('HTTP/1.1 100 Continue\r\n\r\n')) {
        sentBody = Buffer.byteLength(body);
        socket.write(body);
      }
    });
    socket.on('error', () => {});
    socket.on('close', () => resolve({ answer, sentBody, closedAfterMs: performance.now() - started }));
  });
}

test('Expect: 100-continue: a refused client is answered without sending its body; an accepted one is told to continue', { timeout: 20_000 }, async () => {
  await withServer({}, async (base) => {
    const big = 'x'.repeat(MIB);
    const refused = await expectContinue(base, `POST /table/create HTTP/1.1\r\nHost: x\r\nAuthorization: ${basic('api', 'wrong')}\r\n`, big);
    assert.match(refused.answer, /^HTTP\/1\.1 401 [^]*\r\n\r\n\{"reason":"Invalid username or password"\}$/);
    assert.equal(refused.sentBody, 0);
    assert.ok(refused.closedAfterMs < 2000, `closed after ${refused.closedAfterMs} ms`);

    const tooLarge = await expectContinue(base, `POST /table/create HTTP/1.1\r\nHost: x\r\nAuthorization: ${API_AUTH}\r\n`, 'y'.repeat(17 * MIB));
    assert.match(tooLarge.answer, /^HTTP\/1\.1 413 /);
    assert.equal(tooLarge.sentBody, 0);

    const accepted = await expectContinue(base, `POST /calls/query_stats HTTP/1.1\r\nHost: x\r\nAuthorization: ${API_AUTH}\r\n`, JSON.stringify({ project_id: 'acme/support-bot' }));
    assert.ok(accepted.sentBody > 0, 'the body was sent after 100 Continue');
    assert.match(accepted.answer, /^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 200 [^]*\r\n\r\n\{"count":77,"total_storage_size_bytes":null\}$/);
  });
});
