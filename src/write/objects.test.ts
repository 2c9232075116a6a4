import assert from 'node:assert/strict';
import { test } from 'node:test';
import { call, testContext, testEngine } from './writes.testing.ts';

const P = 'acme/proj';
const OP_VAL = { _type: 'CustomWeaveType', weave_type: { type: 'Op' }, files: { 'obj.py': 'd' }, load_op: 'NO_LOAD_OP' };
const OP_DIGEST = 'W4Bkch9ppY8F4B8gtIuxuCKS61wesKjnAfpeWp72KPg';
const create = (e: ReturnType<typeof testEngine>, objectId: string, val: unknown, extra: Record<string, unknown> = {}) =>
  call(e, '/obj/create', { obj: { project_id: P, object_id: objectId, val, ...extra } });
const read = (e: ReturnType<typeof testEngine>, objectId: string, digest: string) => call(e, '/obj/read', { project_id: P, object_id: objectId, digest });

test('semantics.md#writes-obj-create /obj/create answers {digest, object_id}; the SDK op value digests as in Python', () => {
  const e = testEngine();
  assert.deepEqual(create(e, 'add', OP_VAL), { status: 200, body: { digest: OP_DIGEST, object_id: 'add' } });
});

test('semantics.md#writes-obj-create /obj/read gives the ObjSchema the SDK reads, kind op, keys of val sorted', () => {
  const e = testEngine();
  create(e, 'add', OP_VAL);
  assert.deepEqual(read(e, 'add', OP_DIGEST), {
    status: 200,
    body: {
      obj: {
        project_id: P,
        object_id: 'add',
        created_at: '2024-06-01T12:00:00Z',
        deleted_at: null,
        digest: OP_DIGEST,
        version_index: 0,
        is_latest: 1,
        kind: 'op',
        base_object_class: null,
        leaf_object_class: null,
        val: { _type: 'CustomWeaveType', files: { 'obj.py': 'd' }, load_op: 'NO_LOAD_OP', weave_type: { type: 'Op' } },
        svc_user_id: 'alice',
        size_bytes: null,
      },
    },
  });
  const val = (read(e, 'add', OP_DIGEST).body as { obj: { val: object } }).obj.val;
  assert.deepEqual(Object.keys(val), ['_type', 'files', 'load_op', 'weave_type']);
});

test('semantics.md#writes-obj-create versions: new digests get version_index 0, 1, 2; latest and v<N> resolve', () => {
  const e = testEngine();
  const d0 = (create(e, 'ds', { v: 0 }).body as { digest: string }).digest;
  const d1 = (create(e, 'ds', { v: 1 }).body as { digest: string }).digest;
  const d2 = (create(e, 'ds', { v: 2 }).body as { digest: string }).digest;
  const obj = (ref: string) => (read(e, 'ds', ref).body as { obj: Record<string, unknown> }).obj;
  assert.deepEqual([obj(d0).version_index, obj(d1).version_index, obj(d2).version_index], [0, 1, 2]);
  assert.deepEqual([obj(d0).is_latest, obj(d1).is_latest, obj(d2).is_latest], [0, 0, 1]);
  assert.equal(obj('latest').digest, d2);
  assert.equal(obj('v1').digest, d1);
});

test('semantics.md#writes-obj-create the same value again is the same version (no new index) and becomes latest again', () => {
  const e = testEngine();
  const d0 = (create(e, 'ds', { v: 0 }).body as { digest: string }).digest;
  create(e, 'ds', { v: 1 });
  assert.deepEqual(create(e, 'ds', { v: 0 }).body, { digest: d0, object_id: 'ds' });
  const versions = e.store.project(P)!.objects.get('ds')!;
  assert.equal(versions.length, 2);
  const latest = (read(e, 'ds', 'latest').body as { obj: Record<string, unknown> }).obj;
  assert.equal(latest.digest, d0);
  assert.equal(latest.version_index, 0);
  assert.equal(e.store.project(P)!.objectVersion('ds', 'latest')!.digest, d0);
});

test('semantics.md#digest-object a Dataset object gets base and leaf class from _bases; kind object', () => {
  const e = testEngine();
  create(e, 'my-dataset', { _type: 'Dataset', _class_name: 'Dataset', _bases: ['Object', 'BaseModel'], name: 'my dataset', rows: 'weave:///e/p/table/abc' });
  const obj = (read(e, 'my-dataset', 'latest').body as { obj: Record<string, unknown> }).obj;
  assert.deepEqual([obj.digest, obj.kind, obj.base_object_class, obj.leaf_object_class], ['k13nJYwET6vylmiTbSIajg4osSroWNuiKQQQ85vsGAo', 'object', 'Dataset', 'Dataset']);
});

test('semantics.md#digest-row: object values are parsed losslessly (1 vs 1.0 differ)', () => {
  const e = testEngine();
  const a = call(e, '/obj/create', '{"obj":{"project_id":"acme/proj","object_id":"o","val":{"x":1}}}').body as { digest: string };
  const b = call(e, '/obj/create', '{"obj":{"project_id":"acme/proj","object_id":"o","val":{"x":1.0}}}').body as { digest: string };
  assert.notEqual(a.digest, b.digest);
});

