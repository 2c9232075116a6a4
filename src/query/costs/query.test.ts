import assert from 'node:assert/strict';
import { test } from 'node:test';
import { callRoute, grantingContext } from '../../api/call-route.testing.ts';
import { createCosts } from '../../write/costs.ts';
import { testEngine } from '../../write/writes.testing.ts';

function engineWithPrices() {
  const engine = testEngine();
  const cost = (prompt: number) => ({ prompt_token_cost: prompt, completion_token_cost: 2 * prompt });
  callRoute(engine, '/cost/create', { project_id: 'e/p', costs: { 'gpt-4o': cost(1), 'claude': { ...cost(3), provider_id: 'anthropic', effective_date: '2024-01-01T00:00:00Z' } } });
  callRoute(engine, '/cost/create', { project_id: 'e/other', costs: { 'gpt-4o': cost(5) } });
  createCosts(engine, 'e/p', { 'gpt-4o': cost(9) }, 'fixtures', 0, 'default');
  return engine;
}

test('cost/query: the project\'s own prices as CostQueryOutput, fields, query, sort, paging', () => {
  const engine = engineWithPrices();
  assert.deepEqual(callRoute(engine, '/cost/query', { project_id: 'e/p', sort_by: [{ field: 'prompt_token_cost', direction: 'desc' }] }), {
    status: 200,
    body: {
      results: [
        { id: 'id-2', llm_id: 'claude', prompt_token_cost: 3, completion_token_cost: 6, prompt_token_cost_unit: 'USD', completion_token_cost_unit: 'USD', effective_date: '2024-01-01T00:00:00Z', provider_id: 'anthropic' },
        { id: 'id-1', llm_id: 'gpt-4o', prompt_token_cost: 1, completion_token_cost: 2, prompt_token_cost_unit: 'USD', completion_token_cost_unit: 'USD', effective_date: '2024-06-01T12:00:00Z', provider_id: 'default' },
      ],
    },
  });
  const only = callRoute(engine, '/cost/query', { project_id: 'e/p', fields: ['llm_id', 'created_by'], query: { $expr: { $eq: [{ $getField: 'llm_id' }, { $literal: 'gpt-4o' }] } } });
  assert.deepEqual(only, {
    status: 200,
    body: { results: [{ id: null, llm_id: 'gpt-4o', prompt_token_cost: null, completion_token_cost: null, prompt_token_cost_unit: null, completion_token_cost_unit: null, effective_date: null, provider_id: null }] },
  });
  // A query never reaches another project's prices (production would;
  // semantics.md#auth-grants-refs).
  const everything = callRoute(engine, '/cost/query', { project_id: 'e/p', fields: ['id'], query: { $expr: { $gt: [{ $getField: 'prompt_token_cost' }, { $literal: 0 }] } } });
  assert.deepEqual((everything as { body: { results: Array<{ id: string }> } }).body.results.map((r) => r.id), ['id-1', 'id-2']);
  assert.deepEqual(callRoute(engine, '/cost/query', { project_id: 'e/p', limit: 1, offset: 1, fields: ['llm_id'] }), {
    status: 200,
    body: { results: [{ id: null, llm_id: 'claude', prompt_token_cost: null, completion_token_cost: null, prompt_token_cost_unit: null, completion_token_cost_unit: null, effective_date: null, provider_id: null }] },
  });
  assert.deepEqual(callRoute(engine, '/cost/query', { project_id: 'e/p', fields: ['price'] }), { status: 400, body: { reason: 'Unknown field: price' } });
  assert.deepEqual(callRoute(engine, '/cost/query', { project_id: 'e/p' }, grantingContext('bob', ['e/p'])), {
    status: 403,
    body: { reason: "User 'bob' has no access to project 'e/p'" },
  });
});

test('cost/purge removes the project\'s prices named by id; other shapes are 400s', () => {
  const engine = engineWithPrices();
  const purge = (expr: unknown, project = 'e/p') => callRoute(engine, '/cost/purge', { project_id: project, query: { $expr: expr } });
  const ids = (project: string) => (callRoute(engine, '/cost/query', { project_id: project, fields: ['id'] }) as { body: { results: Array<{ id: string }> } }).body.results.map((r) => r.id);
  assert.deepEqual(purge({ $in: [{ $getField: 'id' }, [{ $literal: 'id-1' }, { $literal: 'id-3' }]] }), { status: 200, body: {} });
  assert.deepEqual(ids('e/p'), ['id-2']);
  assert.deepEqual(ids('e/other'), ['id-3'], 'another project\'s price is not purged through this one');
  assert.equal(engine.store.prices.filter((p) => p.pricing_level === 'default').length, 1);
  assert.deepEqual(purge({ $eq: [{ $getField: 'llm_id' }, { $literal: 'claude' }] }), { status: 400, body: { reason: 'Can only purge costs by specifying one or more cost ids' } });
  assert.deepEqual(purge({ $eq: [{ $getField: 'id' }, { $literal: 'id-2' }] }), { status: 200, body: {} });
  assert.deepEqual(ids('e/p'), []);
});
