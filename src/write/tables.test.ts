import assert from 'node:assert/strict';
import { test } from 'node:test';
import { call, testEngine } from './writes.testing.ts';

const P = 'acme/proj';
const R1 = 'XdhgKMbg1k4iUYb5astpM4ssWXZN95FiEH9cS7NNExA'; // {"a": 1}
const R2 = 'yYx5Sw6mdkkIiKkcgij0CUuX6hWvZQ05ok4gopVBCUU'; // {"b": "x", "a": [1, 2.5, null, true]}
const T12 = 'ef58432d13add22b5a18d3888ccc0b83707cda76e23187022a4bc3eb42a8ec78';
const ROWS_TEXT = '{"table":{"project_id":"acme/proj","rows":[{"a":1},{"b":"x","a":[1,2.5,null,true]}]}}';

test('semantics.md#writes-table-create /table/create answers the semantics.md#digest-vectors digests and stores rows and table', () => {
  const e = testEngine();
  assert.deepEqual(call(e, '/table/create', ROWS_TEXT), { status: 200, body: { digest: T12, row_digests: [R1, R2] } });
  const p = e.store.project(P)!;
  assert.deepEqual(p.tables.get(T12), [R1, R2]);
  // semantics.md#table-val-verbatim: the stored text keeps the original key order.
  assert.equal(p.rows.get(R2)!.text, '{"b":"x","a":[1,2.5,null,true]}');
});

test('semantics.md#digest-row: a body with 1.0 digests as Python does (parsed losslessly, stored as a float)', () => {
  const e = testEngine();
  const res = call(e, '/table/create', '{"table":{"project_id":"acme/proj","rows":[{"z":1.0,"é":"ü"}]}}');
  const digest = 'gm13uEV1UVvDehXvVdv2QvyG7yP7mXv0wRTk81OsZho';
  assert.deepEqual((res.body as { row_digests: string[] }).row_digests, [digest]);
  assert.equal(e.store.project(P)!.rows.get(digest)!.text, '{"z":1.0,"é":"ü"}');
});

test('stored row text spells numbers as Python parsed them; NaN becomes null (pydantic output)', () => {
  const e = testEngine();
  call(e, '/table/create', '{"table":{"project_id":"acme/proj","rows":[{"a":1E2,"b":1.10,"c":NaN,"d":123456789012345678901234567890}]}}');
  const [row] = e.store.project(P)!.rows.values();
  assert.equal(row.text, '{"a":100.0,"b":1.1,"c":null,"d":123456789012345678901234567890}');
});

test('semantics.md#writes-table-create duplicates are kept in the digest list; first body wins per digest (semantics.md#table-val-verbatim)', () => {
  const e = testEngine();
  const res = call(e, '/table/create', '{"table":{"project_id":"acme/proj","rows":[{"a":1},{"a":1}]}}');
  assert.deepEqual(res.body, { digest: 'b456ba578811beac47ce0abb00ed22c68efaf330751945281cdc08f5db3d826c', row_digests: [R1, R1] });
  call(e, '/table/create', '{"table":{"project_id":"acme/proj","rows":[{"b":"x","a":[1,2.5,null,true]}]}}');
  call(e, '/table/create', '{"table":{"project_id":"acme/proj","rows":[{"a":[1,2.5,null,true],"b":"x"}]}}');
  assert.equal(e.store.project(P)!.rows.get(R2)!.text, '{"b":"x","a":[1,2.5,null,true]}');
});

test('semantics.md#writes-table-create an empty table has the SHA-256 of nothing', () => {
  const e = testEngine();
  assert.deepEqual(call(e, '/table/create', { table: { project_id: P, rows: [] } }).body, {
    digest: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    row_digests: [],
  });
});

test('semantics.md#writes-table-create non-object rows are 422 dict_type at each bad index', () => {
  const e = testEngine();
  assert.deepEqual(call(e, '/table/create', { table: { project_id: P, rows: [1, { a: 1 }, 'x'] } }), {
    status: 422,
    body: {
      detail: [
        { type: 'dict_type', loc: ['body', 'table', 'rows', 0], msg: 'Input should be a valid dictionary', input: 1 },
        { type: 'dict_type', loc: ['body', 'table', 'rows', 2], msg: 'Input should be a valid dictionary', input: 'x' },
      ],
    },
  });
});

test('expected_digest that differs is 409 with Weave\'s DigestMismatchError text; nothing stored', () => {
  const e = testEngine();
  assert.deepEqual(call(e, '/table/create', { table: { project_id: P, rows: [{ a: 1 }], expected_digest: 'nope' } }), {
    status: 409,
    body: { reason: `Client table (1 rows) digest nope != server digest ${'3326b2458d037af4f958a80f18aa545827317c2110bf40f7deeefed75276b7db'}` },
  });
  assert.equal(e.store.project(P), undefined);
});

test('semantics.md#writes-table-update append, insert and pop apply to the evolving list; one updated digest per update (semantics.md#writes-table-update-digests)', () => {
  const e = testEngine();
  call(e, '/table/create', ROWS_TEXT);
  const res = call(e, '/table/update', {
    project_id: P,
    base_digest: T12,
    updates: [{ append: { row: { c: 3 } } }, { pop: { index: 0 } }, { insert: { index: 2, row: { a: 1 } } }, { insert: { index: 0, row: { d: 4 } } }],
  });
  assert.equal(res.status, 200);
  const body = res.body as { digest: string; updated_row_digests: string[] };
  const p = e.store.project(P)!;
  const c3 = body.updated_row_digests[0];
  const d4 = body.updated_row_digests[3];
  assert.deepEqual(body.updated_row_digests, [c3, R1, R1, d4]);
  assert.deepEqual(p.tables.get(body.digest), [d4, R2, c3, R1]);
  assert.equal(p.rows.get(c3)!.text, '{"c":3}');
  // The base table is a value: unchanged.
  assert.deepEqual(p.tables.get(T12), [R1, R2]);
});

