import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseLossless } from './lossless.ts';
import { storedObjectText, storedRowText } from './stored-text.ts';

test('semantics.md#writes-number-spelling: stored numbers are json.dumps(json.loads(lexeme)), the plain-decimal fast path included', () => {
  // Lexeme → Python's json.dumps(json.loads(lexeme)), checked with CPython 3.11.
  const python: Array<[string, string]> = [
    ['0.7', '0.7'],
    ['0.0001', '0.0001'],
    ['0.00001', '1e-05'],
    ['1.0', '1.0'],
    ['2.50', '2.5'],
    ['-12.5', '-12.5'],
    ['10000000000000000.0', '1e+16'],
    ['123456789.125', '123456789.125'],
    ['0.30000000000000004', '0.30000000000000004'],
    ['0.1000000000000000055511151231257827', '0.1'],
    ['9999999999999998.5', '9999999999999998.0'],
    ['-0.0', '-0.0'],
    ['-0', '0'],
    ['12345678901234567890', '12345678901234567890'],
  ];
  for (const [lexeme, dumped] of python) assert.equal(storedRowText(parseLossless(`[${lexeme}]`)), `[${dumped}]`, lexeme);
  // Non-finite floats are answered as null; objects are stored with sorted keys.
  assert.equal(storedRowText(parseLossless('{"b":NaN,"a":1e400}')), '{"b":null,"a":null}');
  assert.equal(storedObjectText(parseLossless('{"b":1.0,"a":{"d":2,"c":"é"}}')), '{"a":{"c":"é","d":2},"b":1.0}');
});
