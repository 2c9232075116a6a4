/**
 * Issue 11 §3: every connection is bounded in time and number, with small limits so the test
 * is quick. Raw sockets (node:net) stand in for silent, trickling and stalled clients.
 */
import { lineStream } from '../api/line-stream.ts';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { allRoutes } from '../routes.ts';
import type { Route } from '../api/types.ts';
import { createEngine } from '../engine.ts';
import { Users } from './basic-auth.ts';
import { createTqServer } from './server.ts';
import type { SocketLimits } from './socket-limits.ts';

const AUTH = 'Basic ' + Buffer.from('u:p').toString('base64');
const LINE = 'x'.repeat(1023);
const LINES = 8000;

/** A stream of `lines` 1 KB lines at `path`, produced as the client reads. */
const streamRoute = (path: string, lines: number): Route => ({
  path,
  method: 'GET',
  body: 'none',
  run: () =>
    lineStream(
      (function* () {
        for (let i = 0; i < lines; i++) yield JSON.stringify({ i, s: LINE });
      })(),
    ),
});
/** Larger than loopback's socket buffers, so a reader that stops leaves the server blocked. */
const HUGE_LINES = 64_000;

async function startServer(limits: Partial<SocketLimits>) {
  const tq = createTqServer({
    engine: createEngine(),
    routes: [...allRoutes(), streamRoute('/test/big', LINES), streamRoute('/test/huge', HUGE_LINES)],
    users: new Users([{ name: 'u', password: 'p', projects: ['*'] }]),
    socketLimits: limits,
  });
  const { port } = await tq.listen('127.0.0.1', 0);
  return { tq, port };
}

/** Connects, sends `chunks` (one per `everyMs`), and resolves with what came back when the server closed. */
function rawExchange(port: number, chunks: string[], everyMs: number): Promise<{ data: string; ms: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const socket: Socket = connect(port, '127.0.0.1');
    let data = '';
    let i = 0;
    const timer = setInterval(() => {
      if (i < chunks.length && socket.writable) socket.write(chunks[i++]);
    }, everyMs);
    socket.on('data', (d) => (data += d.toString('utf8')));
    socket.on('error', () => {});
    socket.on('close', () => {
      clearInterval(timer);
      resolve({ data, ms: performance.now() - started });
    });
    setTimeout(() => reject(new Error(`connection still open after 5 s; got ${JSON.stringify(data)}`)), 5000).unref();
  });
}

const post = (port: number, path: string, body: string) =>
  new Promise<{ status: number; text: string }>((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method: 'POST', headers: { authorization: AUTH } }, (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode!, text }));
    });
    req.on('error', reject);
    req.end(body);
  });

test('a connection that sends no byte is closed after the first-byte timeout, unanswered', async () => {
  const { tq, port } = await startServer({ firstByteTimeoutMs: 150 });
  try {
    const silent = await Promise.all([rawExchange(port, [], 1000), rawExchange(port, [], 1000)]);
    for (const { data, ms } of silent) {
      assert.equal(data, '');
      assert.ok(ms >= 140 && ms < 2000, `closed after ${ms} ms`);
    }
    // A client that speaks in time is served.
    assert.equal((await post(port, '/calls/stream_query', '{"project_id":"e/p"}')).status, 200);
  } finally {
    await tq.close();
  }
});

