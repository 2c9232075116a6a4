import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createEngine } from '../engine.ts';
import { Store } from '../store/store.ts';
import { prepareCallWrites, projectsOfCallWrites, storeCallWrites, type CallWrite } from './prepared-calls.ts';

const P = 'acme/prepared';
const start = (id: string | undefined, extra: Record<string, unknown> = {}) => ({
  project_id: P,
  ...(id === undefined ? {} : { id }),
  op_name: 'op',
  started_at: 1_000_000,
  attributes: { a: 1 },
  inputs: { ref: `weave:///${P}/object/o:v1` },
  ...extra,
});
const end = (id: string, extra: Record<string, unknown> = {}) => ({
  project_id: P,
  id,
  ended_at: 2_000_000,
  output: `weave:///${P}/object/out:v1`,
  summary: { status_counts: { error: 2 } },
  ...extra,
});

test('prepared call writes: ids drawn in part order when stored, an end under its start id, texts and derived columns as given', () => {
  let n = 0;
  const engine = createEngine(new Store(), { newId: () => `id-${++n}` });
  const writes: CallWrite[] = [
    { start: start(undefined) },
    { end: { ...end('ignored'), summary: { status_counts: { error: Infinity } } }, sameIdAsStart: true },
    { start: start('c2', { trace_id: 't2', user_id: null }) },
    { end: end('c3') },
    { start: { ...start('c3'), project_id: 'acme/other' } },
  ];
  assert.deepEqual(projectsOfCallWrites(writes), [P, 'acme/other']);
  // The part texts the route's writer gives (here: marked, to see they are the ones stored).
  const prepared = prepareCallWrites(writes, (part) => JSON.stringify(part).replace('}', ',"written":1}'));
  // Nothing drawn while preparing: ids come from the store step.
  assert.equal(n, 0);
  const results = storeCallWrites(engine, structuredClone(prepared), 'alice');
  assert.deepEqual(results, [{ id: 'id-1', trace_id: 'id-2' }, {}, { id: 'c2', trace_id: 't2' }, {}, { id: 'c3', trace_id: 'id-3' }]);
  const calls = engine.store.project(P)!.calls;
  const row = calls.rowOf('id-1')!;
  assert.equal(calls.endedAt.data[row], 2_000_000);
  // A count that is not finite survives the JSON of the prepared parts.
  assert.equal(calls.statusErrorCount.data[row], Infinity);
  assert.deepEqual(calls.inputRefs.get(row), [`weave:///${P}/object/o:v1`]);
  assert.deepEqual(calls.outputRefs.get(row), [`weave:///${P}/object/out:v1`]);
  assert.deepEqual(calls.bodyPartTexts(row), ['{"a":1,"written":1}', `{"ref":"weave:///${P}/object/o:v1","written":1}`, `"weave:///${P}/object/out:v1"`, '{"status_counts":{"error":null,"written":1}}']);
  assert.equal(calls.userId(calls.rowOf('c2')!), 'alice');
  // An end for another project's call id waits in its own project.
  assert.equal(engine.store.project('acme/other')!.calls.endedAt.data[0], Number.NaN);
});
