import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RequestSchemaError } from '../core/errors.ts';
import { withCanonicalQuery } from './fuzz.ts';

const f = (path: string) => ({ $getField: path });
const l = (v: unknown) => ({ $literal: v });

test('a shrunk calls request shows its query as the engine read it: $ spellings, defaults written', () => {
  const request = {
    path: '/calls/stream_query',
    body: { project_id: '{{project}}', query: { expr_: { and_: [{ contains_: { input: f('op_name'), substr: l('a') } }, { $not: [{ eq_: [f('inputs.x'), l(2.5)] }] }] } }, limit: 3 },
  };
  assert.deepEqual(withCanonicalQuery(request), {
    path: '/calls/stream_query',
    body: {
      project_id: '{{project}}',
      query: { $expr: { $and: [{ $contains: { input: f('op_name'), substr: l('a'), case_insensitive: false } }, { $not: [{ $eq: [f('inputs.x'), l(2.5)] }] }] } },
      limit: 3,
    },
  });
});

test('a canonical query comes back equal; requests without a query, or on other routes, are kept as they are', () => {
  const canonical = { path: '/calls/stream_query', body: { project_id: 'p', query: { $expr: { $in: [f('id'), [l('a'), l(1)]] } } } };
  assert.deepEqual(withCanonicalQuery(canonical), canonical);
  const noQuery = { path: '/calls/stream_query', body: { project_id: 'p' } };
  assert.equal(withCanonicalQuery(noQuery), noQuery);
  const threads = { path: '/threads/stream_query', body: { project_id: 'p', query: 'anything' } };
  assert.equal(withCanonicalQuery(threads), threads);
});

test('a query the engine would reject is reported, not printed wrong', () => {
  assert.throws(() => withCanonicalQuery({ path: '/calls/stream_query', body: { query: { $expr: { $nope: [] } } } }), RequestSchemaError);
});
