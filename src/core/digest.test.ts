import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bytesDigest, fileDigest, isContentDigest, objectDigest, rowDigest, strDigest, tableDigest } from './digest.ts';
import { pyStrRepr } from './json/pyjson.ts';
import { InvalidRequestError } from './errors.ts';
import { parseLossless } from './json/lossless.ts';

const row = (text: string) => rowDigest(parseLossless(text));
const R1 = 'XdhgKMbg1k4iUYb5astpM4ssWXZN95FiEH9cS7NNExA';
const R2 = 'yYx5Sw6mdkkIiKkcgij0CUuX6hWvZQ05ok4gopVBCUU';

test('semantics.md#digest-vectors row {"a": 1}', () => {
  assert.equal(row('{"a":1}'), R1);
});

test('semantics.md#digest-vectors row with unsorted keys and a mixed list digests its sorted text', () => {
  assert.equal(row('{"b":"x","a":[1,2.5,null,true]}'), R2);
  assert.equal(row('{"a":[1,2.5,null,true],"b":"x"}'), R2);
});

test('semantics.md#digest-vectors row with a float 1.0 and non-ASCII keys and values', () => {
  assert.equal(row('{"z":1.0,"é":"ü"}'), 'gm13uEV1UVvDehXvVdv2QvyG7yP7mXv0wRTk81OsZho');
});

test('semantics.md#digest-row: 1 and 1.0 digest differently', () => {
  assert.notEqual(row('{"a":1.0}'), row('{"a":1}'));
});

test('semantics.md#digest-row big ints, 1e100, 0.1, -0.0, 1E2, NaN, 1e-7 (values from Python)', () => {
  assert.equal(
    row('{"big": 123456789012345678901234567890, "f": 1e100, "g": 0.1, "h": -0.0, "i": 1E2, "n": NaN, "k": 1e-7}'),
    'C4vtv2JRp4sQsbTdFYwBJq3BXYP08aYbxXdGeXiNfG8',
  );
});

test('semantics.md#digest-row nested dicts sorted at every level; astral keys after U+E000', () => {
  assert.equal(row('{"😀": 1, "\\ue000": 2, "a": {"b": [1, {"d": 1, "c": 2}]}}'), 'cQbcxTJLY2VSTBXkPSFp6rYOg7rFYtbB86L5KIHWkck');
});

