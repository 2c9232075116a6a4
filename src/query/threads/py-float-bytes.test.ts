import assert from 'node:assert/strict';
import { test } from 'node:test';
import { JsonLineWriter } from '../../core/json/line-writer.ts';
import { pyFloatRepr } from '../../core/json/py-float.ts';
import { writePyFloat } from './py-float-bytes.ts';

const decoder = new TextDecoder();

function written(v: number): string {
  const w = new JsonLineWriter();
  writePyFloat(w, v);
  return decoder.decode(w.take());
}

/** A deterministic stream of doubles (xorshift), so a failure can be replayed. */
function* randomDoubles(n: number, seed: number): Generator<number> {
  let s = seed >>> 0 || 1;
  const next = () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s;
  };
  const bits = new DataView(new ArrayBuffer(8));
  for (let i = 0; i < n; i++) {
    // Any bit pattern: every exponent, subnormals, NaNs and infinities.
    bits.setUint32(0, next());
    bits.setUint32(4, next());
    yield bits.getFloat64(0);
    // Whole and half milliseconds, and interpolations between them (what percentiles give).
    const whole = next() % 10_000_000;
    yield whole;
    yield -whole;
    yield whole + 0.5;
    yield whole + (next() % 1000) / 1000;
    yield whole + (next() % 100) * 0.01;
    yield (next() / 2 ** 32) * 10 ** ((next() % 40) - 20);
  }
}

const EDGES = [
  0, -0, NaN, Infinity, -Infinity, 1, -1, 0.5, 1e-4, -1e-4, 9.999999999999999e-5, 1.0000000000000002e-4,
  1e16, -1e16, 1e16 - 2, 9007199254740991, 9007199254740992, 9007199254740994, 2 ** 53 + 2, 1e15 + 0.5,
  1e21, 1e-7, 1.5e-7, 5e-324, Number.MAX_VALUE, Number.MIN_VALUE, 0.1 + 0.2, 1234.5600000000002, 100, 150,
];

test('writePyFloat spells every value exactly as pyFloatRepr', () => {
  for (const v of EDGES) assert.equal(written(v), pyFloatRepr(v), `value ${v}`);
  let checked = 0;
  for (const v of randomDoubles(30_000, 12345)) {
    const want = pyFloatRepr(v);
    if (written(v) !== want) assert.fail(`writePyFloat(${v}) wrote ${written(v)}, pyFloatRepr says ${want}`);
    checked++;
  }
  assert.equal(checked, 210_000);
});

test('writePyFloat keeps the fast path to the range where JS and Python agree', () => {
  assert.equal(written(150), '150.0');
  assert.equal(written(-2.5), '-2.5');
  assert.equal(written(1e16), '1e+16');
  assert.equal(written(0.00001), '1e-05');
  assert.equal(written(-0), '-0.0');
});
