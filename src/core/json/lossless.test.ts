import assert from 'node:assert/strict';
import { test } from 'node:test';
import { dumpCompact, fromPlain, JsonSyntaxError, LosslessNumber, LosslessObject, parseLossless, toPlain } from './lossless.ts';

/** Each case: text, Python's JSONDecodeError.msg, .pos and str(e) (CPython 3.11). */
const PYTHON_ERRORS: Array<[string, string, number, string]> = [
  ['', 'Expecting value', 0, 'Expecting value: line 1 column 1 (char 0)'],
  ['[1,]', 'Expecting value', 3, 'Expecting value: line 1 column 4 (char 3)'],
  ['{"a" 1}', "Expecting ':' delimiter", 5, "Expecting ':' delimiter: line 1 column 6 (char 5)"],
  ['{a:1}', 'Expecting property name enclosed in double quotes', 1, 'Expecting property name enclosed in double quotes: line 1 column 2 (char 1)'],
  ['[1 2]', "Expecting ',' delimiter", 3, "Expecting ',' delimiter: line 1 column 4 (char 3)"],
  ['"abc', 'Unterminated string starting at', 0, 'Unterminated string starting at: line 1 column 1 (char 0)'],
  ['"a\\x"', 'Invalid \\escape', 2, 'Invalid \\escape: line 1 column 3 (char 2)'],
  ['"\\u12g4"', 'Invalid \\uXXXX escape', 2, 'Invalid \\uXXXX escape: line 1 column 3 (char 2)'],
  ['"a\nb"', 'Invalid control character at', 2, 'Invalid control character at: line 1 column 3 (char 2)'],
  ['[1]x', 'Extra data', 3, 'Extra data: line 1 column 4 (char 3)'],
  ['\ufeff{}', 'Unexpected UTF-8 BOM (decode using utf-8-sig)', 0, 'Unexpected UTF-8 BOM (decode using utf-8-sig): line 1 column 1 (char 0)'],
  ['{"a":1,}', 'Expecting property name enclosed in double quotes', 7, 'Expecting property name enclosed in double quotes: line 1 column 8 (char 7)'],
  ['01', 'Extra data', 1, 'Extra data: line 1 column 2 (char 1)'],
  ['\n\n  [1,\n 2,,]', 'Expecting value', 11, 'Expecting value: line 4 column 4 (char 11)'],
  // Python counts code points: the emoji is one character, two UTF-16 units.
  ['{"😀":1,"x"}', "Expecting ':' delimiter", 10, "Expecting ':' delimiter: line 1 column 11 (char 10)"],
  ['[NaN, nan]', 'Expecting value', 6, 'Expecting value: line 1 column 7 (char 6)'],
];

for (const [text, msg, pos, full] of PYTHON_ERRORS) {
  test(`JsonSyntaxError matches Python json for ${JSON.stringify(text)}: ${msg}`, () => {
    assert.throws(
      () => parseLossless(text),
      (e: unknown) => {
        assert.ok(e instanceof JsonSyntaxError);
        assert.equal(e.msg, msg);
        assert.equal(e.pos, pos);
        assert.equal(e.message, full);
        return true;
      },
    );
  });
}

test('offset is the UTF-16 index while pos counts code points (422 json_invalid uses pos)', () => {
  try {
    parseLossless('{"😀":1,"x"}');
    assert.fail('expected an error');
  } catch (e) {
    assert.ok(e instanceof JsonSyntaxError);
    assert.equal(e.offset, 11);
    assert.equal(e.pos, 10);
  }
});

test('semantics.md#digest-row: number lexemes survive (1 vs 1.0, big ints, exponents)', () => {
  const v = parseLossless('[1, 1.0, 123456789012345678901234567890, 1E2, -0]') as LosslessNumber[];
  assert.deepEqual(v.map((n) => n.lexeme), ['1', '1.0', '123456789012345678901234567890', '1E2', '-0']);
  assert.deepEqual(v.map((n) => n.isInteger), [true, false, true, false, true]);
});

test('Python extras: NaN, Infinity, -Infinity parse as float lexemes', () => {
  const v = parseLossless('[NaN, Infinity, -Infinity]') as LosslessNumber[];
  assert.deepEqual(v.map((n) => n.lexeme), ['NaN', 'Infinity', '-Infinity']);
  assert.deepEqual(toPlain(v as never), [NaN, Infinity, -Infinity]);
});

test('key order is kept as written, integer-like keys included; a duplicate key keeps its first place and last value', () => {
  const o = parseLossless('{"b":1,"2":2,"a":3,"b":4}') as LosslessObject;
  assert.deepEqual(o.entries.map(([k, v]) => [k, String(v)]), [['b', '4'], ['2', '2'], ['a', '3']]);
  assert.equal(dumpCompact(o), '{"b":4,"2":2,"a":3}');
});

test('dumpCompact writes lexemes verbatim and non-finite numbers as null', () => {
  assert.equal(dumpCompact(parseLossless('{"x": [1.0, 1e5, NaN, "é"]}')), '{"x":[1.0,1e5,null,"é"]}');
});

test('fromPlain: safe integers stay integers, other numbers take Python float repr', () => {
  const v = fromPlain({ a: 1, b: 2.5, c: 1e21, d: [true, null] }) as LosslessObject;
  assert.deepEqual(v.entries.map(([k, x]) => [k, x instanceof LosslessNumber ? x.lexeme : x]).slice(0, 3), [
    ['a', '1'],
    ['b', '2.5'],
    ['c', '1e+21'],
  ]);
});

test('deep nesting parses without recursion limits', () => {
  const depth = 20000;
  const v = parseLossless('['.repeat(depth) + ']'.repeat(depth));
  assert.ok(Array.isArray(v));
  assert.equal(dumpCompact(v).length, 2 * depth);
});
