import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LosslessNumber, parseLossless } from '../json/lossless.ts';
import {
  compareStrings,
  containsSubstring,
  hasToken,
  hasTokenCaseInsensitive,
  isValidToken,
  jsonValueString,
  position,
  positionCaseInsensitive,
  pyNumberString,
  pyStrip,
  pyStrRepr,
  toBoolCastOrNull,
  toFloat64OrNull,
  toInt64OrNull,
  toUInt8OrNull,
} from './values.ts';

test('semantics.md#calls-json-read: missing and JSON null read as the empty string, never null', () => {
  assert.equal(jsonValueString(undefined), '');
  assert.equal(jsonValueString(null), '');
});

test('semantics.md#calls-json-read: strings read unquoted, booleans as true/false', () => {
  assert.equal(jsonValueString('hello "x"'), 'hello "x"');
  assert.equal(jsonValueString(''), '');
  assert.equal(jsonValueString(true), 'true');
  assert.equal(jsonValueString(false), 'false');
});

test('semantics.md#calls-json-read: numbers read as Python prints them; an integral float reads as an integer', () => {
  assert.equal(jsonValueString(5), '5');
  assert.equal(jsonValueString(-0), '0');
  assert.equal(jsonValueString(1.5), '1.5');
  assert.equal(jsonValueString(1e-5), '1e-05');
  assert.equal(jsonValueString(0.0001), '0.0001');
  assert.equal(jsonValueString(1e20), '100000000000000000000');
  assert.equal(jsonValueString(1e22), '10000000000000000000000');
  assert.equal(jsonValueString(new LosslessNumber('5.0')), '5');
  assert.equal(jsonValueString(new LosslessNumber('12345678901234567891')), '12345678901234567891');
  assert.equal(jsonValueString(new LosslessNumber('2.50')), '2.5');
  assert.equal(jsonValueString(Infinity), 'inf');
  assert.equal(jsonValueString(NaN), 'nan');
});

test('semantics.md#calls-json-read: objects and arrays read as minified JSON text (Python json.dumps, ASCII)', () => {
  assert.equal(jsonValueString({ a: 1, b: [true, null, 'x'] }), '{"a":1,"b":[true,null,"x"]}');
  assert.equal(jsonValueString([]), '[]');
  assert.equal(jsonValueString({}), '{}');
  assert.equal(jsonValueString({ k: 'é\u{1F600}' }), '{"k":"\\u00e9\\ud83d\\ude00"}');
  assert.equal(jsonValueString({ f: 2.5, g: 1e-7 }), '{"f":2.5,"g":1e-07}');
  // Lossless input keeps key order and number spelling.
  assert.equal(jsonValueString(parseLossless('{"2":1.0,"1":[1]}')), '{"2":1.0,"1":[1]}');
});

test('semantics.md#calls-expr-convert: toInt64OrNull takes the stripped text matching ^[+-]?\\d+$ only', () => {
  assert.equal(toInt64OrNull('42'), 42);
  assert.equal(toInt64OrNull(' -7 '), -7);
  assert.equal(toInt64OrNull('+3'), 3);
  assert.equal(toInt64OrNull('007'), 7);
  assert.equal(toInt64OrNull('\u00a0 12\n'), 12);
  assert.equal(toInt64OrNull('1.5'), null, '"5.5" cast to int is NULL (semantics.md#calls-expr-compare)');
  assert.equal(toInt64OrNull('5.0'), null);
  assert.equal(toInt64OrNull('1e3'), null);
  assert.equal(toInt64OrNull(''), null);
  assert.equal(toInt64OrNull('abc'), null);
  assert.equal(toInt64OrNull('1_000'), null);
  assert.equal(toInt64OrNull('--1'), null);
  assert.equal(toInt64OrNull('\ufeff1'), null, 'U+FEFF is not Python whitespace');
  assert.equal(toInt64OrNull('9223372036854775807'), 9223372036854775807n, 'Int64 max, exact');
  assert.equal(toInt64OrNull('-9223372036854775808'), -9223372036854775808n, 'Int64 min, exact');
  assert.equal(toInt64OrNull('+9007199254740993'), 9007199254740993n);
  assert.equal(toInt64OrNull('9007199254740991'), 9007199254740991, 'safe integers stay numbers');
  assert.equal(toInt64OrNull('9223372036854775808'), null, 'beyond Int64 (semantics.md#calls-json-read)');
  assert.equal(toInt64OrNull('12345678901234567890'), null);
  assert.equal(toInt64OrNull('-9223372036854775809'), null);
});

test('semantics.md#calls-expr-convert: toFloat64OrNull parses what Python float() parses', () => {
  assert.equal(toFloat64OrNull('1.5'), 1.5);
  assert.equal(toFloat64OrNull(' 2 '), 2);
  assert.equal(toFloat64OrNull('1e3'), 1000);
  assert.equal(toFloat64OrNull('.5'), 0.5);
  assert.equal(toFloat64OrNull('5.'), 5);
  assert.equal(toFloat64OrNull('-1E-2'), -0.01);
  assert.equal(toFloat64OrNull('1_000.5'), 1000.5);
  assert.equal(toFloat64OrNull('inf'), Infinity);
  assert.equal(toFloat64OrNull('-Infinity'), -Infinity);
  assert.ok(Number.isNaN(toFloat64OrNull('NaN')!));
  for (const bad of ['', ' ', 'abc', '0x10', '1e', '.', '1__0', '_1', '1_', 'infinit', '1.5.5', 'true']) {
    assert.equal(toFloat64OrNull(bad), null, bad);
  }
});