test('semantics.md#writes-obj-create object_id validation: invalid characters, empty, longer than 128 (400)', () => {
  const e = testEngine();
  assert.deepEqual(create(e, 'bad name/x', 1), {
    status: 400,
    body: {
      reason:
        "Invalid object name: bad name/x. Contains invalid characters: [' ', '/']. Please upgrade your `weave` package to `>0.51.0` to prevent this error.",
    },
  });
  assert.deepEqual(create(e, '', 1), { status: 400, body: { reason: 'Object name cannot be empty' } });
  const long = 'a'.repeat(129);
  assert.deepEqual(create(e, long, 1), { status: 400, body: { reason: `String too long: ${long}. Max length is 128` } });
  assert.equal(create(e, 'ünïcode_ok.v-1', 1).status, 200);
});

test('expected_digest mismatch is 409 naming the object with Python repr', () => {
  const e = testEngine();
  const res = create(e, 'add', OP_VAL, { expected_digest: 'nope' });
  assert.deepEqual(res, { status: 409, body: { reason: `Client obj 'add' digest nope != server digest ${OP_DIGEST}` } });
});

test('builtin_object_class (and its deprecated alias) must match the value\'s class', () => {
  const e = testEngine();
  const val = { _class_name: 'A', _bases: ['Object', 'BaseModel'] };
  assert.equal(create(e, 'a', val, { builtin_object_class: 'A' }).status, 200);
  assert.deepEqual(create(e, 'a', val, { set_base_object_class: 'B' }), {
    status: 400,
    body: { reason: "object_class must match val's defined object class: A != B" },
  });
});

test('/obj/read of an unknown object or version is 404 "Obj <id>:<digest> not found"', () => {
  const e = testEngine();
  assert.deepEqual(read(e, 'nope', 'latest'), { status: 404, body: { reason: 'Obj nope:latest not found' } });
  create(e, 'o', 1);
  assert.deepEqual(read(e, 'o', 'v7'), { status: 404, body: { reason: 'Obj o:v7 not found' } });
});

test('/obj/read metadata_only empties val; obj/create needs val (422)', () => {
  const e = testEngine();
  create(e, 'o', { big: 1 });
  const obj = (call(e, '/obj/read', { project_id: P, object_id: 'o', digest: 'latest', metadata_only: true }).body as { obj: Record<string, unknown> }).obj;
  assert.deepEqual(obj.val, {});
  assert.deepEqual(call(e, '/obj/create', { obj: { project_id: P, object_id: 'o' } }), {
    status: 422,
    body: { detail: [{ type: 'missing', loc: ['body', 'obj', 'val'], msg: 'Field required', input: { project_id: P, object_id: 'o' } }] },
  });
});

test('semantics.md#writes-user-id for objects: the sent user id wins over the authenticated one', () => {
  const e = testEngine('wb_');
  call(e, '/obj/create', { obj: { project_id: P, object_id: 'o', val: 1, wb_user_id: 'carol' } }, testContext('bob'));
  const obj = (read(e, 'o', 'latest').body as { obj: Record<string, unknown> }).obj;
  assert.equal(obj.wb_user_id, 'carol');
});

test('semantics.md#writes-obj-type-collision a version of another base class is a 400 that stores nothing; deleted versions and other kinds do not bind', () => {
  const e = testEngine();
  const prompt = { _type: 'StringPrompt', _class_name: 'StringPrompt', _bases: ['Prompt', 'Object', 'BaseModel'], content: 'hi' };
  const dataset = { _type: 'Dataset', _class_name: 'Dataset', _bases: ['Object', 'BaseModel'], rows: 'x' };
  assert.equal(create(e, 'thing', { a: 1 }).status, 200);
  assert.equal(create(e, 'thing', { a: 2 }).status, 200);
  const before = JSON.stringify(e.store.project(P)!.objects.get('thing'));
  assert.deepEqual(create(e, 'thing', prompt), {
    status: 400,
    body: { reason: "Cannot publish 'thing' as a Prompt: that name is already used by a generic (untyped) object in this project. Object versions cannot share types, publish this object under a different name." },
  });
  assert.equal(JSON.stringify(e.store.project(P)!.objects.get('thing')), before, 'the refused version is not stored');
  assert.equal(create(e, 'mixed', dataset).status, 200);
  assert.equal(create(e, 'mixed', { a: 1 }).status, 400);
  assert.equal(create(e, 'other', prompt).status, 200);
  assert.equal(create(e, 'op-named', OP_VAL).status, 200);
  assert.equal(create(e, 'op-named', prompt).status, 200, 'an op and an object are different kinds');
  assert.equal(create(e, 'other', { ...prompt, content: 'again' }).status, 200, 'same class, new version');
});
