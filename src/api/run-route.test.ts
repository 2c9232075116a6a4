import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PermissionDeniedError } from '../core/errors.ts';
import { errorOf } from '../core/errors.testing.ts';
import { createEngine } from '../engine.ts';
import { callsStreamQueryRoute } from '../query/calls/route.ts';
import { runRoute, validatingContext } from './run-route.ts';
import type { RequestContext, Route } from './types.ts';

const everything: RequestContext = { userId: 'u', authorize() {}, canRead: () => true };

const nested = (depth: number, inner = '1') => '['.repeat(depth) + inner + ']'.repeat(depth);

test('a body nested deeper than 1000 levels is a 400 before any route code runs, in a field or at the top', () => {
  let ran = false;
  const spy: Route = { path: '/spy', method: 'POST', body: 'json', run: () => ((ran = true), { kind: 'json', body: null }) };
  const e = createEngine();
  for (const depth of [1001, 5000, 100_000]) {
    const top = errorOf(() => runRoute(spy, e, { kind: 'text', text: nested(depth) }, everything));
    assert.equal(top.status, 400);
    assert.deepEqual(top.body(), { reason: 'Request body is nested more than 1000 levels deep (at character 1000)' });
    const field = errorOf(() => runRoute(spy, e, { kind: 'text', text: `{"project_id":"e/p","query":${nested(depth - 1)}}` }, everything));
    assert.deepEqual(field.body(), { reason: 'Request body is nested more than 1000 levels deep (at character 1027)' });
  }
  let value: unknown = 1;
  for (let i = 0; i < 1001; i++) value = [value];
  assert.deepEqual(errorOf(() => runRoute(spy, e, { kind: 'value', value: { project_id: 'e/p', inputs: value } }, everything)).body(), {
    reason: 'Request body is nested more than 1000 levels deep',
  });
  assert.equal(ran, false);
  // Exactly 1000 levels reaches the route; brackets inside strings do not count.
  runRoute(spy, e, { kind: 'text', text: nested(1000) }, everything);
  runRoute(spy, e, { kind: 'text', text: `["${'['.repeat(5000)}\\"${'{'.repeat(5000)}"]` }, everything);
  assert.equal(ran, true);
});

test('a route that still overflows the stack is a 400, not a crash; other errors pass through unchanged', () => {
  const overflowing: Route = {
    path: '/deep',
    method: 'POST',
    body: 'json',
    run: () => {
      const f = (n: number): number => f(n + 1) + 1;
      return { kind: 'json', body: f(0) };
    },
  };
  assert.deepEqual(errorOf(() => runRoute(overflowing, createEngine(), { kind: 'text', text: '{}' }, everything)).body(), {
    reason: 'Request is nested too deeply',
  });
  // While a stream is pulled too; closing the stream early reaches the route's iterator.
  let closed = false;
  const deepStream: Route = {
    path: '/deep-stream',
    method: 'POST',
    body: 'json',
    run: () => ({
      kind: 'stream',
      lines: (function* () {
        try {
          yield 'first';
          const f = (n: number): number => f(n + 1) + 1;
          yield String(f(0));
        } finally {
          closed = true;
        }
      })(),
    }),
  };
  const result = runRoute(deepStream, createEngine(), { kind: 'text', text: '{}' }, everything);
  assert.ok(result.kind === 'stream');
  const lines = result.lines[Symbol.iterator]();
  assert.deepEqual(lines.next(), { done: false, value: 'first' });
  assert.deepEqual(errorOf(() => lines.next()).body(), { reason: 'Request is nested too deeply' });
  const again = (runRoute(deepStream, createEngine(), { kind: 'text', text: '{}' }, everything) as { lines: Iterable<string> }).lines[Symbol.iterator]();
  again.next();
  closed = false;
  again.return!();
  assert.equal(closed, true);
  assert.deepEqual([...(runRoute(callsStreamQueryRoute, createEngine(), { kind: 'text', text: '{"project_id":"e/p"}' }, everything) as { lines: Iterable<string> }).lines], []);
  const e = errorOf(() => runRoute(callsStreamQueryRoute, createEngine(), { kind: 'value', value: { project_id: 'e/p', limit: -1 } }, everything));
  assert.equal(e.code, 'TQ_NEGATIVE_LIMIT');
});

test('semantics.md#project-ids: every route gets one project id validation, after credentials and before the grant check', () => {
  const denied: string[] = [];
  const ctx: RequestContext = {
    userId: 'bob',
    authorize(p) {
      denied.push(p);
      throw new PermissionDeniedError('TQ_PROJECT_FORBIDDEN', { user: 'bob', project: p });
    },
    canRead: () => true,
  };
  const cases: Array<[string, string]> = [
    ['acme/x/y', "Invalid project_id 'acme/x/y': expected the form <entity>/<project>"],
    ['acme/../globex/rag-search', "Invalid project_id 'acme/../globex/rag-search': expected the form <entity>/<project>"],
    ['../x', "Invalid project_id '../x': a '..' part is not allowed"],
    ['acme/', "Invalid project_id 'acme/': expected the form <entity>/<project>"],
    ['noslash', "Invalid project_id 'noslash': expected the form <entity>/<project>"],
    ['acme/a\u0000b', "Invalid project_id 'acme/a\\u0000b': whitespace, control and zero-width characters are not allowed"],
    ['acme/a\u200bb', "Invalid project_id 'acme/a\\u200bb': whitespace, control and zero-width characters are not allowed"],
    ['acme/a b', "Invalid project_id 'acme/a b': whitespace, control and zero-width characters are not allowed"],
    [`acme/${'x'.repeat(500)}\t`, `Invalid project_id 'acme/${'x'.repeat(123)}…': whitespace, control and zero-width characters are not allowed`],
  ];
  for (const [project, reason] of cases) {
    const err = errorOf(() => runRoute(callsStreamQueryRoute, createEngine(), { kind: 'value', value: { project_id: project } }, ctx));
    assert.equal(err.status, 400, project);
    assert.deepEqual(err.body(), { reason });
  }
  assert.deepEqual(denied, []);
  // A valid id goes on to the grant check.
  assert.equal(errorOf(() => runRoute(callsStreamQueryRoute, createEngine(), { kind: 'value', value: { project_id: 'acme/x' } }, ctx)).status, 403);
  assert.deepEqual(denied, ['acme/x']);
});

test('canRead is false for a malformed id whatever the grants; other context fields pass through', () => {
  const seen: string[] = [];
  const ctx = validatingContext({ userId: 'u', authorize() {}, canRead: (p) => (seen.push(p), true), extra: 7 } as RequestContext & { extra: number });
  assert.equal(ctx.canRead('b/x'), true);
  assert.equal(ctx.canRead('b/x/y'), false);
  assert.equal(ctx.canRead('b/..'), false);
  assert.deepEqual(seen, ['b/x']);
  assert.equal((ctx as RequestContext & { extra: number }).extra, 7);
  assert.equal(ctx.userId, 'u');
});
