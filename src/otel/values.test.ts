import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { LosslessNumber } from '../core/json/lossless.ts';
import type { KeyValue } from './model.ts';
import { AttributePathConflict, convertNumericKeysInPlace, getAttribute, pythonFloatRepr, toJson, truthy, tryParseInt, unflattenKeyValues, type PyDict } from './values.ts';

const kv = (key: string, value: KeyValue['value']): KeyValue => ({ key, value });
const str = (v: string) => ({ t: 'string' as const, v });
const int = (v: number) => ({ t: 'int' as const, v: BigInt(v) });

describe('the attribute tree (semantics.md#otel-attribute-tree)', () => {
  it('nests dotted keys, reads JSON strings as JSON, keeps other strings', () => {
    const tree = unflattenKeyValues([kv('a.b.c', str('x')), kv('a.b.d', int(2)), kv('j', str('{"k": [1, 2.5]}')), kv('notjson', str('{oops')), kv('plain', str('[')) ], 'attributes');
    assert.deepEqual(toJson(tree), { a: { b: { c: 'x', d: 2 } }, j: { k: [1, new LosslessNumber('2.5')] }, notjson: '{oops', plain: '[' });
  });

  it('refuses a key below a non-object, and an object replaced by a non-object, in production\'s words', () => {
    assert.throws(() => unflattenKeyValues([kv('a', int(1)), kv('a.b', int(2))], 'attributes'), AttributePathConflict);
    assert.throws(() => unflattenKeyValues([kv('a', int(1)), kv('a.b', int(2))], 'x'), {
      message: "Invalid attribute structure: cannot set subkey 'b' under parent key 'a' because it is already a int. Attributes must form a valid tree structure.",
    });
    assert.throws(() => unflattenKeyValues([kv('a.b', int(1)), kv('a', str('s'))], 'x'), {
      message:
        "Invalid attribute structure: key 'a' already has nested values, but a non-object value was also provided. Do not send both 'a' and 'a.*' keys. Either: (1) remove the primitive 'a', (2) move it under a different name (e.g. 'a_value'), or (3) represent it as a field, e.g. 'a.value'.",
    });
    assert.throws(() => unflattenKeyValues([kv('x.a.b', int(1)), kv('x.a', str('s'))], 'x'), {
      message:
        "Invalid attribute structure: received both nested subkeys for 'x.a' and a non-object value for the same key. Do not send both 'x.a' and 'x.a.*'. Either keep only nested keys or use a different key for the primitive (e.g. 'x.a_value').",
    });
    // An object may replace an object, and a JSON-string list counts as a mapping.
    assert.deepEqual(toJson(unflattenKeyValues([kv('a.b', int(1)), kv('a', str('{"c": 2}'))], 'x')), { a: { c: 2 } });
    assert.throws(() => unflattenKeyValues([kv('a', str('[1]')), kv('a.b', int(2))], 'x'), { message: /already a list/ });
  });

  it('keeps hostile keys as plain data', () => {
    const tree = unflattenKeyValues([kv('__proto__.polluted', str('yes')), kv('constructor', str('c'))], 'x');
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    assert.deepEqual(JSON.parse(JSON.stringify(toJson(tree))), JSON.parse('{"__proto__":{"polluted":"yes"},"constructor":"c"}'));
  });

  it('an AnyValue with no value fails the export, naming the attribute', () => {
    assert.throws(() => unflattenKeyValues([kv('ok', str('x')), kv('bad', { t: 'none' })], 'spans[0].attributes'), { message: 'spans[0].attributes[1].value: AnyValue has no value set' });
  });
});

describe('production\'s value helpers', () => {
  it('truthy is Python\'s', () => {
    assert.deepEqual([null, false, '', 0n, 0, [], {}, new Uint8Array()].map(truthy), [false, false, false, false, false, false, false, false]);
    assert.deepEqual([true, 'x', 1n, NaN, [0], { a: null }].map(truthy), [true, true, true, true, true, true]);
  });

  it('try_parse_int reads what int() reads and keeps the rest', () => {
    assert.deepEqual([' 12 ', '1_000', '+5', 2.9, -2.9, true, '12.5', 'x', NaN].map(tryParseInt), [12n, 1000n, 5n, 2n, -2n, 1n, '12.5', 'x', NaN]);
  });

  it('get_attribute: the flat key first, then the path, lists indexed by digits', () => {
    const d: PyDict = { 'a.b': 'flat', a: { b: 'nested', l: ['x', 'y'] } };
    assert.equal(getAttribute(d, 'a.b'), 'flat');
    assert.equal(getAttribute(d, 'a.l.1'), 'y');
    assert.equal(getAttribute(d, 'a.l.5'), null);
    assert.equal(getAttribute(d, 'a.zz'), undefined);
  });

  it('numeric-key dicts become lists in place; {} becomes []; "00" stops half-way', () => {
    const inner = { '0': 'a', '1': { '0': 'b' } };
    const d: PyDict = { p: inner, e: {}, gap: { '0': 'x', '2': 'y' } };
    convertNumericKeysInPlace(d);
    assert.deepEqual(d, { p: ['a', ['b']], e: [], gap: { '0': 'x', '2': 'y' } });
    assert.deepEqual(inner['1'], ['b'], 'the shared child was converted where it lives');
    const odd: PyDict = { v: { x: { '0': 1 }, '00': 2 } };
    convertNumericKeysInPlace(odd);
    assert.deepEqual(odd, { v: { x: [1], '00': 2 } });
  });

  it('floats are spelled as Python repr, NaN and infinities as str(), bytes as base64, big ints exactly', () => {
    assert.deepEqual([1, 1.5, 1e16, 1.5e-7, 1e15, 0.0001, 1e-5, -0, 123456.789].map(pythonFloatRepr), ['1.0', '1.5', '1e+16', '1.5e-07', '1000000000000000.0', '0.0001', '1e-05', '-0.0', '123456.789']);
    assert.deepEqual(toJson([NaN, Infinity, -Infinity, new Uint8Array([0, 255]), 2n ** 63n - 1n, 7n]), ['nan', 'inf', '-inf', 'AP8=', new LosslessNumber('9223372036854775807'), 7]);
  });
});
