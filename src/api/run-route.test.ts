import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TqError } from '../core/errors.ts';
import { createEngine } from '../engine.ts';
import { callsStreamQueryRoute } from '../query/calls/run.ts';
import { runRoute } from './run-route.ts';

test('a query nested deeper than the stack allows is a 400, not a crash', () => {
  let expr = '{"$eq":[{"$getField":"op_name"},{"$literal":"x"}]}';
  for (let i = 0; i < 50_000; i++) expr = `{"$not":[${expr}]}`;
  const text = `{"project_id":"e/p","query":{"$expr":${expr}}}`;
  assert.throws(
    () => runRoute(callsStreamQueryRoute, createEngine(), { kind: 'text', text }, { userId: 'u', authorize() {}, canRead: () => true }),
    (e: unknown) => e instanceof TqError && e.status === 400 && JSON.stringify(e.body()) === '{"reason":"Request is nested too deeply"}',
  );
});

test('other errors pass through unchanged', () => {
  assert.throws(
    () => runRoute(callsStreamQueryRoute, createEngine(), { kind: 'value', value: { project_id: 'e/p', limit: -1 } }, { userId: 'u', authorize() {}, canRead: () => true }),
    (e: unknown) => e instanceof TqError && e.code === 'TQ_NEGATIVE_LIMIT',
  );
});
