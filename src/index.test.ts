/**
 * The library entry as a program using tq sees it (src/package.test.ts checks the same entry
 * once packed and installed).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import {
  BUNDLED_FIXTURES,
  createEngine,
  createEngineTarget,
  FixtureError,
  fullAccessContext,
  loadCases,
  loadFixtures,
  loadFixtureText,
  RequestSchemaError,
  runCases,
  runPath,
  TqError,
  type RouteResult,
} from './index.ts';

const me = fullAccessContext('me');

function linesOf(result: RouteResult): Array<Record<string, unknown>> {
  assert.equal(result.kind, 'stream');
  return [...(result as { lines: Iterable<string> }).lines].map((l) => JSON.parse(l) as Record<string, unknown>);
}

const call = (id: string, startedAt: string) =>
  JSON.stringify({ id, project_id: 'lib/p', op_name: 'op', trace_id: 't', started_at: startedAt });

test('the bundled demo loads and answers a query run by path with a body text', async () => {
  const engine = createEngine();
  const report = await loadFixtures(engine, BUNDLED_FIXTURES);
  assert.deepEqual(
    report.files.map((f) => [f.kind, f.records]),
    [['calls', 297], ['tables', 1], ['objects', 46], ['feedback', 15], ['costs', 6]],
  );
  const rows = linesOf(runPath(engine, '/calls/stream_query', '{"project_id":"acme/support-bot","sort_by":[{"field":"started_at","direction":"asc"}],"limit":2}', me));
  assert.deepEqual(rows.map((r) => r.id), ['01957f13-614a-79cb-8806-2275368d35e4', '01957f13-614a-751b-b09a-b0ab070ae7f1']);
  assert.deepEqual(runPath(engine, '/health', '', me), { kind: 'json', body: { status: 'ok' } });
});

test('runPath: an unknown path is the 404 the server answers; a bad body is the route\'s own error', () => {
  const engine = createEngine();
  assert.throws(() => runPath(engine, '/calls/query', '{}', me), (e: unknown) => e instanceof TqError && e.status === 404 && JSON.stringify(e.body()) === '{"reason":"Not Found"}');
  assert.throws(() => runPath(engine, '/calls/stream_query', '{"project_id":', me), (e: unknown) => e instanceof RequestSchemaError && e.status === 422);
  assert.throws(() => runPath(engine, '/calls/stream_query', '{"project_id":"e/p","limit":-1}', me), (e: unknown) => e instanceof TqError && e.code === 'TQ_NEGATIVE_LIMIT');
});

test('runPath takes a multipart RequestBody, and the context\'s user fills the writer', () => {
  const engine = createEngine();
  const hello = new TextEncoder().encode('hello');
  const upload = runPath(engine, '/file/create', { kind: 'multipart', fields: new Map([['project_id', 'lib/w']]), files: new Map([['file', hello]]) }, me);
  assert.deepEqual(upload.kind === 'json' && upload.body, { digest: 'LPJNulXwow4m6DsqxbninhsWHlwfp0JecwQzYpOLmCQ' });
  const start = '{"start":{"project_id":"lib/w","id":"c1","trace_id":"t1","op_name":"op","started_at":"2024-01-01T00:00:00Z","attributes":{},"inputs":{}}}';
  assert.equal(runPath(engine, '/call/start', start, fullAccessContext('writer')).kind, 'json');
  const rows = linesOf(runPath(engine, '/calls/stream_query', '{"project_id":"lib/w"}', me));
  assert.deepEqual(rows.map((r) => [r.id, r.svc_user_id]), [['c1', 'writer']]);
});

test('fullAccessContext grants every project', () => {
  const ctx = fullAccessContext('u');
  assert.equal(ctx.userId, 'u');
  assert.doesNotThrow(() => ctx.authorize('any/project'));
  assert.equal(ctx.canRead('other/project'), true);
});

test('loadFixtureText loads one kind from a string or a stream, naming the source in errors', async () => {
  const engine = createEngine();
  assert.equal(await loadFixtureText(engine, 'calls', `${call('a', '2024-01-01T00:00:00Z')}\n\n${call('b', '2024-01-02T00:00:00Z')}\n`), 2);
  async function* chunks() {
    const text = `${call('c', '2024-01-03T00:00:00Z')}\r\n`;
    yield text.slice(0, 10);
    yield text.slice(10);
  }
  assert.equal(await loadFixtureText(engine, 'calls', Readable.from(chunks())), 1);
  // A byte order mark opening the text is skipped, as in a file; alone it is no record.
  assert.equal(await loadFixtureText(engine, 'calls', '\uFEFF\n'), 0);
  const rows = linesOf(runPath(engine, '/calls/stream_query', '{"project_id":"lib/p"}', me));
  assert.deepEqual(rows.map((r) => r.id), ['a', 'b', 'c']);

  await assert.rejects(loadFixtureText(engine, 'calls', `${call('d', '2024-01-04T00:00:00Z')}\nnot json\n`), (e: unknown) => {
    assert.ok(e instanceof FixtureError);
    assert.equal(e.file, '<calls>');
    assert.equal(e.line, 2);
    assert.match(e.message, /^<calls>:2: invalid JSON: /);
    return true;
  });
  await assert.rejects(loadFixtureText(engine, 'calls', call('a', '2024-01-01T00:00:00Z'), 'mine.jsonl'), (e: unknown) => e instanceof FixtureError && e.file === 'mine.jsonl' && e.line === 1);
  await assert.rejects(loadFixtureText(engine, 'spans' as never, ''), {
    message: "<spans>: unknown fixture kind 'spans' (calls, tables, objects, feedback, costs, otel-traces)",
  });
});

test('the conformance runner runs the bundled cases in-process', async () => {
  const cases = loadCases();
  const report = await runCases(cases, createEngineTarget(), { only: (c) => c.tags.includes('threads') });
  assert.deepEqual(report.failed, []);
  assert.equal(report.passed + report.skipped.length, cases.filter((c) => c.tags.includes('threads')).length);
  assert.ok(report.passed > 50);
});

test('runPath takes a plain object body as its JSON text; a body it cannot send is a clear error', async () => {
  const engine = createEngine();
  await loadFixtures(engine, BUNDLED_FIXTURES);
  const body = { project_id: 'acme/support-bot', filter: { trace_roots_only: true }, limit: 2 };
  assert.deepEqual(linesOf(runPath(engine, '/calls/stream_query', body, me)), linesOf(runPath(engine, '/calls/stream_query', JSON.stringify(body), me)));
  // A request object with its own `kind` key is a body, not a RequestBody.
  assert.throws(() => runPath(engine, '/calls/stream_query', { kind: 'text', project_id: 'a/b' }, me), (e: unknown) => e instanceof RequestSchemaError && JSON.stringify(e.body()).includes('"kind"'));
  // No body is the empty body's 422, as over HTTP.
  assert.throws(() => runPath(engine, '/calls/stream_query', undefined, me), (e: unknown) => e instanceof TqError && e.status === 422);
  const circular: Record<string, unknown> = { project_id: 'a/b' };
  circular.self = circular;
  assert.throws(() => runPath(engine, '/calls/stream_query', circular, me), { name: 'TypeError', message: /^runPath: the body cannot be sent as JSON \(Converting circular structure/ });
  assert.throws(() => runPath(engine, '/calls/stream_query', (() => 1) as unknown as string, me), { name: 'TypeError', message: 'runPath: a function is not a request body; pass JSON text, a plain object, or a RequestBody' });
});

test('serve({ port: 0 }) is tq serve in-process: a URL, credentials, the same answers, close()', async () => {
  const { serve, BUNDLED_FIXTURES: demo } = await import('./index.ts');
  const server = await serve({ port: 0, fixtures: demo });
  try {
    assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.equal(server.user.name, 'tq');
    const body = { project_id: 'acme/support-bot', limit: 3 };
    const res = await fetch(`${server.url}/calls/stream_query`, { method: 'POST', headers: { authorization: server.authorization }, body: JSON.stringify(body) });
    assert.equal(res.status, 200);
    const lines = (await res.text()).trim().split('\n').map((l) => JSON.parse(l) as unknown);
    assert.deepEqual(lines, linesOf(runPath(server.engine, '/calls/stream_query', body, me)));
    const denied = await fetch(`${server.url}/calls/stream_query`, { method: 'POST', body: '{}' });
    assert.equal(denied.status, 401);
  } finally {
    await server.close();
  }
  const wb = await serve({ fieldPrefix: 'wb_', users: [{ name: 'ann', password: 'pw', projects: ['x/*'] }] });
  try {
    assert.equal(wb.authorization, `Basic ${Buffer.from('ann:pw').toString('base64')}`);
    assert.equal(wb.engine.options.fieldPrefix, 'wb_');
    const other = await fetch(`${wb.url}/calls/stream_query`, { method: 'POST', headers: { authorization: wb.authorization }, body: '{"project_id":"y/z"}' });
    assert.equal(other.status, 403);
  } finally {
    await wb.close();
  }
  await assert.rejects(serve({ engine: createEngine(), fieldPrefix: 'wb_' }), { name: 'TypeError', message: 'serve: give engine, or fixtures/fieldPrefix for a fresh engine, not both' });
  await assert.rejects(serve({ users: [] }), { name: 'TypeError', message: 'serve: users must name at least one user' });
});
