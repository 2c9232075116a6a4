import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pyFloatRepr } from './py-float.ts';

test('pyFloatRepr on plain JS numbers', () => {
  assert.equal(pyFloatRepr(NaN), 'NaN');
  assert.equal(pyFloatRepr(-Infinity), '-Infinity');
  assert.equal(pyFloatRepr(100), '100.0');
  assert.equal(pyFloatRepr(1e-5), '1e-05');
  assert.equal(pyFloatRepr(0.001), '0.001');
  assert.equal(pyFloatRepr(2.5), '2.5');
  assert.equal(pyFloatRepr(1e21), '1e+21');
  assert.equal(pyFloatRepr(1.5e-7), '1.5e-07');
  assert.equal(pyFloatRepr(123456789.123456789), '123456789.12345679');
  assert.equal(pyFloatRepr(-0), '-0.0');
  assert.equal(pyFloatRepr(Number.MIN_VALUE), '5e-324');
});
