import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Users } from './basic-auth.ts';
import type { TqServer } from './server.ts';
import { countLines, formatJson, formatText, newStats, requestLogger, type RequestLogEntry } from './request-log.ts';
import { API_AUTH, postJson, startDemoServer } from './serving.testing.ts';

const entry: RequestLogEntry = {
  time: '2026-11-23T10:00:00.000Z', method: 'POST', path: '/calls/stream_query', project: 'acme/evals', user: 'api',
  status: 200, lines: 3, bytes: 2481, ms: 4.25, aborted: false, reason: null,
};

describe('request log formats', () => {
  it('text: the time (UTC), method path status, then what is known, then ms, then a 4xx reason', () => {
    assert.equal(formatText(entry), '10:00:00.000 POST /calls/stream_query 200 project=acme/evals user=api lines=3 bytes=2481 4.3ms');
    assert.equal(formatText({ ...entry, project: null, user: null, lines: null, status: null, aborted: true }), '10:00:00.000 POST /calls/stream_query - bytes=2481 4.3ms (aborted)');
    assert.equal(formatText({ ...entry, status: 400, lines: null, reason: 'Limit must be a "positive" integer' }), '10:00:00.000 POST /calls/stream_query 400 project=acme/evals user=api bytes=2481 4.3ms reason="Limit must be a \\"positive\\" integer"');
  });
  it('the reason of a 4xx body: reason, the first detail entry, bounded', async () => {
    const { reasonOf } = await import('./request-log.ts');
    assert.equal(reasonOf('{"reason":"Not Found"}'), 'Not Found');
    assert.equal(reasonOf('{"detail":[{"loc":["body","limit"],"msg":"Input should be a valid integer"},{"loc":["body"],"msg":"x"}]}'), 'body.limit: Input should be a valid integer (+1 more)');
    assert.equal(reasonOf('{"detail":"Method Not Allowed"}'), 'Method Not Allowed');
    assert.equal(reasonOf('not json'), null);
    assert.equal(reasonOf('[1]'), null);
    assert.equal(reasonOf(JSON.stringify({ reason: 'x'.repeat(500) }))!.length, 200);
  });
  it('json: every field, ms to a tenth', () => {
    assert.deepEqual(JSON.parse(formatJson(entry)), { ...entry, ms: 4.3 });
    const lines: string[] = [];
    requestLogger('json', (l) => lines.push(l))(entry);
    requestLogger('text', (l) => lines.push(l))(entry);
    assert.equal(lines.length, 2);
    assert.equal(JSON.parse(lines[0]).path, '/calls/stream_query');
    assert.match(lines[1], /^10:00:00\.000 POST /);
  });
});

describe('countLines', () => {
  it('counts the lines of pulled chunks and passes return() on, so the stream closes', () => {
    let closed = false;
    const stats = newStats();
    const bytes = (text: string) => new TextEncoder().encode(text);
    const chunks = countLines(
      (function* () {
        try {
          yield bytes('a\n');
          yield bytes('b\nc\n');
          yield bytes('d\n');
        } finally {
          closed = true;
        }
      })(),
      stats,
    );
    assert.deepEqual([chunks.next(), chunks.next()], [{ done: false, value: bytes('a\n') }, { done: false, value: bytes('b\nc\n') }]);
    assert.equal(stats.lines, 3);
    chunks.return!();
    assert.equal(closed, true);
    const plain = countLines([bytes('x\n')][Symbol.iterator](), stats);
    assert.deepEqual([plain.next(), plain.next(), plain.return!()], [{ done: false, value: bytes('x\n') }, { done: true, value: undefined }, { done: true, value: undefined }]);
    assert.equal(stats.lines, 1);
  });
});

describe('request log of a running server', () => {
  const entries: RequestLogEntry[] = [];
  let srv: TqServer, base: string;
  before(async () => ({ srv, base } = await startDemoServer({ requestLog: (e) => entries.push(e) })));
  after(() => srv.close());

  const settled = async (n: number) => {
    for (let i = 0; i < 100 && entries.length < n; i++) await new Promise((r) => setTimeout(r, 5));
  };

  it('a stream: project, user, lines, body bytes', async () => {
    entries.length = 0;
    const res = await postJson(base, '/calls/stream_query', { project_id: 'acme/evals', limit: 3 });
    const text = await res.text();
    await settled(1);
    const [e] = entries;
    assert.deepEqual(
      { method: e.method, path: e.path, project: e.project, user: e.user, status: e.status, lines: e.lines, bytes: e.bytes, aborted: e.aborted },
      { method: 'POST', path: '/calls/stream_query', project: 'acme/evals', user: 'api', status: 200, lines: 3, bytes: Buffer.byteLength(text), aborted: false },
    );
    assert.ok(e.ms >= 0 && Number.isFinite(e.ms));
  });

  it('a JSON answer, an error, a refused login', async () => {
    entries.length = 0;
    const info = await fetch(base + '/server_info?x=1', { headers: { Authorization: API_AUTH } });
    const infoText = await info.text();
    await (await postJson(base, '/calls/stream_query', { project_id: 'acme/evals', limit: -1 })).text();
    await (await fetch(base + '/server_info')).text();
    await settled(3);
    assert.deepEqual(
      entries.map((e) => [e.path, e.status, e.project, e.user, e.lines, e.reason]),
      [
        ['/server_info', 200, null, 'api', null, null],
        // Rejected before the project was authorised: no project. The reason the client got.
        ['/calls/stream_query', 400, null, 'api', null, 'Limit must be a positive integer'],
        ['/server_info', 401, null, null, null, 'Missing Authorization header: expected Basic credentials'],
      ],
    );
    assert.equal(entries[0].bytes, Buffer.byteLength(infoText));
  });

  it('a grant refused from the path, before the body: the project is logged', async () => {
    entries.length = 0;
    const users = new Users([{ name: 'bob', password: 'b', projects: ['x/y'] }]);
    const other = await startDemoServer({ users, requestLog: (e) => entries.push(e) });
    try {
      const res = await fetch(other.base + '/v2/acme/evals/call/start', { method: 'POST', headers: { Authorization: `Basic ${Buffer.from('bob:b').toString('base64')}` }, body: '{}' });
      assert.equal(res.status, 403);
      await res.text();
      await settled(1);
      assert.deepEqual(
        entries.map((e) => [e.path, e.status, e.project, e.user, e.reason]),
        [['/v2/acme/evals/call/start', 403, 'acme/evals', 'bob', "User 'bob' has no access to project 'acme/evals'"]],
      );
    } finally {
      await other.srv.close();
    }
  });
});
