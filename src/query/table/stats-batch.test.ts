import assert from 'node:assert/strict';
import { test } from 'node:test';
import { callRoute, grantingContext } from '../../api/call-route.testing.ts';
import { testEngine } from '../../write/writes.testing.ts';

test('one entry per found table, in request order, duplicates rows counted; sizes on request', () => {
  const engine = testEngine();
  const make = (rows: unknown[]) => (callRoute(engine, '/table/create', { table: { project_id: 'e/p', rows } }) as { body: { digest: string } }).body.digest;
  const a = make([{ a: 1 }, { a: 1 }, { b: 'x' }]);
  const b = make([]);
  assert.deepEqual(callRoute(engine, '/table/query_stats_batch', { project_id: 'e/p', digests: [b, 'missing', a, b] }), {
    status: 200,
    body: { tables: [{ count: 0, digest: b, storage_size_bytes: null }, { count: 3, digest: a, storage_size_bytes: null }] },
  });
  const sized = callRoute(engine, '/table/query_stats_batch', { project_id: 'e/p', digests: [a], include_storage_size: true });
  assert.deepEqual(sized, { status: 200, body: { tables: [{ count: 3, digest: a, storage_size_bytes: 2 * '{"a": 1}'.length + '{"b": "x"}'.length }] } });
  assert.deepEqual(callRoute(engine, '/table/query_stats_batch', { project_id: 'e/p' }), { status: 200, body: { tables: [] } });
  assert.deepEqual(callRoute(engine, '/table/query_stats_batch', { project_id: 'e/p', digests: [a] }, grantingContext('bob', ['e/p'])), {
    status: 403,
    body: { reason: "User 'bob' has no access to project 'e/p'" },
  });
});

test('issue 22 §4: include_storage_size on a table made from digests whose rows are not in the project is 200, those rows weighing 0', () => {
  const engine = testEngine();
  const made = callRoute(engine, '/table/create', { table: { project_id: 'e/p', rows: [{ a: 1 }] } }) as { body: { row_digests: string[] } };
  const table = callRoute(engine, '/table/create_from_digests', { project_id: 'e/p', row_digests: [made.body.row_digests[0], 'f'.repeat(64)] }) as { body: { digest: string } };
  assert.deepEqual(callRoute(engine, '/table/query_stats_batch', { project_id: 'e/p', digests: [table.body.digest], include_storage_size: true }), {
    status: 200,
    body: { tables: [{ count: 2, digest: table.body.digest, storage_size_bytes: '{"a": 1}'.length }] },
  });
});
