import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MAX_JSON_DEPTH, nestsDeeperThan } from './depth.ts';

const nested = (levels: number): unknown => {
  let v: unknown = 1;
  for (let i = 0; i < levels; i++) v = i % 2 ? [v] : { k: v };
  return v;
};

test('nesting depth is measured without recursion, scalars not counted', () => {
  assert.equal(nestsDeeperThan(1, 0), false);
  assert.equal(nestsDeeperThan({}, 0), true);
  assert.equal(nestsDeeperThan(nested(3), 3), false);
  assert.equal(nestsDeeperThan(nested(4), 3), true);
  assert.equal(nestsDeeperThan({ a: 1, b: [1, 2, { c: null }] }, 3), false);
  assert.equal(nestsDeeperThan(nested(MAX_JSON_DEPTH), MAX_JSON_DEPTH), false);
  assert.equal(nestsDeeperThan(nested(200_000), MAX_JSON_DEPTH), true);
});
