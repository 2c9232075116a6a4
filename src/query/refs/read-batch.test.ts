import assert from 'node:assert/strict';
import { test } from 'node:test';
import { callRoute, grantingContext } from '../../api/call-route.testing.ts';
import { testEngine } from '../../write/writes.testing.ts';

function engineWithRefs() {
  const engine = testEngine();
  const table = callRoute(engine, '/table/create', { table: { project_id: 'e/p', rows: [{ q: 'a' }, { q: 'b' }] } }) as { body: { digest: string; row_digests: string[] } };
  const val = { name: 'ds', rows: `weave:///e/p/table/${table.body.digest}`, tags: ['x', 'y'], meta: { k: 'v' }, word: 'héllo' };
  const d = (callRoute(engine, '/obj/create', { obj: { project_id: 'e/p', object_id: 'ds', val } }) as { body: { digest: string } }).body.digest;
  callRoute(engine, '/obj/create', { obj: { project_id: 'x/forbidden', object_id: 'secret', val: { s: 1 } } });
  return { engine, d, rowDigests: table.body.row_digests, val };
}

test('object refs resolve in order, through key/attr/index/id paths; the unresolvable are null', () => {
  const { engine, d, rowDigests, val } = engineWithRefs();
  const base = `weave:///e/p/object/ds:${d}`;
  const refs = [
    base,
    'weave:///e/p/object/ds:latest/attr/meta/key/k',
    'weave:///e/p/object/ds:v0/attr/tags/index/-1',
    `${base}/attr/word/index/1`,
    `${base}/attr/rows/id/${rowDigests[1]}`,
    `${base}/attr/nope`,
    `${base}/attr/tags/index/2`,
    `${base}/attr/tags/key/0`,
    `${base}/attr/name/id/x`,
    `${base}/edge/name`,
    'weave:///e/p/object/ds:v7',
    'weave:///e/p/op/missing:latest',
  ];
  assert.deepEqual(callRoute(engine, '/refs/read_batch', { refs }), {
    status: 200,
    body: { vals: [val, 'v', 'y', 'é', { q: 'b' }, null, null, null, null, null, null, null] },
  });
});

test('a ref into a project without a grant is null, existing or not (semantics.md#auth-grants-refs)', () => {
  const { engine } = engineWithRefs();
  const refs = ['weave:///x/forbidden/object/secret:latest', 'weave:///x/forbidden/object/nothing:latest'];
  assert.deepEqual(callRoute(engine, '/refs/read_batch', { refs }, grantingContext('bob', ['x/forbidden'])), { status: 200, body: { vals: [null, null] } });
  assert.deepEqual(callRoute(engine, '/refs/read_batch', { refs }), { status: 200, body: { vals: [{ s: 1 }, null] } });
});

test('table refs, call refs, malformed refs and more than 1000 refs are 400s', () => {
  const { engine } = engineWithRefs();
  const reason = (refs: string[]) => (callRoute(engine, '/refs/read_batch', { refs }) as { body: { reason?: string } }).body.reason;
  assert.equal(reason(['weave:///e/p/table/abc']), 'Table refs not supported');
  assert.equal(reason(['weave:///e/p/call/abc']), 'Call refs not supported in batch read, use calls_query_stream');
  assert.equal(reason(['not a ref']), 'Invalid ref: not a ref');
  assert.equal(reason(Array.from({ length: 1001 }, () => 'weave:///e/p/object/ds:latest')), 'Too many refs');
  assert.equal(callRoute(engine, '/refs/read_batch', { refs: 'x' }).status, 422);
});

test('a key step stops at an exact big integer: it is a number, not an object with keys', () => {
  const engine = testEngine();
  const created = callRoute(engine, '/obj/create', '{"obj":{"project_id":"e/p","object_id":"big","val":{"n":12345678901234567890}}}') as { body: { digest: string } };
  const base = `weave:///e/p/object/big:${created.body.digest}`;
  const answer = callRoute(engine, '/refs/read_batch', { refs: [`${base}/key/n/key/lexeme`, `${base}/key/n/attr/lexeme`] });
  assert.deepEqual(answer, { status: 200, body: { vals: [null, null] } });
});
