import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FIXTURE_KINDS } from './fixture-kinds.ts';
import { kindsNeeded } from './kinds-needed.ts';
import { BUNDLED_FIXTURES, fixtureFilesIn } from '../io/load-fixtures.ts';
import { runMainCaptured, TQ_BIN } from '../cli/run-tq.testing.ts';
import { spawnSync } from 'node:child_process';

const calls = (body: unknown) => kindsNeeded('/calls/stream_query', JSON.stringify(body));

test('a calls query needs the calls, plus what its expansions, feedback and costs read', () => {
  assert.deepEqual(calls({ project_id: 'a/b', limit: 3 }), ['calls']);
  assert.deepEqual(calls({ project_id: 'a/b', expand_columns: [] }), ['calls']);
  // An expanded ref can reach a table row through an object (`.../rows/index/0`).
  assert.deepEqual(calls({ project_id: 'a/b', expand_columns: ['inputs.model'] }), ['calls', 'tables', 'objects']);
  assert.deepEqual(calls({ project_id: 'a/b', include_feedback: true }), ['calls', 'feedback']);
  assert.deepEqual(calls({ project_id: 'a/b', include_feedback: false, include_costs: null }), ['calls']);
  assert.deepEqual(calls({ project_id: 'a/b', sort_by: [{ field: 'feedback.[wandb.reaction.1].payload.emoji', direction: 'asc' }] }), ['calls', 'feedback']);
  assert.deepEqual(calls({ project_id: 'a/b', query: { $expr: { $eq: [{ $getField: 'feedback.[*].payload.x' }, { $literal: 1 }] } } }), ['calls', 'feedback']);
  assert.deepEqual(calls({ project_id: 'a/b', include_costs: true }), ['calls', 'costs']);
  // A value the route will refuse still loads what it names: the route's answer decides.
  assert.deepEqual(calls({ project_id: 'a/b', include_costs: 'yes' }), ['calls', 'costs']);
  assert.deepEqual(kindsNeeded('/calls/query_stats', JSON.stringify({ project_id: 'a/b', include_total_storage_size: true })), ['calls']);
});

test('the other query routes; anything else, or a body that is not a JSON object, needs every kind', () => {
  assert.deepEqual(kindsNeeded('/threads/stream_query', '{"project_id":"a/b"}'), ['calls']);
  assert.deepEqual(kindsNeeded('/table/query_stream', '{"project_id":"a/b","digest":"d"}'), ['tables']);
  assert.deepEqual(kindsNeeded('/objs/query', '{"project_id":"a/b"}'), ['objects']);
  assert.deepEqual(kindsNeeded('/calls/stream_query', '{"project_id":'), [...FIXTURE_KINDS]);
  assert.deepEqual(kindsNeeded('/calls/stream_query', '[1]'), [...FIXTURE_KINDS]);
  assert.deepEqual(kindsNeeded('/calls/stream_query', 'null'), [...FIXTURE_KINDS]);
  assert.deepEqual(kindsNeeded('/obj/read', '{}'), [...FIXTURE_KINDS]);
  // Deeper than anything a route accepts: taken as reading feedback (the route refuses it).
  let deep: unknown = 'x';
  for (let i = 0; i < 100; i++) deep = [deep];
  assert.deepEqual(calls({ project_id: 'a/b', query: deep }), ['calls', 'feedback']);
});

test('tq calls does not read a tables file it does not need; tq table and tq load --check do', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tq-kinds-'));
  try {
    mkdirSync(join(dir, 'fx'));
    for (const f of fixtureFilesIn(BUNDLED_FIXTURES)) if (f.kind !== 'tables') copyFileSync(f.file, join(dir, 'fx', f.file.slice(BUNDLED_FIXTURES.length)));
    writeFileSync(join(dir, 'fx', 'tables.jsonl'), 'not json\n');
    const env = { TQ_SNAPSHOT: '0' };
    const fx = join(dir, 'fx');
    // A real process: the answer streams to stdout as bytes.
    const ok = spawnSync(process.execPath, [TQ_BIN, 'calls', '--fixtures', fx, '-p', 'acme/support-bot', '--limit', '1', '--columns', 'id'], { env: { ...process.env, ...env }, encoding: 'utf8' });
    assert.equal(ok.status, 0, ok.stderr);
    assert.equal(ok.stderr, '');
    assert.equal(ok.stdout.split('\n').filter(Boolean).length, 1);
    assert.equal((JSON.parse(ok.stdout) as { project_id: string }).project_id, 'acme/support-bot');
    const table = await runMainCaptured(['table', '--fixtures', fx, '-p', 'acme/evals', '-d', 'x'], env);
    assert.equal(table.code, 1);
    assert.match(table.err, /tables\.jsonl:1: invalid JSON/);
    const expand = await runMainCaptured(['calls', '--fixtures', fx, '-p', 'acme/evals', '--expand', 'inputs.dataset'], env);
    assert.equal(expand.code, 1);
    assert.match(expand.err, /tables\.jsonl:1/);
    const check = await runMainCaptured(['load', '--check', fx], env);
    assert.equal(check.code, 1);
    assert.match(check.err, /tables\.jsonl:1/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
