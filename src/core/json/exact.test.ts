import assert from 'node:assert/strict';
import { test } from 'node:test';
import { exactPlain, holdsLosslessNumber, isUnsafeInteger, parseExact, parseSpelled, spelledPlain, stringifyExact } from './exact.ts';
import { dumpCompact, fromPlain, LosslessNumber, parseLossless, type LosslessValue } from './lossless.ts';

test('parseExact keeps integers beyond 2^53 as their lexeme, everything else as JSON.parse gives it', () => {
  const v = parseExact('{"big":12345678901234567890,"neg":-98765432109876543210,"safe":9007199254740991,"f":1.5,"s":"12345678901234567890","a":[1,2]}') as Record<string, unknown>;
  assert.ok(v.big instanceof LosslessNumber);
  assert.equal((v.big as LosslessNumber).lexeme, '12345678901234567890');
  assert.equal((v.neg as LosslessNumber).lexeme, '-98765432109876543210');
  assert.equal(v.safe, 9007199254740991);
  assert.equal(v.f, 1.5);
  assert.equal(v.s, '12345678901234567890');
  assert.deepEqual(v.a, [1, 2]);
  // Without a 16-digit run, the fast path: exactly JSON.parse.
  assert.deepEqual(parseExact('{"x":[1,2.5,"a"],"y":null}'), { x: [1, 2.5, 'a'], y: null });
  // A long float is a float: no lexeme kept.
  assert.equal((parseExact('[0.12345678901234567]') as unknown[])[0], 0.12345678901234567);
  assert.throws(() => parseExact('{"x":1234567890123456789'), /Expecting ',' delimiter/);
});

test('isUnsafeInteger: only integer lexemes a double rounds', () => {
  assert.equal(isUnsafeInteger(new LosslessNumber('9007199254740993')), true);
  assert.equal(isUnsafeInteger(new LosslessNumber('9007199254740991')), false);
  assert.equal(isUnsafeInteger(new LosslessNumber('1e30')), false);
  assert.equal(isUnsafeInteger(new LosslessNumber('12345678901234567890.0')), false);
});

test('stringifyExact writes lexemes back; plain values go through JSON.stringify', () => {
  const text = '{"a":{"b":[12345678901234567890,1.5,"x"]},"c":true}';
  assert.equal(stringifyExact(parseExact(text)), text);
  assert.equal(stringifyExact({ a: [1, 'b', null] }), '{"a":[1,"b",null]}');
  assert.equal(stringifyExact(exactPlain(parseLossless('[-12345678901234567890]'))), '[-12345678901234567890]');
  assert.equal(holdsLosslessNumber({ a: [{ b: 1 }] }), false);
  assert.equal(holdsLosslessNumber([[new LosslessNumber('1')]]), true);
});

test('a stray JSON.stringify of a LosslessNumber writes the nearest number, and fromPlain keeps the lexeme', () => {
  assert.equal(JSON.stringify({ n: new LosslessNumber('12345678901234567890') }), '{"n":12345678901234567000}');
  assert.equal(JSON.stringify([new LosslessNumber('NaN')]), '[null]');
  assert.equal(dumpCompact(fromPlain({ n: new LosslessNumber('12345678901234567890') })), '{"n":12345678901234567890}');
});

test('spelledPlain: safe integers are numbers; floats and big integers LosslessNumbers of Python\'s spelling; stringifyExact writes them back', () => {
  const plain = spelledPlain(parseLossless('{"i":-0,"f":1.0,"e":1E2,"s":1e-5,"n":-0.0,"big":12345678901234567890,"x":NaN,"h":1e400,"k":[2.50]}')) as Record<string, unknown>;
  assert.equal(plain.i, -0);
  assert.ok(plain.f instanceof LosslessNumber && plain.f.lexeme === '1.0');
  assert.ok(plain.e instanceof LosslessNumber && plain.e.lexeme === '100.0');
  assert.ok(plain.h instanceof LosslessNumber && plain.h.lexeme === 'Infinity');
  assert.equal(stringifyExact(plain), '{"i":0,"f":1.0,"e":100.0,"s":1e-05,"n":-0.0,"big":12345678901234567890,"x":null,"h":null,"k":[2.5]}');
  assert.equal(stringifyExact(parseSpelled('[1.0,{"a":7}]')), '[1.0,{"a":7}]');
});

test('origins: toPlain records each container\'s lossless original, and fromPlain writes an unchanged one back as it was', () => {
  const origins = new Map<object, LosslessValue>();
  const lossless = parseLossless('{"kept":{"b":1.0,"2":2},"rebuilt":{"z":1.0}}');
  const plain = spelledPlain(lossless, origins) as Record<string, Record<string, unknown>>;
  // JS moves "2" first in the plain object; the original keeps the order sent.
  assert.deepEqual(Object.keys(plain.kept), ['2', 'b']);
  const rebuilt = { ...plain.rebuilt, added: 3 };
  assert.equal(dumpCompact(fromPlain({ kept: plain.kept, rebuilt }, origins)), '{"kept":{"b":1.0,"2":2},"rebuilt":{"z":1.0,"added":3}}');
  assert.equal(origins.get(plain), lossless);
});
