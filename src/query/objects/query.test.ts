import assert from 'node:assert/strict';
import { test } from 'node:test';
import { callRoute, grantingContext } from '../../api/call-route.testing.ts';
import type { Engine } from '../../api/types.ts';
import { createEngine } from '../../engine.ts';

/** An engine whose clock advances one second per object written. */
function engineWithObjects(): Engine {
  let t = Date.UTC(2024, 0, 1) * 1000;
  let n = 0;
  const engine = createEngine(undefined, { fieldPrefix: 'svc_', now: () => (t += 1_000_000), newId: () => `id-${++n}` });
  const obj = (object_id: string, val: unknown) => callRoute(engine, '/obj/create', { obj: { project_id: 'e/p', object_id, val } });
  obj('zeta', { _type: 'Dataset', _class_name: 'Dataset', _bases: ['Object', 'BaseModel'], rows: 'x', v: 1 });
  obj('alpha', { _type: 'CustomWeaveType', weave_type: { type: 'Op' }, load_op: 'NO_LOAD_OP' });
  obj('zeta', { _type: 'Dataset', _class_name: 'Dataset', _bases: ['Object', 'BaseModel'], rows: 'x', v: 2 });
  obj('plain', { a: 1 });
  return engine;
}

type Obj = { object_id: string; version_index: number; is_latest: number; kind: string; base_object_class: string | null; val: unknown; size_bytes: number | null };
const objs = (engine: Engine, body: Record<string, unknown>) => (callRoute(engine, '/objs/query', { project_id: 'e/p', ...body }) as { body: { objs: Obj[] } }).body.objs;
const names = (list: Obj[]) => list.map((o) => `${o.object_id}:v${o.version_index}`);

test('default order is created_at ascending; sort_by takes object_id and created_at only', () => {
  const engine = engineWithObjects();
  assert.deepEqual(names(objs(engine, {})), ['zeta:v0', 'alpha:v0', 'zeta:v1', 'plain:v0']);
  assert.deepEqual(names(objs(engine, { sort_by: [{ field: 'object_id', direction: 'asc' }, { field: 'created_at', direction: 'desc' }] })), ['alpha:v0', 'plain:v0', 'zeta:v1', 'zeta:v0']);
  assert.deepEqual(names(objs(engine, { sort_by: [{ field: 'digest', direction: 'desc' }, { field: 'created_at', direction: 'desc' }] })), ['plain:v0', 'zeta:v1', 'alpha:v0', 'zeta:v0']);
  assert.deepEqual(names(objs(engine, { limit: 2, offset: 1 })), ['alpha:v0', 'zeta:v1']);
});

test('filters: ids, ops, latest, classes (a null class passes neither IN nor NOT IN); empty lists filter nothing', () => {
  const engine = engineWithObjects();
  assert.deepEqual(names(objs(engine, { filter: { object_ids: ['zeta'] } })), ['zeta:v0', 'zeta:v1']);
  assert.deepEqual(names(objs(engine, { filter: { object_ids: [] } })).length, 4);
  assert.deepEqual(names(objs(engine, { filter: { is_op: true } })), ['alpha:v0']);
  assert.deepEqual(names(objs(engine, { filter: { is_op: false, latest_only: true } })), ['zeta:v1', 'plain:v0']);
  assert.deepEqual(names(objs(engine, { filter: { base_object_classes: ['Dataset'] } })), ['zeta:v0', 'zeta:v1']);
  assert.deepEqual(names(objs(engine, { filter: { exclude_base_object_classes: ['Dataset'] } })), []);
  assert.deepEqual(names(objs(engine, { filter: { leaf_object_classes: ['Dataset'] } })), ['zeta:v0', 'zeta:v1']);
});

