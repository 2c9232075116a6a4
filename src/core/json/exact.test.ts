import assert from 'node:assert/strict';
import { test } from 'node:test';
import { exactPlain, holdsLosslessNumber, isUnsafeInteger, parseExact, stringifyExact } from './exact.ts';
import { dumpCompact, fromPlain, LosslessNumber, parseLossless } from './lossless.ts';

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
