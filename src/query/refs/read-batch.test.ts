import assert from 'node:assert/strict';
import { test } from 'node:test';
import { callRoute, grantingContext } from '../../api/call-route.testing.ts';
import { testEngine } from '../../write/writes.testing.ts';
import { parseRef } from '../../core/refs.ts';
import { PRODUCTION_REF_RULES, readParsedRefs } from './read-batch.ts';

function engineWithRefs() {
  const engine = testEngine();
  const table = callRoute(engine, '/table/create', { table: { project_id: 'e/p', rows: [{ q: 'a' }, { q: 'b' }] } }) as { body: { digest: string; row_digests: string[] } };
  const val = { name: 'ds', rows: `weave:///e/p/table/${table.body.digest}`, tags: ['x', 'y'], meta: { k: 'v' }, word: 'héllo' };
  const d = (callRoute(engine, '/obj/create', { obj: { project_id: 'e/p', object_id: 'ds', val } }) as { body: { digest: string } }).body.digest;
  callRoute(engine, '/obj/create', { obj: { project_id: 'x/forbidden', object_id: 'secret', val: { s: 1 } } });
  return { engine, d, rowDigests: table.body.row_digests, val };
}

test('semantics.md#refs-read-batch object refs resolve in order, through key/attr/index/id paths; the unresolvable are null', () => {
  const { engine, d, rowDigests, val } = engineWithRefs();
  const base = `weave:///e/p/object/ds:${d}`;
  const refs = [
    base,
    `${base}/attr/meta/key/k`,
    `${base}/attr/tags/index/-1`,
    `${base}/attr/word/index/1`,
    `${base}/attr/rows/id/${rowDigests[1]}`,
    `${base}/attr/nope`,
    `${base}/attr/tags/index/2`,
    `${base}/attr/tags/key/0`,
    `${base}/attr/name/id/x`,
    `${base}/edge/name`,
    `${base}/key/%E0%A4%A`,
  ];
  assert.deepEqual(callRoute(engine, '/refs/read_batch', { refs }), {
    status: 200,
    body: { vals: [val, 'v', 'y', 'é', { q: 'b' }, null, null, null, null, null, null] },
  });
});

test('semantics.md#refs-read-batch a missing root digest fails the batch with 404 and the digests; latest is a 400; v<N> is a digest', () => {
  const { engine, d } = engineWithRefs();
  const answer = (refs: string[]) => callRoute(engine, '/refs/read_batch', { refs });
  assert.deepEqual(answer([`weave:///e/p/object/ds:${d}`, 'weave:///e/p/object/ds:v0', 'weave:///e/p/op/missing:abc', 'weave:///e/p/object/x:v0']), {
    status: 404,
    body: { reason: "Ref read contains 3 digests, but found 1 objects. Diff digests: {'v0', 'abc'}", missing_object_digests: ['v0', 'abc'] },
  });
  assert.deepEqual(answer([`weave:///e/p/object/ds:${d}`, 'weave:///e/p/object/ds:latest']), {
    status: 400,
    body: { reason: 'Reading refs with `latest` is not supported' },
  });
  // A digest of another object id is not found either: the pair must match.
  assert.equal(answer([`weave:///e/p/object/other:${d}`]).status, 404);
  callRoute(engine, '/obj/delete', { project_id: 'e/p', object_id: 'ds' });
  assert.deepEqual(answer([`weave:///e/p/object/ds:${d}`, `weave:///e/p/object/ds:${d}/attr/name`]), { status: 200, body: { vals: [null, null] } });
});

test('semantics.md#refs-read-nested-path a path past a nested object ref goes on inside it; production rules stop at the nested object', () => {
  const engine = testEngine();
  const create = (object_id: string, val: unknown) => (callRoute(engine, '/obj/create', { obj: { project_id: 'e/p', object_id, val } }) as { body: { digest: string } }).body.digest;
  const inner = create('inner', { deep: { x: 1 }, list: [10, 20] });
  const outer = create('outer', { child: `weave:///e/p/object/inner:${inner}`, gone: 'weave:///e/p/object/nothing:abc', far: `weave:///x/forbidden/object/secret:${inner}` });
  create('middle', { via: `weave:///e/p/object/inner:${inner}/key/deep` });
  const base = `weave:///e/p/object/outer:${outer}`;
  const ctx = { userId: 'u', authorize() {}, canRead: (p: string) => p === 'e/p' };
  const parse = (refs: string[]) => refs.map((r) => parseRef(r)!);
  const refs = parse([`${base}/key/child/key/deep/key/x`, `${base}/key/child`, `${base}/key/child/key/list/index/1`, `${base}/key/far/key/s`]);
  assert.deepEqual(readParsedRefs(engine.store, ctx, refs), [1, `weave:///e/p/object/inner:${inner}`, 20, null]);
  assert.deepEqual(readParsedRefs(engine.store, ctx, refs, PRODUCTION_REF_RULES), [
    { deep: { x: 1 }, list: [10, 20] },
    `weave:///e/p/object/inner:${inner}`,
    { deep: { x: 1 }, list: [10, 20] },
    null,
  ]);
  // The nested ref's own path comes first, then the rest.
  const middle = (engine.store.project('e/p')!.objects.get('middle')![0]).digest;
  assert.deepEqual(readParsedRefs(engine.store, ctx, parse([`weave:///e/p/object/middle:${middle}/key/via/key/x`])), [1]);
  // A nested digest that names no object fails the batch, as a root one does.
  assert.throws(() => readParsedRefs(engine.store, ctx, parse([`${base}/key/gone/key/a`])), (e: { status: number; body(): unknown }) =>
    e.status === 404 && JSON.stringify(e.body()) === JSON.stringify({ reason: "Ref read contains 1 digests, but found 0 objects. Diff digests: {'abc'}", missing_object_digests: ['abc'] }));
});

test('a ref into a project without a grant is null, existing or not, and is never counted missing (semantics.md#auth-grants-refs)', () => {
  const { engine } = engineWithRefs();
  const secret = engine.store.project('x/forbidden')!.objects.get('secret')![0].digest;
  const refs = [`weave:///x/forbidden/object/secret:${secret}`, 'weave:///x/forbidden/object/nothing:abc'];
  assert.deepEqual(callRoute(engine, '/refs/read_batch', { refs }, grantingContext('bob', ['x/forbidden'])), { status: 200, body: { vals: [null, null] } });
  assert.equal(callRoute(engine, '/refs/read_batch', { refs }).status, 404);
  assert.deepEqual(callRoute(engine, '/refs/read_batch', { refs: refs.slice(0, 1) }), { status: 200, body: { vals: [{ s: 1 }] } });
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