test('metadata_only empties val; include_storage_size is the dump length', () => {
  const engine = engineWithObjects();
  const [plain] = objs(engine, { filter: { object_ids: ['plain'] }, include_storage_size: true });
  assert.deepEqual(plain.val, { a: 1 });
  assert.equal(plain.size_bytes, '{"a": 1}'.length);
  const [meta] = objs(engine, { filter: { object_ids: ['plain'] }, metadata_only: true });
  assert.deepEqual([meta.val, meta.size_bytes, meta.is_latest, meta.kind], [{}, null, 1, 'object']);
});

test('objs/query errors', () => {
  const engine = engineWithObjects();
  assert.deepEqual(callRoute(engine, '/objs/query', { project_id: 'e/p', limit: -1 }), { status: 400, body: { reason: 'Limit must be a positive integer' } });
  assert.deepEqual(callRoute(engine, '/objs/query', { project_id: 'e/p', offset: -1 }), { status: 400, body: { reason: 'Offset must be a positive integer' } });
  assert.equal(callRoute(engine, '/objs/query', { project_id: 'e/p', filter: { nope: 1 } }).status, 422);
  assert.deepEqual(callRoute(engine, '/objs/query', { project_id: 'e/p' }, grantingContext('bob', ['e/p'])), {
    status: 403,
    body: { reason: "User 'bob' has no access to project 'e/p'" },
  });
});

test('obj/delete: named versions, all versions, production errors; deleted versions leave every read', () => {
  const engine = engineWithObjects();
  const del = (body: Record<string, unknown>) => callRoute(engine, '/obj/delete', { project_id: 'e/p', ...body });
  assert.deepEqual(del({ object_id: 'nope' }), { status: 404, body: { reason: 'Object nope (None) not found when deleting.' } });
  assert.deepEqual(del({ object_id: 'zeta', digests: ['v9'] }), { status: 404, body: { reason: "Object zeta (['v9']) not found when deleting." } });
  assert.deepEqual(del({ object_id: 'zeta', digests: ['v1', 'x'] }), {
    status: 404,
    body: { reason: "Delete request contains 2 digests, but found 1 objects to delete. Diff digests: {'v1', 'x'}" },
  });
  assert.deepEqual(del({ object_id: 'zeta', digests: Array.from({ length: 101 }, (_, i) => `d${i}`) }), {
    status: 400,
    body: { reason: 'Object delete request contains 101 objects. Please delete 100 or fewer objects at a time.' },
  });
  assert.deepEqual(names(objs(engine, {})).length, 4, 'failed deletes change nothing');

  const [latest] = objs(engine, { filter: { object_ids: ['zeta'], latest_only: true } });
  assert.deepEqual(del({ object_id: 'zeta', digests: ['latest'] }), { status: 200, body: { num_deleted: 1 } });
  assert.deepEqual(names(objs(engine, { filter: { object_ids: ['zeta'] } })), ['zeta:v0']);
  assert.equal(objs(engine, { filter: { object_ids: ['zeta'] } })[0].is_latest, 1, 'latest moves to the newest live version');
  const read = callRoute(engine, '/obj/read', { project_id: 'e/p', object_id: 'zeta', digest: (latest as unknown as { digest: string }).digest });
  assert.deepEqual(read, { status: 404, body: { reason: 'zeta:v1 was deleted at 2024-01-01 00:00:05+00:00', deleted_at: '2024-01-01T00:00:05+00:00' } });
  assert.deepEqual(callRoute(engine, '/refs/read_batch', { refs: ['weave:///e/p/object/zeta:v1', 'weave:///e/p/object/zeta:latest'] }), {
    status: 200,
    body: { vals: [null, { _bases: ['Object', 'BaseModel'], _class_name: 'Dataset', _type: 'Dataset', rows: 'x', v: 1 }] },
  });
  assert.deepEqual(del({ object_id: 'zeta' }), { status: 200, body: { num_deleted: 1 } });
  assert.deepEqual(del({ object_id: 'zeta' }), { status: 404, body: { reason: 'Object zeta (None) not found when deleting.' } });
  assert.deepEqual(names(objs(engine, {})), ['alpha:v0', 'plain:v0']);
});
