import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LosslessNumber, parseLossless } from './lossless.ts';
import { compareCodePoints, pyDumps, pyNumber, pyString } from './pyjson.ts';
import { pyFloatRepr } from './py-float.ts';

// Expected texts are Python 3.11's json.dumps(json.loads(text)[, sort_keys=True]).
test('semantics.md#digest-row separators and sort_keys at every level', () => {
  const v = parseLossless('{"b":"x","a":[1,2.5,null,true],"c":{"z":1,"y":{}}}');
  assert.equal(pyDumps(v), '{"b": "x", "a": [1, 2.5, null, true], "c": {"z": 1, "y": {}}}');
  assert.equal(pyDumps(v, { sortKeys: true }), '{"a": [1, 2.5, null, true], "b": "x", "c": {"y": {}, "z": 1}}');
});

test('semantics.md#digest-row ensure_ascii: non-ASCII as lowercase \\u escapes, astral as surrogate pairs, / not escaped', () => {
  assert.equal(pyString('é/ü'), '"\\u00e9/\\u00fc"');
  assert.equal(pyString('😀'), '"\\ud83d\\ude00"');
  assert.equal(pyString('\b\f\n\r\t"\\'), '"\\b\\f\\n\\r\\t\\"\\\\"');
  assert.equal(pyString('\u0000\u001f\u007f\u2028'), '"\\u0000\\u001f\\u007f\\u2028"');
  // A lone surrogate (legal in JSON text) is written back as its escape.
  assert.equal(pyDumps(parseLossless('"\\ud800x"')), '"\\ud800x"');
});

test('semantics.md#digest-row sort_keys uses code-point order, not UTF-16 order (astral vs U+E000)', () => {
  const v = parseLossless('{"\\ue000": 2, "😀": 1, "a": 0}');
  assert.equal(pyDumps(v, { sortKeys: true }), '{"a": 0, "\\ue000": 2, "\\ud83d\\ude00": 1}');
  assert.ok(compareCodePoints('\ue000', '😀') < 0);
  assert.ok('\ue000' > '😀'); // JS's own order is the other way round
});

test('semantics.md#digest-row ints: any size, canonical spelling', () => {
  assert.equal(pyNumber(new LosslessNumber('123456789012345678901234567890')), '123456789012345678901234567890');
  assert.equal(pyNumber(new LosslessNumber('-0')), '0');
  assert.equal(pyNumber(new LosslessNumber('-123456789012345678901234567890')), '-123456789012345678901234567890');
});

test('semantics.md#digest-row floats as Python repr: 1.0, 1e+100, 0.1, -0.0, 1e-05, 1e+16, 100.0', () => {
  const cases: Array<[string, string]> = [
    ['1.0', '1.0'],
    ['1e100', '1e+100'],
    ['1E100', '1e+100'],
    ['0.1', '0.1'],
    ['-0.0', '-0.0'],
    ['1e-5', '1e-05'],
    ['0.0001', '0.0001'],
    ['1e16', '1e+16'],
    ['1e15', '1000000000000000.0'],
    ['1E2', '100.0'],
    ['1.10', '1.1'],
    ['1e400', 'Infinity'],
    ['-1e400', '-Infinity'],
    ['5e-324', '5e-324'],
    ['1.7976931348623157e308', '1.7976931348623157e+308'],
    ['0.30000000000000004', '0.30000000000000004'],
    ['9007199254740993.0', '9007199254740992.0'],
    ['123e-2', '1.23'],
    ['NaN', 'NaN'],
  ];
  for (const [lexeme, expected] of cases) assert.equal(pyNumber(new LosslessNumber(lexeme)), expected, lexeme);
});

test('pyNumber: the plain-decimal shortcut agrees with pyFloatRepr on random and boundary decimals', () => {
  const lexemes = ['0.0001', '0.00010', '0.000099', '9999999999999999.5', '999999999999999.9', '1000000000000000.0', '0.5', '-0.5', '12.340'];
  let seed = 7;
  const next = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32);
  for (let i = 0; i < 20000; i++) {
    const x = (next() - 0.5) * 10 ** Math.floor(next() * 24 - 6);
    const text = x.toFixed(Math.floor(next() * 20));
    if (/\./.test(text) && !/e/.test(text)) lexemes.push(text);
  }
  for (const lexeme of lexemes) assert.equal(pyNumber(new LosslessNumber(lexeme)), pyFloatRepr(Number(lexeme)), lexeme);
});

test('pyNumber refuses lexemes Python would not read as numbers', () => {
  assert.throws(() => pyNumber(new LosslessNumber('0x10')), TypeError);
});