test('semantics.md#digest-vectors table digests: two rows, empty table, a duplicated row (semantics.md#digest-table: hex, not base64)', () => {
  assert.equal(tableDigest([R1, R2]), 'ef58432d13add22b5a18d3888ccc0b83707cda76e23187022a4bc3eb42a8ec78');
  assert.equal(tableDigest([]), 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  assert.equal(tableDigest([R1, R1]), 'b456ba578811beac47ce0abb00ed22c68efaf330751945281cdc08f5db3d826c');
});

test('semantics.md#digest-vectors file digest of "hello"; semantics.md#digest-base shape is 43 alphanumerics', () => {
  const d = fileDigest(new TextEncoder().encode('hello'));
  assert.equal(d, 'LPJNulXwow4m6DsqxbninhsWHlwfp0JecwQzYpOLmCQ');
  assert.equal(bytesDigest(new TextEncoder().encode('hello')), d);
  assert.equal(strDigest('hello'), d);
  assert.ok(isContentDigest(d));
  assert.ok(!isContentDigest('ef58432d13add22b5a18d3888ccc0b83707cda76e23187022a4bc3eb42a8ec78'));
});

test('semantics.md#digest-object object digest of the TS SDK op value (value from Python)', () => {
  const r = objectDigest(parseLossless('{"_type":"CustomWeaveType","weave_type":{"type":"Op"},"files":{"obj.py":"d"},"load_op":"NO_LOAD_OP"}'));
  assert.deepEqual(r, { digest: 'W4Bkch9ppY8F4B8gtIuxuCKS61wesKjnAfpeWp72KPg', baseObjectClass: null, leafObjectClass: null });
});

test('semantics.md#digest-object a Dataset with _bases [Object, BaseModel]: leaf and base class are its _class_name', () => {
  const r = objectDigest(
    parseLossless('{"_type":"Dataset","_class_name":"Dataset","_bases":["Object","BaseModel"],"name":"my dataset","rows":"weave:///e/p/table/abc"}'),
  );
  assert.deepEqual(r, { digest: 'k13nJYwET6vylmiTbSIajg4osSroWNuiKQQQ85vsGAo', baseObjectClass: 'Dataset', leafObjectClass: 'Dataset' });
});

test('semantics.md#digest-object base class is the third-from-last base; a hierarchy not ending in BaseModel has no classes', () => {
  const deep = objectDigest(parseLossless('{"_class_name":"MyModel","_bases":["Model","Object","BaseModel"]}'));
  assert.equal(deep.baseObjectClass, 'Model');
  assert.equal(deep.leafObjectClass, 'MyModel');
  const other = objectDigest(parseLossless('{"_class_name":"X","_bases":["Object","Other"]}'));
  assert.equal(other.baseObjectClass, null);
  assert.equal(objectDigest(parseLossless('[1]')).leafObjectClass, null);
});

test('semantics.md#digest-object builtin_object_class: non-dict, mismatch and unknown class are 400s with Weave wording', () => {
  const reason = (f: () => unknown) => {
    try {
      f();
    } catch (e) {
      assert.ok(e instanceof InvalidRequestError);
      assert.equal(e.status, 400);
      return (e.body() as { reason: string }).reason;
    }
    assert.fail('expected a 400');
  };
  assert.equal(reason(() => objectDigest(parseLossless('1'), 'Leaderboard')), 'object_class cannot be provided for non-dict objects');
  assert.equal(
    reason(() => objectDigest(parseLossless('{"_class_name":"A","_bases":["Object","BaseModel"]}'), 'B')),
    "object_class must match val's defined object class: A != B",
  );
  assert.equal(reason(() => objectDigest(parseLossless('{"a":1}'), 'Leaderboard')), 'Unknown object class: Leaderboard');
  // Matching class: accepted, digest unchanged by the request.
  const v = parseLossless('{"_class_name":"A","_bases":["Object","BaseModel"]}');
  assert.equal(objectDigest(v, 'A').digest, objectDigest(v).digest);
});

test('semantics.md#digest-object CustomWeaveType file keys: absolute or escaping paths are 400 "Invalid file path key"', () => {
  const reasonFor = (files: string) => {
    try {
      objectDigest(parseLossless(`{"x":[{"_type":"CustomWeaveType","files":${files}}]}`));
      return null;
    } catch (e) {
      assert.ok(e instanceof InvalidRequestError);
      return (e.body() as { reason: string }).reason;
    }
  };
  assert.equal(reasonFor('{"/etc/passwd":"d"}'), "Invalid file path key: '/etc/passwd'");
  assert.equal(reasonFor('{"a/../../b":"d"}'), "Invalid file path key: 'a/../../b'");
  assert.equal(reasonFor('{"a/../b":"d","obj.py":"d"}'), null);
  assert.equal(reasonFor('{"..":"d"}'), "Invalid file path key: '..'");
});

test('a _bases hierarchy without _class_name fails as Weave does (a bug, 500)', () => {
  assert.throws(() => objectDigest(parseLossless('{"_bases":["Object","BaseModel"]}')), TypeError);
});

test('pyStrRepr follows Python repr quoting', () => {
  assert.equal(pyStrRepr("it's"), '"it\'s"');
  assert.equal(pyStrRepr('a"b'), "'a\"b'");
  assert.equal(pyStrRepr('x\ny\u0001'), "'x\\ny\\x01'");
  assert.equal(pyStrRepr('é'), "'é'");
});
