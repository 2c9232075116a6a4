import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LosslessNumber, parseLossless } from '../../core/json/lossless.ts';
import { hasNegativeIndex, isIndexPart, MISSING, readPath, splitFieldPath } from './json-path.ts';

const doc = { l: [10, 20, 30], d: { '0': 'key zero', k: 'v' }, n: new LosslessNumber('12345678901234567890'), nested: [[1, 2], [3, 4]] };

test('semantics.md#calls-json-read: an all-digit part indexes an array and is never an object key', () => {
  assert.equal(readPath(doc, ['l', '0']), 10);
  assert.equal(readPath(doc, ['l', '2']), 30);
  assert.equal(readPath(doc, ['l', '3']), MISSING);
  assert.equal(readPath(doc, ['d', '0']), MISSING, 'the object key "0" is not read');
  assert.equal(readPath(doc, ['d', 'k']), 'v');
  assert.equal(readPath(doc, ['l', 'x']), MISSING, 'a key on an array');
  assert.equal(readPath(doc, ['nested', '1', '0']), 3);
  assert.equal(readPath(doc, ['l', '02']), 30, 'leading zeros: int("02") is 2');
});

test('semantics.md#calls-json-read: a negative index counts from the end', () => {
  assert.equal(readPath(doc, ['l', '-1']), 30);
  assert.equal(readPath(doc, ['l', '-3']), 10);
  assert.equal(readPath(doc, ['l', '-4']), MISSING);
  assert.equal(readPath(doc, ['nested', '-1', '-2']), 3);
  assert.equal(readPath(doc, ['l', '-0']), 10, '-0 is index 0');
  assert.equal(readPath({ '-1': 'x' }, ['-1']), MISSING, 'nor is "-1" an object key');
  assert.equal(readPath({ '-': 'dash' }, ['-']), 'dash', 'a lone dash is a key');
});

test('an exact big integer is a leaf, not an object to walk into', () => {
  assert.equal(readPath(doc, ['n']), doc.n);
  assert.equal(readPath(doc, ['n', 'lexeme']), MISSING);
});

test('splitFieldPath: backslash escapes a dot', () => {
  assert.deepEqual(splitFieldPath('a.b\\.c.d'), ['a', 'b.c', 'd']);
  assert.deepEqual(splitFieldPath('a.-1'), ['a', '-1']);
});

test("'hops' reading: an index is the n-th element of an array or member of an object, negative from the end", () => {
  const lossless = parseLossless('{"d":{"b":1,"0":"zero","a":[5,6]},"l":[1,2]}');
  assert.equal(readPath(lossless, ['d', '1'], 'hops'), 'zero', 'document order: b, 0, a');
  assert.deepEqual(readPath(lossless, ['d', '-1', '-1'], 'hops'), new LosslessNumber('6'));
  assert.equal(readPath(lossless, ['d', '3'], 'hops'), MISSING);
  assert.equal(readPath(lossless, ['d', '0']), MISSING, 'as a value (JSON_VALUE), never an object member');
  assert.equal(readPath(lossless, ['d', 'b']) instanceof LosslessNumber, true, 'keys read from lossless objects');
  assert.equal(readPath(lossless, ['d', 'zz']), MISSING);
  assert.equal(readPath({ x: { k: 'v', j: 'w' } }, ['x', '-1'], 'hops'), 'w', 'plain objects: their key order');
  assert.equal(readPath({ x: {} }, ['x', '0'], 'hops'), MISSING);
});

test('hasNegativeIndex and isIndexPart', () => {
  assert.equal(hasNegativeIndex(['a', '-1']), true);
  assert.equal(hasNegativeIndex(['a', '1', '-x']), false);
  assert.equal(isIndexPart('12'), true);
  assert.equal(isIndexPart('-'), false);
  assert.equal(isIndexPart('1a'), false);
});
