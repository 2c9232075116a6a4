import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Engine } from '../api/types.ts';
import { createEngine } from '../engine.ts';
import { dropQueryCaches } from './caches.ts';
import { pathMemos } from './calls/path-memo.ts';
import { candidatePositions, tableCaches } from './table/run.ts';
import { tableQueryStreamRoute } from './table/route.ts';
import { callsStreamQueryRoute } from './calls/route.ts';
import { BUNDLED_FIXTURES, loadFixtures } from '../io/load-fixtures.ts';

const ctx = { userId: 'u', authorize() {}, canRead: () => true };

async function loaded(): Promise<Engine> {
  const engine = createEngine();
  await loadFixtures(engine, BUNDLED_FIXTURES);
  return engine;
}

const lines = (engine: Engine, body: unknown, route = callsStreamQueryRoute) => {
  const res = route.run(engine, { kind: 'value', value: structuredClone(body) }, ctx);
  assert.equal(res.kind, 'stream');
  return [...(res as { lines: Iterable<string> }).lines];
};

const sorted = { project_id: 'acme/support-bot', sort_by: [{ field: 'inputs.question', direction: 'asc' }], limit: 5, include_storage_size: true, include_total_storage_size: true };

test('dropQueryCaches: table positions and path memos are recomputed afterwards, and answers stay the same', async () => {
  const engine = await loaded();
  const project = engine.store.project('acme/evals')!;
  const [digests] = [...project.tables.values()];
  const caches = tableCaches(engine.store);
  const before = candidatePositions(caches, digests, project.rows, null);
  assert.equal(candidatePositions(caches, digests, project.rows, null), before);
  const warm = lines(engine, sorted);
  const calls = engine.store.project('acme/support-bot')!.calls;
  assert.deepEqual(pathMemos(engine.store).paths(calls), ['inputs.question']);
  dropQueryCaches(engine.store);
  assert.deepEqual(pathMemos(engine.store).paths(calls), []);
  const after = candidatePositions(caches, digests, project.rows, null);
  assert.notEqual(after, before);
  assert.deepEqual([...after], [...before]);
  assert.deepEqual(lines(engine, sorted), warm);
  assert.equal(warm.length, 5);
});

test('derived caches are per engine, reported by name with their bytes, and emptied per store', async () => {
  const a = await loaded();
  const b = await loaded();
  lines(a, sorted);
  const table = [...a.store.project('acme/evals')!.tables.keys()][0];
  lines(a, { project_id: 'acme/evals', digest: table, sort_by: [{ field: 'id', order: 'desc' }] }, tableQueryStreamRoute);
  const report = a.store.derived.report();
  for (const name of ['calls.path_memos', 'calls.storage_sizes', 'calls.trace_names', 'table.positions_and_sorts']) {
    assert.ok(report[name] > 0, `${name}: ${JSON.stringify(report)}`);
  }
  // The other engine computed nothing yet: its caches are its own.
  assert.deepEqual(Object.values(b.store.derived.report()).filter((n) => n > 0), []);
  lines(b, sorted);
  dropQueryCaches(b.store);
  assert.deepEqual(Object.values(b.store.derived.report()).filter((n) => n > 0), []);
  assert.deepEqual(a.store.derived.report(), report, 'dropping b leaves a alone');
});