test('headers or a body not complete within the request timeout: 408 with a JSON reason, then closed', async () => {
  const { tq, port } = await startServer({ requestTimeoutMs: 300, firstByteTimeoutMs: 5000 });
  try {
    const expected = JSON.stringify({ reason: 'Request not received within 0.3 s' });
    const trickledHeaders = ['POST /calls/stream_query HTTP/1.1\r\n', ...'Host: 127.0.0.1\r\nX-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa'];
    const headers = await rawExchange(port, trickledHeaders, 40);
    assert.match(headers.data, /^HTTP\/1\.1 408 Request Timeout\r\n/);
    assert.ok(headers.data.endsWith(`\r\n\r\n${expected}`), headers.data);
    assert.ok(headers.ms >= 290 && headers.ms < 2000, `408 after ${headers.ms} ms`);

    const head = `POST /calls/stream_query HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${AUTH}\r\nContent-Length: 100\r\n\r\n`;
    const body = await rawExchange(port, [head, ...'{"project_id":"e/p"'], 40);
    assert.match(body.data, /^HTTP\/1\.1 408 Request Timeout\r\n/);
    assert.ok(body.data.includes('Content-Type: application/json'));
    assert.ok(body.data.endsWith(expected), body.data);
    assert.ok(body.ms >= 290 && body.ms < 2000, `408 after ${body.ms} ms`);
    // Other malformed requests keep Node's answer, as JSON.
    const bad = await rawExchange(port, ['NOT HTTP\r\n\r\n'], 10);
    assert.match(bad.data, /^HTTP\/1\.1 400 Bad Request\r\n[^]*\r\n\r\n\{"reason":"Bad Request"\}$/);
    const huge = await rawExchange(port, [`GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`], 10);
    assert.match(huge.data, /^HTTP\/1\.1 431 Request Header Fields Too Large\r\n[^]*\r\n\r\n\{"reason":"Request header fields too large"\}$/);
  } finally {
    await tq.close();
  }
});

/**
 * Writes `text` on `socket` and resolves with what comes back up to the end of a JSON body, or
 * with what came and `[closed]` when the server closes the connection first.
 */
function exchange(socket: Socket, text: string): Promise<string> {
  return new Promise((resolve) => {
    let data = '';
    // No answer and no close at all: say so (the assertion on the answer then fails), never hang.
    const timer = setTimeout(() => done(`${data}[no answer in 60 s]`), 60_000);
    const done = (answer: string) => {
      clearTimeout(timer);
      socket.off('data', onData);
      socket.off('close', onClose);
      resolve(answer);
    };
    const onData = (d: Buffer) => {
      data += d;
      if (/\r\n\r\n[[{].*[}\]]$/s.test(data)) done(data);
    };
    const onClose = () => done(`${data}[closed]`);
    socket.on('data', onData);
    socket.once('close', onClose);
    socket.write(text);
  });
}

/** A connected socket; a connection that fails is the test's failure, never a wait without end. */
const openSocket = (port: number): Promise<Socket> =>
  new Promise((resolve, reject) => {
    const s = connect(port, '127.0.0.1', () => {
      s.off('error', reject);
      s.on('error', () => {});
      resolve(s);
    });
    s.once('error', reject);
  });

const AUTHED_QUERY = (body: string) => `POST /calls/query_stats HTTP/1.1\r\nHost: x\r\nAuthorization: ${AUTH}\r\nContent-Length: ${body.length}\r\n\r\n${body}`;

test('beyond the connection cap new connections are closed at once when every open one has authenticated; those keep working', async () => {
  const { tq, port } = await startServer({ maxConnections: 2, firstByteTimeoutMs: 5000 });
  try {
    const [a, b] = [await openSocket(port), await openSocket(port)];
    // A request with credentials: the connection has authenticated and is never given away.
    const body = JSON.stringify({ project_id: 'a/b' });
    for (const s of [a, b]) assert.match(await exchange(s, AUTHED_QUERY(body)), /^HTTP\/1\.1 200 OK/);
    const refused = await rawExchange(port, ['GET /health HTTP/1.1\r\nHost: x\r\n\r\n'], 5);
    assert.equal(refused.data, '');
    for (const s of [a, b]) {
      assert.match(await exchange(s, 'GET /health HTTP/1.1\r\nHost: x\r\n\r\n'), /^HTTP\/1\.1 200 OK[^]*\{"status":"ok"\}$/);
      s.destroy();
    }
  } finally {
    await tq.close();
  }
});

