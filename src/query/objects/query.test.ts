import assert from 'node:assert/strict';
import { test } from 'node:test';
import { callRoute, grantingContext } from '../../api/call-route.testing.ts';
import { engineWithObjects, names, objs } from './objects.testing.ts';

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
