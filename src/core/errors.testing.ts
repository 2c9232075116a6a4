/**
 * Test support: the TqError a call throws (failing the test when it throws nothing, or
 * something else). Used by tests that assert an error's exact status and body.
 */
import assert from 'node:assert/strict';
import { TqError } from './errors.ts';

export function errorOf(fn: () => unknown): TqError {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof TqError, `expected a TqError, got ${String(e)}`);
    return e;
  }
  assert.fail('expected an error');
}