test('1000 idle sockets of a client without credentials never keep an authenticated client out', async () => {
  // The default cap (1000 connections): the idle client takes all of it.
  const { tq, port } = await startServer({});
  const idle: Socket[] = [];
  try {
    // An authenticated keep-alive connection from before the flood.
    const body = JSON.stringify({ project_id: 'a/b' });
    const before = await openSocket(port);
    assert.match(await exchange(before, AUTHED_QUERY(body)), /^HTTP\/1\.1 200 OK/);
    // Silent sockets, sockets halfway through their headers, and sockets idle after a 401.
    for (let i = 0; i < 1000; i++) {
      const s = await openSocket(port);
      idle.push(s);
      if (i % 3 === 1) s.write('POST /calls/stream_query HTTP/1.1\r\nHost: x\r\n');
      if (i % 3 === 2) assert.match(await exchange(s, 'POST /calls/stream_query HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}'), /^HTTP\/1\.1 401 /);
    }
    // Every request of the authenticated client, each on a new connection, is answered at once.
    for (let i = 0; i < 20; i++) {
      const started = performance.now();
      const s = await openSocket(port);
      const answer = await exchange(s, AUTHED_QUERY(body));
      assert.match(answer, /^HTTP\/1\.1 200 OK[^]*\{"count":0,"total_storage_size_bytes":null\}$/, `request ${i}`);
      assert.ok(performance.now() - started < 2000, `request ${i} took ${performance.now() - started} ms`);
      s.destroy();
    }
    // The connection that authenticated before the flood was kept.
    assert.match(await exchange(before, AUTHED_QUERY(body)), /^HTTP\/1\.1 200 OK/);
    before.destroy();
  } finally {
    for (const s of idle) s.destroy();
    await tq.close();
  }
});

/**
 * GETs a test stream, pausing `pauseMs` after every `every` chunks; after `stallAfter` chunks
 * it stops reading for `stallMs`, then reads what is left.
 */
function read(port: number, path: string, every: number, pauseMs: number, stallAfter = Infinity, stallMs = 0) {
  return new Promise<{ status: number; lines: number; complete: boolean; ms: number }>((resolve) => {
    const started = performance.now();
    const req = request({ host: '127.0.0.1', port, path, headers: { authorization: AUTH } }, (res) => {
      let lines = 0, chunks = 0;
      res.on('data', (chunk: Buffer) => {
        for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
        chunks++;
        const wait = chunks === stallAfter ? stallMs : chunks % every === 0 ? pauseMs : 0;
        if (wait > 0) {
          res.pause();
          setTimeout(() => res.resume(), wait);
        }
      });
      res.on('error', () => {});
      res.on('close', () => resolve({ status: res.statusCode!, lines, complete: res.complete, ms: performance.now() - started }));
    });
    req.on('error', () => resolve({ status: 0, lines: -1, complete: false, ms: performance.now() - started }));
    req.end();
  });
}

test('a slow but steady reader is never cut; a client that stops reading is, after the idle timeout', async () => {
  // Node counts a write that is still being taken by the kernel bit by bit as activity, so the
  // idle timer fires only for a connection that moved nothing for one to two periods.
  const { tq, port } = await startServer({ idleTimeoutMs: 1000, requestTimeoutMs: 1000 });
  try {
    const cuts: number[] = [];
    tq.server.on('connection', (socket) => {
      const opened = performance.now();
      socket.on('close', () => cuts.push(performance.now() - opened));
    });
    const [steady, stalled] = await Promise.all([read(port, '/test/big', 8, 100), read(port, '/test/huge', 1e9, 0, 2, 6000)]);
    assert.deepEqual([steady.status, stalled.status], [200, 200]);
    assert.equal(steady.complete, true);
    assert.equal(steady.lines, LINES);
    assert.ok(steady.ms > 2000, `the steady read took ${steady.ms} ms, longer than twice both timeouts`);
    // The stalled reader finds a truncated body when it reads again: the server cut it.
    assert.equal(stalled.complete, false);
    assert.ok(stalled.lines > 0 && stalled.lines < HUGE_LINES, `${stalled.lines} lines`);
    const cut = Math.min(...cuts);
    // Long before the reader came back (a loaded machine may take a while to fill the buffers).
    assert.ok(cut >= 990 && cut < 5900, `the stalled connection was closed after ${cut} ms`);
  } finally {
    await tq.close();
  }
});
