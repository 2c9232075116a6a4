import { test } from 'node:test';
import assert from 'node:assert/strict';
import { textDepthExceeded, valueDepthExceeded } from './depth.ts';

test('textDepthExceeded: the offset of the first bracket past the bound; strings and escapes skipped', () => {
  assert.equal(textDepthExceeded('[[1]]', 2), -1);
  assert.equal(textDepthExceeded('[[[1]]]', 2), 2);
  assert.equal(textDepthExceeded('{"a":{"b":[1]}}', 2), 10);
  assert.equal(textDepthExceeded('["[[[[", "\\\\", "\\"[[[", [1]]', 2), -1);
  assert.equal(textDepthExceeded('["\\\\", [[1]]]', 2), 8);
  assert.equal(textDepthExceeded('[[], [], [[]]]', 2), 10);
  // Not JSON: closers without openers do not go negative; an unterminated string ends the scan.
  assert.equal(textDepthExceeded(']]][[[', 2), 5);
  assert.equal(textDepthExceeded('["abc [[[[', 2), -1);
});

test('valueDepthExceeded counts arrays and objects, not scalars', () => {
  assert.equal(valueDepthExceeded([[1]], 2), false);
  assert.equal(valueDepthExceeded([[[1]]], 2), true);
  assert.equal(valueDepthExceeded({ a: [{}] }, 2), true);
  assert.equal(valueDepthExceeded({ a: 'x', b: [1, 2], c: null }, 2), false);
});
