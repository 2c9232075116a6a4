import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isTextSortField, isThreadSortField, THREAD_SORT_FIELD_NAMES, THREAD_SORT_FIELDS_REPR } from './sort-fields.ts';

const SIX = ['thread_id', 'turn_count', 'start_time', 'last_updated', 'p50_turn_duration_ms', 'p99_turn_duration_ms'];

test('semantics.md#threads-sort: the six sortable fields, in the order the 400 message lists them', () => {
  assert.deepEqual(THREAD_SORT_FIELD_NAMES, SIX);
  assert.equal(THREAD_SORT_FIELDS_REPR, "['thread_id', 'turn_count', 'start_time', 'last_updated', 'p50_turn_duration_ms', 'p99_turn_duration_ms']");
});

test('semantics.md#threads-sort: other names, prototype keys included, are not sort fields', () => {
  for (const f of SIX) assert.equal(isThreadSortField(f), true, f);
  for (const f of ['first_turn_id', 'last_turn_id', '', '__proto__', 'constructor', 'toString', 'THREAD_ID']) assert.equal(isThreadSortField(f), false, f);
});

test('thread_id alone compares as text', () => {
  assert.deepEqual(THREAD_SORT_FIELD_NAMES.filter(isTextSortField), ['thread_id']);
});