test('semantics.md#writes-table-update-indexes: insert at index == length is allowed, pop at length is not, negative indexes are errors', () => {
  const e = testEngine();
  call(e, '/table/create', ROWS_TEXT);
  const update = (u: unknown) => call(e, '/table/update', { project_id: P, base_digest: T12, updates: [u] });
  assert.equal(update({ insert: { index: 2, row: { a: 5 } } }).status, 200);
  const outOfRange = { status: 400, body: { reason: 'Index out of range' } };
  assert.deepEqual(update({ pop: { index: 2 } }), outOfRange);
  assert.deepEqual(update({ pop: { index: -1 } }), outOfRange);
  assert.deepEqual(update({ insert: { index: 3, row: { a: 5 } } }), outOfRange);
  assert.deepEqual(update({ insert: { index: -1, row: { a: 5 } } }), outOfRange);
});

test('semantics.md#writes-table-update-indexes: indexes are checked against the list as earlier updates left it; a failing request stores nothing', () => {
  const e = testEngine();
  call(e, '/table/create', ROWS_TEXT);
  const before = e.store.project(P)!.tables.size;
  const res = call(e, '/table/update', { project_id: P, base_digest: T12, updates: [{ pop: { index: 1 } }, { pop: { index: 1 } }] });
  assert.deepEqual(res, { status: 400, body: { reason: 'Index out of range' } });
  assert.equal(e.store.project(P)!.tables.size, before);
});

test('semantics.md#writes-table-update an unknown base table is 404 "Table <project>:<digest> not found" (ClickHouse)', () => {
  const e = testEngine();
  assert.deepEqual(call(e, '/table/update', { project_id: P, base_digest: 'nope', updates: [] }), {
    status: 404,
    body: { reason: 'Table acme/proj:nope not found' },
  });
});

test('semantics.md#writes-table-update update payloads: pydantic union errors per spec class; "2" is a lax int', () => {
  const e = testEngine();
  call(e, '/table/create', ROWS_TEXT);
  const bad = call(e, '/table/update', { project_id: P, base_digest: T12, updates: [{ bogus: 1 }] });
  assert.deepEqual(
    (bad.body as { detail: Array<{ loc: unknown[] }> }).detail.map((d) => d.loc),
    [
      ['body', 'updates', 0, 'TableAppendSpec', 'append'],
      ['body', 'updates', 0, 'TablePopSpec', 'pop'],
      ['body', 'updates', 0, 'TableInsertSpec', 'insert'],
    ],
  );
  assert.deepEqual(call(e, '/table/update', { project_id: P, base_digest: T12, updates: [{ pop: { index: '1' } }] }).body, {
    digest: tableOf(R1),
    updated_row_digests: [R2],
  });
});

function tableOf(...digests: string[]): string {
  const e = testEngine();
  return (call(e, '/table/create_from_digests', { project_id: P, row_digests: digests }).body as { digest: string }).digest;
}

test('semantics.md#writes-table-from-digests create_from_digests stores the list as is and answers its digest', () => {
  const e = testEngine();
  assert.deepEqual(call(e, '/table/create_from_digests', { project_id: P, row_digests: [R1, R2] }), { status: 200, body: { digest: T12 } });
  assert.deepEqual(e.store.project(P)!.tables.get(T12), [R1, R2]);
  assert.equal(e.store.project(P)!.rows.size, 0);
});

test('semantics.md#digest-table the project is not part of a digest: the same table in two projects', () => {
  const e = testEngine();
  const a = call(e, '/table/create', ROWS_TEXT).body;
  const b = call(e, '/table/create', ROWS_TEXT.replace('acme/proj', 'other/proj')).body;
  assert.deepEqual(a, b);
  assert.ok(e.store.project('other/proj')!.tables.has(T12));
});

test('table_create records where each position\'s stored row text sits in the packed texts (a first sort encodes runs of them): duplicates, held rows, and none when the texts were copied', () => {
  const e = testEngine();
  // {"a":1} is held already (stored by an earlier table: its text is not this write's).
  call(e, '/table/create', '{"table":{"project_id":"acme/proj","rows":[{"a":1}]}}');
  const res = call(e, '/table/create', '{"table":{"project_id":"acme/proj","rows":[{"c":"é"},{"a":1},{"c":"é"},{"d":[1,2]},{"e":3},{"f":4}]}}');
  const { digest, row_digests } = res.body as { digest: string; row_digests: string[] };
  const p = e.store.project(P)!;
  const packed = p.tableTextsWhenStored.get(digest)!;
  assert.equal(packed.from.length, 6);
  assert.deepEqual([...packed.from].map((f) => f >= 0), [true, false, true, true, true, true]);
  for (let i = 0; i < 6; i++) {
    if (packed.from[i] < 0) continue;
    assert.equal(packed.text.slice(packed.from[i], packed.to[i]), p.rows.get(row_digests[i])!.text, `position ${i}`);
  }
  // The duplicate reads its first occurrence's text.
  assert.deepEqual([packed.from[2], packed.to[2]], [packed.from[0], packed.to[0]]);
  // Mostly held rows: the few new texts are copied out of the packed string, so none is recorded.
  const copied = call(e, '/table/create', '{"table":{"project_id":"acme/proj","rows":[{"c":"é"},{"a":1},{"d":[1,2]},{"e":3},{"f":4},{"g":5}]}}');
  assert.equal(p.tableTextsWhenStored.get((copied.body as { digest: string }).digest), undefined);
  assert.ok(p.tables.has((copied.body as { digest: string }).digest));
});
