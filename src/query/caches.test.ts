import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createEngine } from '../engine.ts';
import { dropQueryCaches } from './caches.ts';
import { candidatePositions } from './table/run.ts';
import { callsStreamQueryRoute } from './calls/route.ts';
import { BUNDLED_FIXTURES, loadFixtures } from '../io/load-fixtures.ts';

const ctx = { userId: 'u', authorize() {}, canRead: () => true };

test('dropQueryCaches: table positions are recomputed afterwards, and answers stay the same', async () => {
  const engine = createEngine();
  await loadFixtures(engine, BUNDLED_FIXTURES);
  const project = engine.store.project('acme/evals')!;
  const [digests] = [...project.tables.values()];
  const before = candidatePositions(digests, project.rows, null);
  assert.equal(candidatePositions(digests, project.rows, null), before);
  const body = { project_id: 'acme/support-bot', sort_by: [{ field: 'inputs.question', direction: 'asc' }], limit: 5 };
  const run = () => {
    const res = callsStreamQueryRoute.run(engine, { kind: 'value', value: structuredClone(body) }, ctx);
    assert.equal(res.kind, 'stream');
    return [...(res as { lines: Iterable<string> }).lines];
  };
  const warm = run();
  dropQueryCaches(engine.store);
  const after = candidatePositions(digests, project.rows, null);
  assert.notEqual(after, before);
  assert.deepEqual([...after], [...before]);
  assert.deepEqual(run(), warm);
  assert.equal(warm.length, 5);
});
