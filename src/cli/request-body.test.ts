import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LosslessObject } from '../core/json/lossless.ts';
import { UsageError } from './common.ts';
import { composeRequest, integer, parseJsonFlag, setTo, sortTerms, strings, type FieldEdit } from './request-body.ts';

const edits = (...pairs: Array<[string, FieldEdit]>) => new Map(pairs);

test('without edits, --request text passes through untouched (the route parses it, once)', () => {
  const text = '{ "project_id": "e/p", "query": {"$expr": {"$gt": [{"$getField": "inputs.n"}, {"$literal": 5.0}]}} }';
  assert.equal(composeRequest(text, edits()), text);
  assert.equal(composeRequest('not json', edits()), 'not json', 'the route reports it (422), not the CLI');
  assert.equal(composeRequest(undefined, edits()), '{}');
});

test('edits keep every lexeme of the text and of flag values', () => {
  const text = '{"project_id":"x/y","limit":10,"query":{"$expr":{"$eq":[{"$getField":"inputs.n"},{"$literal":5.0}]}},"big":12345678901234567890,"nan":NaN}';
  const out = composeRequest(text, edits(['project_id', setTo('e/p')], ['offset', setTo(integer(3))]));
  assert.equal(out, '{"project_id":"e/p","limit":10,"query":{"$expr":{"$eq":[{"$getField":"inputs.n"},{"$literal":5.0}]}},"big":12345678901234567890,"nan":NaN,"offset":3}');
  const q = parseJsonFlag('--query-json', '{"$literal": 1.50}');
  assert.equal(composeRequest(undefined, edits(['query', setTo(q)])), '{"query":{"$literal":1.50}}');
});

test('an edit sees the current value (threads filters merge)', () => {
  const merged = composeRequest('{"filter":{"thread_ids":["a"],"x":1}}', edits(['filter', (cur) => new LosslessObject([...(cur as LosslessObject).entries.filter(([k]) => k !== 'thread_ids'), ['thread_ids', strings(['b'])]])]));
  assert.equal(merged, '{"filter":{"x":1,"thread_ids":["b"]}}');
  assert.equal(composeRequest(undefined, edits(['sort_by', setTo(sortTerms([{ field: 'a', direction: 'desc' }]))])), '{"sort_by":[{"field":"a","direction":"desc"}]}');
});

test('bad JSON in a flag, or a --request that is no object when flags edit it, is a usage error naming it', () => {
  assert.throws(() => parseJsonFlag('--filter-json', '{"a":'), (e: unknown) => e instanceof UsageError && /^--filter-json is not valid JSON: /.test(e.message));
  assert.throws(() => composeRequest('[1]', edits(['limit', setTo(integer(1))])), (e: unknown) => e instanceof UsageError && e.message === '--request must hold a JSON object');
  assert.throws(() => composeRequest('{"a":', edits(['limit', setTo(integer(1))])), /--request is not valid JSON/);
});
