import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createEngine } from '../engine.ts';
import { spelledBody } from './body.ts';
import { jsonRoute } from './json-route.ts';
import { allRoutes, findRoute } from '../routes.ts';

const ctx = { userId: 'u', authorize() {}, canRead: () => true };

test('jsonRoute parses the body (plain by default), passes path parameters, marks writes', () => {
  const echo = jsonRoute('/echo/{name}', (_e, body, _c, params) => ({ body, params }));
  assert.equal(echo.mutates, undefined);
  assert.deepEqual(echo.run(createEngine(), { kind: 'text', text: '{"a":1.0}' }, ctx, { name: 'x' }), {
    kind: 'json',
    body: { body: { a: 1 }, params: { name: 'x' } },
    text: '{"body":{"a":1},"params":{"name":"x"}}',
  });
  assert.deepEqual(echo.run(createEngine(), { kind: 'value', value: 2 }, ctx), { kind: 'json', body: { body: 2, params: {} }, text: '{"body":2,"params":{}}' });
  const write = jsonRoute('/w', () => ({}), { mutates: true, parse: (b) => (b.kind === 'text' ? b.text : null) });
  assert.equal(write.mutates, true);
  assert.deepEqual(write.run(createEngine(), { kind: 'text', text: 'raw' }, ctx), { kind: 'json', body: {}, text: '{}' });
});

test('jsonRoute writes its answer exactly: a spelled body (spelledBody) answers 1.0 and big integers as sent', () => {
  const echo = jsonRoute('/echo', (_e, body) => body, { parse: spelledBody });
  const result = echo.run(createEngine(), { kind: 'text', text: '{"a":1.0,"b":1E2,"c":12345678901234567890,"d":NaN,"e":7}' }, ctx);
  assert.equal(result.kind === 'json' ? result.text : undefined, '{"a":1.0,"b":100.0,"c":12345678901234567890,"d":null,"e":7}');
});

test('exactly the routes that change the store are marked mutates', () => {
  const mutating = allRoutes().filter((r) => r.mutates).map((r) => r.path).sort();
  assert.deepEqual(mutating, [
    '/call/end', '/call/start', '/call/update', '/call/upsert_batch', '/calls/delete', '/cost/create', '/cost/purge',
    '/feedback/batch/create', '/feedback/create', '/feedback/purge', '/feedback/replace', '/file/create', '/files/create',
    '/obj/create', '/obj/delete', '/otel/v1/traces', '/table/create', '/table/create_from_digests', '/table/update', '/test/reset',
    '/v2/{entity}/{project}/call/end', '/v2/{entity}/{project}/call/start', '/v2/{entity}/{project}/calls/complete',
  ]);
  assert.equal(findRoute('/v2/acme/bot/calls/complete')?.path, '/v2/{entity}/{project}/calls/complete');
  assert.equal(findRoute('/v2/acme/calls/complete'), undefined);
});