test('semantics.md#calls-expr-convert: toUInt8OrNull accepts 0..255; the bool cast maps true/false first', () => {
  assert.equal(toUInt8OrNull('0'), 0);
  assert.equal(toUInt8OrNull('255'), 255);
  assert.equal(toUInt8OrNull('256'), null);
  assert.equal(toUInt8OrNull('-1'), null);
  assert.equal(toUInt8OrNull('1.0'), null);
  assert.equal(toBoolCastOrNull('true'), 1);
  assert.equal(toBoolCastOrNull('false'), 0);
  assert.equal(toBoolCastOrNull('2'), 2, '"2" becomes 2 (truthy)');
  assert.equal(toBoolCastOrNull('abc'), null);
  assert.equal(toBoolCastOrNull('True'), null);
});

test('semantics.md#order-code-points: strings compare by code point (UTF-8 bytes), not UTF-16 units', () => {
  assert.equal(compareStrings('\u{1F600}', '\uFF5E'), 1, 'astral after U+FF5E');
  assert.equal(compareStrings('\uFF5E', '\u{1F600}'), -1);
  assert.ok('\u{1F600}' < '\uFF5E', 'JS < gets this wrong');
  assert.equal(compareStrings('a', 'b'), -1);
  assert.equal(compareStrings('b', 'a'), 1);
  assert.equal(compareStrings('ab', 'a'), 1);
  assert.equal(compareStrings('a', 'ab'), -1);
  assert.equal(compareStrings('', ''), 0);
  assert.equal(compareStrings('Z', 'a'), -1, 'byte order, not locale');
  assert.equal(compareStrings('\u{1F600}', '\u{1F601}'), -1);
  assert.equal(compareStrings('é', 'z'), 1);
});

test('semantics.md#calls-expr-contains: position is 1-based in UTF-8 bytes, 0 when absent, 1 for an empty needle', () => {
  assert.equal(position('hello', 'll'), 3);
  assert.equal(position('hello', 'x'), 0);
  assert.equal(position('hello', ''), 1);
  assert.equal(position('', ''), 1);
  assert.equal(position('éa', 'a'), 3);
  assert.equal(position('\u{1F600}a', 'a'), 5);
});

test('semantics.md#calls-expr-contains: positionCaseInsensitive folds ASCII letters only', () => {
  assert.equal(positionCaseInsensitive('Hello World', 'WORLD'), 7);
  assert.equal(positionCaseInsensitive('ÉCOLE', 'école'), 0, 'non-ASCII is compared exactly');
  assert.equal(positionCaseInsensitive('xÉcole', 'École'), 2);
  assert.equal(containsSubstring('Hello', 'hELLO', true), true);
  assert.equal(containsSubstring('Hello', 'hELLO', false), false);
  assert.equal(containsSubstring('abc', '', false), true, 'semantics.md#calls-expr-contains: empty substr matches');
  assert.equal(containsSubstring('', '', true), true);
});

test('$containsToken: hasToken matches whole tokens between ASCII separators', () => {
  assert.equal(hasToken('Hello World', 'World'), true);
  assert.equal(hasToken('Hello World', 'Worl'), false);
  assert.equal(hasToken('abc,def,zzz', 'def'), true);
  assert.equal(hasToken('abcdefzzz', 'def'), false);
  assert.equal(hasToken('defdef def', 'def'), true, 'a later occurrence can be the token');
  assert.equal(hasToken('a_b', 'a'), true, 'underscore separates');
  assert.equal(hasToken('über alles', 'ber'), false, 'non-ASCII characters belong to tokens');
  assert.equal(hasToken('über alles', 'über'), true);
  assert.equal(hasToken('Hello World', 'hello'), false);
  assert.equal(hasToken('Hello World', 'hello', true), true);
  assert.equal(hasTokenCaseInsensitive('Hello World', 'WORLD'), true);
  assert.equal(hasToken('ÉCOLE', 'école', true), false, 'ASCII-only folding');
});

test('$containsToken: a needle with separators is ill-formed; the empty needle needs an empty token', () => {
  assert.equal(isValidToken('abc'), true);
  assert.equal(isValidToken('a b'), false);
  assert.equal(isValidToken('a,b'), false);
  assert.equal(isValidToken(''), true);
  assert.equal(hasToken('a b', 'a b'), false);
  assert.equal(hasToken('', ''), true);
  assert.equal(hasToken('ab', ''), false);
  assert.equal(hasToken('a  b', ''), true);
  assert.equal(hasToken(' a', ''), true);
});

test('Python renderings used by $convert and error messages', () => {
  assert.equal(pyNumberString(3), '3');
  assert.equal(pyNumberString(3.25), '3.25');
  assert.equal(pyNumberString(-Infinity), '-inf');
  assert.equal(pyStrip('\x1c a \x85'), 'a');
  assert.equal(pyStrRepr('abc'), "'abc'");
  assert.equal(pyStrRepr("it's"), '"it\'s"');
  assert.equal(pyStrRepr('a\'b"c'), "'a\\'b\"c'");
  assert.equal(pyStrRepr('tab\there\n\\'), "'tab\\there\\n\\\\'");
  assert.equal(pyStrRepr('\x00\x7f'), "'\\x00\\x7f'");
  assert.equal(pyStrRepr('é\u{1F600}'), "'é\u{1F600}'");
  assert.equal(pyStrRepr('\u00a0\u200b'), "'\\xa0\\u200b'");
});
