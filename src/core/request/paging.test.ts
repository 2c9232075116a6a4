import assert from 'node:assert/strict';
import { test } from 'node:test';
import { errorOf } from '../errors.testing.ts';
import { checkPaging } from './paging.ts';

test('semantics.md#paging-limits: absent or null paging is none; zero and up pass', () => {
  assert.deepEqual(checkPaging({}), { limit: null, offset: null });
  assert.deepEqual(checkPaging({ limit: null, offset: undefined }), { limit: null, offset: null });
  assert.deepEqual(checkPaging({ limit: 0, offset: 7 }), { limit: 0, offset: 7 });
});

test('semantics.md#paging-limits: a negative limit, then a negative offset, is a 400 at its location', () => {
  const l = errorOf(() => checkPaging({ limit: -1, offset: -1 }));
  assert.equal(l.status, 400);
  assert.deepEqual(l.body(), { reason: 'Limit must be a positive integer' });
  assert.deepEqual(l.path, ['body', 'limit']);
  const o = errorOf(() => checkPaging({ limit: 3, offset: -1 }));
  assert.deepEqual(o.body(), { reason: 'Offset must be a positive integer' });
  assert.deepEqual(o.path, ['body', 'offset']);
});
