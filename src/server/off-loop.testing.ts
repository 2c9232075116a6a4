/**
 * Shared by the tests of requests prepared off the event loop (off-loop.test.ts for the table
 * writes, off-loop-writes.test.ts for the call and object writes, off-loop-feedback.test.ts,
 * off-loop-otel.test.ts): engines that draw the same ids and times, a server for a user with
 * grants, bodies of a given size, the answer of the synchronous path, a POST that says when its
 * body was sent, and the check that one max-size request leaves the event loop free for others.
 */
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { runRoute } from '../api/run-route.ts';
import type { Engine, RequestContext } from '../api/types.ts';
import { RequestSchemaError, TqError } from '../core/errors.ts';
import { createEngine } from '../engine.ts';
import { findRoute } from '../routes.ts';
import { Store } from '../store/store.ts';
import { Users } from './basic-auth.ts';
import type { TqServer } from './server.ts';
import { API_AUTH, startDemoServer } from './serving.testing.ts';
import { schemaErrorBody } from './weave-compat.ts';

/**
 * A new engine whose ids are drawn from a counter and whose clock starts at the same instant
 * and moves `timeStep` µs a reading: two of them (the server's and the synchronous reference)
 * generate the same values for the same writes.
 */
export function countingEngine(timeStep = 0): Engine {
  let n = 0;
  let t = 1_700_000_000_000_000;
  return createEngine(new Store(), { newId: () => `gen-${++n}`, now: () => (t += timeStep) });
}

/** A demo server on `engine` whose one user, bob (password `b`), holds `projects`; `bob` is his Authorization header. */
export async function serverForBob(engine: Engine, projects: string[]): Promise<{ srv: TqServer; base: string; bob: string }> {
  const { srv, base } = await startDemoServer({ engine, users: new Users([{ name: 'bob', password: 'b', projects }]) });
  return { srv, base, bob: `Basic ${Buffer.from('bob:b').toString('base64')}` };
}

/** `head` + as many `item(i)` as fit in `bytes` (comma separated) + `tail`. */
export function listBody(bytes: number, head: string, tail: string, item: (i: number) => string): string {
  const items: string[] = [];
  let size = head.length + tail.length;
  for (let i = 0; ; i++) {
    const text = item(i);
    if (size + text.length + 1 > bytes) break;
    items.push(text);
    size += text.length + 1;
  }
  return head + items.join(',') + tail;
}

/** Every project granted. */
export const ALL_ACCESS: RequestContext = { userId: 'api', authorize() {}, canRead: () => true };

/** What the synchronous path answers for a body on `engine`: status and text. */
export function syncAnswer(engine: Engine, path: string, text: string, ctx: RequestContext = ALL_ACCESS, params = {}): { status: number; text: string } {
  try {
    const r = runRoute(findRoute(path)!, engine, { kind: 'text', text }, ctx, params);
    assert.equal(r.kind, 'json');
    return { status: 200, text: r.kind === 'json' ? (r.text ?? JSON.stringify(r.body)) : '' };
  } catch (e) {
    if (!(e instanceof TqError)) throw e;
    return { status: e.status, text: JSON.stringify(e instanceof RequestSchemaError ? schemaErrorBody(e, 'svc_') : e.body()) };
  }
}

/** POST with node:http (the client adds no work of its own to this event loop); `onSent` once the body is written; `headers` added. */
export function post(base: string, path: string, body: string | Buffer, auth = API_AUTH, onSent?: () => void, headers: Record<string, string> = {}): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(base + path, { method: 'POST', agent: false, headers: { Authorization: auth, 'Content-Length': Buffer.byteLength(body), ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, text: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.on('finish', () => onSent?.());
    req.end(body);
  });
}

/**
 * Sends `body` to `path` (with `headers`) and asks `/health` one request after another until it is answered
 * (200): at least 3 answered meanwhile, and no gap of the event loop as long as half the request.
 */
export async function assertLoopFreeDuring(base: string, path: string, body: Buffer, headers: Record<string, string> = {}): Promise<void> {
  let sent = 0;
  let answered: number | undefined;
  let longestGap = 0;
  let last = performance.now();
  const ticker = setInterval(() => {
    const now = performance.now();
    if (sent > 0 && answered === undefined) longestGap = Math.max(longestGap, now - last);
    last = now;
  }, 2);
  const healthAnswered: number[] = [];
  const big = post(base, path, body, API_AUTH, () => {
    sent = performance.now();
    last = sent;
  }, headers).then((r) => {
    answered = performance.now();
    return r;
  });
  try {
    while (answered === undefined) {
      const r = await fetch(`${base}/health`);
      await r.text();
      if (sent > 0 && answered === undefined) healthAnswered.push(performance.now());
    }
  } catch (e) {
    // A failed /health fails the test; the big request is awaited first so nothing outlives it.
    await big.catch(() => undefined);
    throw e;
  } finally {
    // A ticker left running would keep the test process alive after a failure.
    clearInterval(ticker);
  }
  const result = await big;
  assert.equal(result.status, 200, result.text.slice(0, 200));
  const window = answered - sent;
  assert.ok(healthAnswered.length >= 3, `only ${healthAnswered.length} /health answered in the ${window.toFixed(0)} ms of the big request`);
  assert.ok(longestGap < window / 2, `longest event-loop gap ${longestGap.toFixed(0)} ms of a ${window.toFixed(0)} ms request`);
}
