import assert from 'node:assert/strict';
import { test } from 'node:test';
import { callRoute } from '../api/call-route.testing.ts';
import { engineWithObjects, names, objs } from '../query/objects/objects.testing.ts';

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
  const deleted = (latest as unknown as { digest: string }).digest;
  const live = (objs(engine, { filter: { object_ids: ['zeta'] } })[0] as unknown as { digest: string }).digest;
  // refs/read_batch reads by digest (semantics.md#refs-read-batch): the deleted version is null.
  assert.deepEqual(callRoute(engine, '/refs/read_batch', { refs: [`weave:///e/p/object/zeta:${deleted}`, `weave:///e/p/object/zeta:${live}`] }), {
    status: 200,
    body: { vals: [null, { _bases: ['Object', 'BaseModel'], _class_name: 'Dataset', _type: 'Dataset', rows: 'x', v: 1 }] },
  });
  assert.deepEqual(del({ object_id: 'zeta' }), { status: 200, body: { num_deleted: 1 } });
  assert.deepEqual(del({ object_id: 'zeta' }), { status: 404, body: { reason: 'Object zeta (None) not found when deleting.' } });
  assert.deepEqual(names(objs(engine, {})), ['alpha:v0', 'plain:v0']);
});

test('"latest" follows write order: a re-written version is latest; deleting it makes the previous one latest', () => {
  const engine = engineWithObjects();
  const zetaV0 = { _type: 'Dataset', _class_name: 'Dataset', _bases: ['Object', 'BaseModel'], rows: 'x', v: 1 };
  callRoute(engine, '/obj/create', { obj: { project_id: 'e/p', object_id: 'zeta', val: zetaV0 } });
  const latest = () => objs(engine, { filter: { object_ids: ['zeta'], latest_only: true } }).map((o) => o.version_index);
  assert.deepEqual(latest(), [0]);
  assert.deepEqual(callRoute(engine, '/obj/delete', { project_id: 'e/p', object_id: 'zeta', digests: ['latest'] }), { status: 200, body: { num_deleted: 1 } });
  assert.deepEqual(latest(), [1]);
  const [now] = objs(engine, { filter: { object_ids: ['zeta'], latest_only: true } }) as unknown as Array<{ digest: string }>;
  assert.deepEqual(callRoute(engine, '/refs/read_batch', { refs: [`weave:///e/p/object/zeta:${now.digest}/attr/v`] }), { status: 200, body: { vals: [2] } });
});
