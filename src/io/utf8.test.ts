import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hasBom, invalidUtf8Offset } from './utf8.ts';

test('invalidUtf8Offset finds the first bad byte of a range, -1 for valid text', () => {
  const b = (...parts: Array<string | number[]>) => Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : Buffer.from(p))));
  assert.equal(invalidUtf8Offset(b('héllo 😀 ok'), 0, b('héllo 😀 ok').length), -1);
  assert.equal(invalidUtf8Offset(b('ab', [0xff], 'c'), 0, 4), 2);
  assert.equal(invalidUtf8Offset(b('ab', [0xc3]), 0, 3), 2, 'truncated sequence');
  assert.equal(invalidUtf8Offset(b('a', [0xc0, 0xaf]), 0, 3), 1, 'overlong');
  assert.equal(invalidUtf8Offset(b('a', [0xe0, 0x80, 0xaf]), 0, 4), 1, 'overlong 3-byte');
  assert.equal(invalidUtf8Offset(b('a', [0xed, 0xa0, 0x80]), 0, 4), 1, 'surrogate');
  assert.equal(invalidUtf8Offset(b('a', [0xf4, 0x90, 0x80, 0x80]), 0, 5), 1, 'past U+10FFFF');
  assert.equal(invalidUtf8Offset(b('a', [0xe2, 0x82, 0x41]), 0, 4), 1, 'bad continuation');
  assert.equal(invalidUtf8Offset(b('xx', 'é', [0x80]), 2, 5), 2, 'offset counts from start');
  assert.equal(hasBom(b([0xef, 0xbb, 0xbf], '{}'), 0, 5), true);
  assert.equal(hasBom(b('{}'), 0, 2), false);
});
