/**
 * The fixture registry's guard (issue 24 §2): every file kind, the kinds and the files that
 * feed them, is found in a directory, loaded from its file and from text, counted, and picked
 * when a query needs the kind it fills. SAMPLE_LINES is a Record over the file kinds, so a new
 * registry entry fails to compile here until it has a sample, and then runs every check below.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEngine } from '../engine.ts';
import { filesOf, fixtureFilesIn, loadFixtures, loadFixtureText } from '../io/load-fixtures.ts';
import { otlpExport } from '../otel/otlp.testing.ts';
import { filesForKinds, FIXTURE_FILE_KINDS, FIXTURE_KINDS, kindsFilledBy, type FixtureFileKind } from './fixture-kinds.ts';
import { kindsNeeded } from './kinds-needed.ts';

/** One valid line of each file kind, and the store count it adds to. */
const SAMPLE_LINES: Record<FixtureFileKind, { line: string; counts: 'calls' | 'tables' | 'objects' | 'feedback' | 'prices' }> = {
  calls: { line: JSON.stringify({ project_id: 'e/p', id: 'c1', op_name: 'op', trace_id: 't', started_at: '2024-01-01T00:00:00Z', attributes: {}, inputs: {} }), counts: 'calls' },
  tables: { line: JSON.stringify({ project_id: 'e/p', rows: [{ x: 1 }] }), counts: 'tables' },
  objects: { line: JSON.stringify({ project_id: 'e/p', object_id: 'o', val: { k: 1 } }), counts: 'objects' },
  feedback: { line: JSON.stringify({ project_id: 'e/p', weave_ref: 'weave:///e/p/call/c1', feedback_type: 'note', payload: { note: 'x' }, svc_user_id: 'u' }), counts: 'feedback' },
  costs: {
    line: JSON.stringify({ pricing_level: 'default', created_at: '2024-06-01T00:00:00Z', svc_user_id: 'u', costs: { m: { prompt_token_cost: 1, completion_token_cost: 2, prompt_token_cost_unit: 'USD', completion_token_cost_unit: 'USD' } } }),
    counts: 'prices',
  },
  'otel-traces': { line: JSON.stringify(otlpExport([{ 'wandb.entity': 'e', 'wandb.project': 'p' }, [{ id: '00000000000000a1' }, { id: '00000000000000a2' }]])), counts: 'calls' },
};

test('every file kind is found in a directory, loaded from its file and from text, and counted', async () => {
  const scratch = mkdtempSync(join(tmpdir(), 'tq-fixture-kinds-'));
  try {
    for (const kind of FIXTURE_FILE_KINDS) {
      const { line, counts } = SAMPLE_LINES[kind];
      const dir = join(scratch, kind);
      const file = join(dir, `${kind}.jsonl`);
      mkdirSync(dir);
      writeFileSync(file, line + '\n');
      assert.deepEqual(filesOf(dir), [{ file, kind }], kind);
      // A --data directory's compaction finds only the kinds' own files.
      assert.deepEqual(fixtureFilesIn(dir), FIXTURE_KINDS.includes(kind as never) ? [{ file, kind }] : [], kind);
      const fromFile = createEngine();
      const report = await loadFixtures(fromFile, dir);
      const stored = fromFile.store.counts()[counts];
      assert.ok(stored > 0, kind);
      assert.deepEqual(report.files, [{ file, kind, records: kind === 'costs' ? 1 : stored }], kind);
      const fromText = createEngine();
      assert.equal(await loadFixtureText(fromText, kind, line + '\n'), report.files[0].records, kind);
      assert.deepEqual(fromText.store.counts(), fromFile.store.counts(), kind);
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
});

test('a query that needs a kind loads every file that fills it', () => {
  const needsCalls = kindsNeeded('/calls/stream_query', '{"project_id":"e/p"}');
  assert.deepEqual(needsCalls, ['calls']);
  assert.deepEqual(filesForKinds(FIXTURE_FILE_KINDS.map((kind) => ({ kind })), needsCalls).map((f) => f.kind), ['calls', 'objects', 'otel-traces']);
  assert.deepEqual(FIXTURE_FILE_KINDS.map(kindsFilledBy), [...FIXTURE_KINDS.map((k) => [k]), ['calls', 'objects']]);
});
