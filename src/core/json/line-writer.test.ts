import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { JsonLineWriter, jsonStringRoom, NUMBER_ROOM, putBytes, putJsonNumber, putJsonString, utf8 } from './line-writer.ts';

const dec = new TextDecoder();
const written = (f: (w: JsonLineWriter) => void) => {
  const w = new JsonLineWriter();
  f(w);
  return dec.decode(w.take());
};

test('str spells every string as JSON.stringify does (escapes, unicode, lone surrogates), null as null', () => {
  fc.assert(
    fc.property(fc.string({ unit: 'binary' }), fc.string({ unit: 'grapheme-ascii' }), (a, b) => {
      assert.equal(written((w) => w.str(a)), JSON.stringify(a));
      assert.equal(written((w) => w.str(b)), JSON.stringify(b));
    }),
  );
  for (const s of ['', '"', '\\', '\u0000\u001f\u007f', '\ud800', 'é😀', '\u2028']) assert.equal(written((w) => w.str(s)), JSON.stringify(s));
  assert.equal(written((w) => w.str(null)), 'null');
});

test('num spells every number as JSON.stringify does', () => {
  fc.assert(fc.property(fc.oneof(fc.integer(), fc.maxSafeInteger(), fc.double()), (n) => assert.equal(written((w) => w.num(n)), JSON.stringify(n))));
  for (const n of [0, -0, 9, 10, -10, 2 ** 53, 2 ** 53 - 1, -(2 ** 53) + 1, 1e21, NaN, Infinity, 0.1]) assert.equal(written((w) => w.num(n)), JSON.stringify(n), String(n));
  assert.equal(written((w) => w.num(null)), 'null');
});

test('text writes UTF-8 of any text; bytes copies ranges', () => {
  fc.assert(fc.property(fc.string({ unit: 'grapheme' }), (s) => assert.equal(written((w) => w.text(s)), s)));
  const src = utf8('0123456789'.repeat(10));
  assert.equal(written((w) => (w.bytes(src, 3, 5), w.bytes(src, 0, 40))), '34' + '0123456789'.repeat(4));
});

test('chunks hold whole lines; a chunk is cut after the line that reaches the target', () => {
  const w = new JsonLineWriter(10);
  w.text('abcd');
  assert.equal(w.endLine(), false);
  w.text('efgh');
  assert.equal(w.endLine(), true);
  assert.equal(w.lineCount, 2);
  const first = w.take();
  assert.equal(dec.decode(first), 'abcd\nefgh\n');
  assert.equal(w.size, 0);
  // A taken chunk is the taker's: writing on does not touch it.
  w.text('zzzz');
  w.endLine();
  assert.equal(dec.decode(first), 'abcd\nefgh\n');
});

test('a line larger than the buffer grows it for that chunk alone, kept whole', () => {
  const w = new JsonLineWriter(16);
  const big = 'é'.repeat(5000);
  w.text('x');
  w.endLine();
  w.str(big);
  assert.equal(w.endLine(), true);
  assert.equal(dec.decode(w.take()), `x\n${JSON.stringify(big)}\n`);
  w.text('y');
  w.endLine();
  assert.equal(dec.decode(w.take()), 'y\n');
});

test('the positional primitives stay within their stated room, at any position', () => {
  const worst = ['\u0000\u0001\u001f', '\ud800\udfff\ud800', '"\\'.repeat(5), 'é😀\u2028', ''];
  for (const s of worst) {
    const b = new Uint8Array(3 + jsonStringRoom(s));
    const end = putJsonString(b, 3, s);
    assert.ok(end <= b.length, JSON.stringify(s));
    assert.equal(new TextDecoder().decode(b.subarray(3, end)), JSON.stringify(s));
  }
  for (const v of [-2.2250738585072014e-308, -1.7976931348623157e308, Number.MIN_SAFE_INTEGER, -0, 5e-324]) {
    const b = new Uint8Array(2 + NUMBER_ROOM);
    const end = putJsonNumber(b, 2, v);
    assert.equal(new TextDecoder().decode(b.subarray(2, end)), JSON.stringify(v));
  }
  const src = new Uint8Array(100).map((_, i) => i);
  for (const n of [0, 5, 31, 32, 90]) {
    const b = new Uint8Array(n + 1);
    assert.equal(putBytes(b, 1, src, 7, 7 + n), n + 1);
    assert.deepEqual([...b.subarray(1)], [...src.subarray(7, 7 + n)]);
  }
  // A whole array (a constant piece) of 32 bytes and more is set as it is.
  for (const n of [31, 32, 100]) {
    const whole = src.subarray(0, n).slice();
    const b = new Uint8Array(n + 3);
    assert.equal(putBytes(b, 2, whole), n + 2);
    assert.deepEqual([...b.subarray(2, n + 2)], [...whole]);
    assert.equal(b[n + 2], 0);
  }
});

test('advance() past the room that room() made is an error, not a silent loss', () => {
  const w = new JsonLineWriter(16);
  const b = w.room(4);
  let at = w.position;
  for (const c of 'abcd') b[at++] = c.charCodeAt(0);
  w.advance(2);
  w.advance(2); // the rest of the same room
  assert.throws(() => w.advance(1), { name: 'RangeError', message: 'JsonLineWriter: 1 bytes written where room() made 0' });
  w.room(3);
  assert.throws(() => w.advance(4), { name: 'RangeError', message: 'JsonLineWriter: 4 bytes written where room() made 3' });
  w.text('!'); // any other write ends the room
  assert.throws(() => w.advance(1), { name: 'RangeError', message: 'JsonLineWriter: 1 bytes written where room() made none' });
  // A room larger than the buffer grows it, and the whole room may be advanced over.
  const big = w.room(1000);
  big.fill(0x78, w.position, w.position + 1000);
  w.advance(1000);
  w.endLine();
  assert.equal(dec.decode(w.take()), 'abcd!' + 'x'.repeat(1000) + '\n');
});
