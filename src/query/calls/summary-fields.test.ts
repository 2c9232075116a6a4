import { test } from 'node:test';
import assert from 'node:assert/strict';
import { COMPUTED_SUMMARY_FIELD_NAMES, COMPUTED_SUMMARY_FIELDS_LISTED, isComputedSummaryField, refNameSegment } from './summary-fields.ts';

test('semantics.md#calls-summary-filter: three computed fields, in response order; the 422 lists them alphabetically', () => {
  assert.deepEqual(COMPUTED_SUMMARY_FIELD_NAMES, ['status', 'latency_ms', 'trace_name']);
  assert.equal(COMPUTED_SUMMARY_FIELDS_LISTED, 'latency_ms, status, trace_name');
});

test('only own names are computed fields', () => {
  for (const name of ['display_name', 'costs', '', 'constructor', '__proto__', 'toString']) assert.equal(isComputedSummaryField(name), false, name);
});

test('refNameSegment: the name part of a ref, empty without a colon', () => {
  assert.equal(refNameSegment('weave:///e/p/op/chat:abc'), 'chat');
  assert.equal(refNameSegment('weave:///e/p/op/chat'), '');
});
