import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createEngine } from '../engine.ts';
import { BUNDLED_FIXTURES, filesOf, loadFixtureFiles } from '../io/load-fixtures.ts';
import { OneShotGate, OneShotGateGaveUp, oneShotGateSpec } from '../load/calls/one-shot-gate.ts';
import { generateCalls } from '../gen/generate.ts';
import { answer } from '../store/snapshot.testing.ts';
import { gateCallsLoad } from '../io/load-calls/gate.ts';
import type { Engine } from '../api/types.ts';

const scratch = mkdtempSync(join(tmpdir(), 'tq-one-shot-'));
process.on('exit', () => rmSync(scratch, { recursive: true, force: true }));
const TQ_BIN = fileURLToPath(new URL('../../bin/tq', import.meta.url));

/** Two projects interleaved, deleted calls, started_at ties, an escaped id, lines only the slow path reads. */
function mixedFixtures(): string {
  const dir = join(scratch, 'mixed');
  if (existsSync(dir)) return dir;
  mkdirSync(dir);
  const a = [...generateCalls({ calls: 600, seed: 3, projectId: 'e/a', startUs: 1.7e15 })];
  const b = [...generateCalls({ calls: 200, seed: 4, projectId: 'e/b', startUs: 1.7e15 })];
  const lines: string[] = [];
  for (let i = 0; i < a.length; i++) {
    let line = a[i];
    if (i % 37 === 5) line = line.replace('"deleted_at":null', '"deleted_at":"2025-06-01T00:00:00Z"');
    // Ties: every 10th call starts when the one before it did.
    if (i % 10 === 9) line = line.replace(/"started_at":"[^"]*"/, (JSON.parse(a[i - 1]) as { started_at: string }).started_at.replace(/^/, '"started_at":"') + '"');
    // The slow path: an escaped key the scan declines, and an escaped id.
    if (i % 53 === 7) line = line.replace('"op_name"', '"op\\u005fname"');
    if (i % 61 === 11) line = line.replace(/"id":"([^"]*)"/, (_m, id: string) => `"id":"${id.slice(0, 4)}\\u0041${id.slice(4)}"`);
    lines.push(line);
    if (i % 3 === 0 && b.length > 0) lines.push(b.shift()!);
  }
  lines.push(...b);
  writeFileSync(join(dir, 'calls.jsonl'), lines.join('\n') + '\n');
  return dir;
}

async function loaded(dir: string, gateOf?: () => OneShotGate, parallel = false): Promise<Engine> {
  const engine = createEngine();
  if (gateOf !== undefined) gateCallsLoad(engine, gateOf());
  await loadFixtureFiles(engine, dir, filesOf(dir), undefined, parallel ? { parallelMinBytes: 0 } : undefined);
  return engine;
}

/** Requests over every filter, sort and paging shape the gate takes (and a few it does not). */
function requests(projects: readonly string[], ops: readonly string[]): unknown[] {
  const out: unknown[] = [];
  const filters = [undefined, null, {}, { trace_roots_only: true }, { trace_roots_only: false }, { op_names: [] }, ...ops.slice(0, 3).map((op) => ({ op_names: [op] })), ...ops.slice(0, 2).map((op) => ({ op_names: [op.slice(0, op.lastIndexOf(':') + 1) + '*'], trace_roots_only: true })), { op_names: ['weave:///e/a/op/nothing:*', ''] }];
  const sorts = [undefined, null, [], [{ field: 'started_at', direction: 'desc' }], [{ field: 'started_at', direction: 'asc' }, { field: 'op_name', direction: 'desc' }], [{ field: 'op_name', direction: 'asc' }]];
  const pages: Array<Record<string, unknown>> = [{}, { limit: 0 }, { limit: 1 }, { limit: 7, offset: 3 }, { limit: 50 }, { offset: 5 }];
  for (const project_id of projects) {
    for (const filter of filters) {
      for (const sort_by of sorts) {
        for (const page of pages) out.push({ project_id, ...(filter === undefined ? {} : { filter }), ...(sort_by === undefined ? {} : { sort_by }), ...page });
      }
    }
  }
  out.push({ project_id: projects[0], columns: ['id', 'summary'], include_feedback: true, include_costs: true, limit: 9, sort_by: [{ field: 'started_at', direction: 'desc' }] });
  return out;
}

async function assertGateAnswersAlike(dir: string): Promise<number> {
  const full = await loaded(dir);
  const projects = [...full.store.projects.keys(), 'e/none'];
  const ops = [...full.store.projects.values()].flatMap((p) => p.calls.opNames.values.filter((v): v is string => typeof v === 'string'));
  let gated = 0;
  // Requests with the same gate load the same rows: one gated load each.
  const byGate = new Map<string, Engine>();
  for (const body of requests(projects, ops)) {
    const spec = oneShotGateSpec(body);
    if (spec === null) continue;
    gated++;
    const key = JSON.stringify({ ...spec, opExact: spec.opExact && [...spec.opExact] });
    const engine = byGate.get(key) ?? (await loaded(dir, () => new OneShotGate(spec)));
    byGate.set(key, engine);
    assert.equal(answer(engine, '/calls/stream_query', body), answer(full, '/calls/stream_query', body), JSON.stringify(body));
    assert.deepEqual([...engine.store.projects.keys()].sort(), [...full.store.projects.keys()].sort(), 'every project a row named exists');
  }
  return gated;
}

test('differential: through the gate, every request it takes answers byte for byte as over the full load (mixed fixtures)', async () => {
  const gated = await assertGateAnswersAlike(mixedFixtures());
  assert.ok(gated > 500, `${gated} requests went through the gate`);
});

test('differential: the bundled demo fixtures (feedback, costs, objects) answer alike through the gate', async () => {
  const gated = await assertGateAnswersAlike(BUNDLED_FIXTURES);
  assert.ok(gated > 500, `${gated} requests went through the gate`);
});

test('differential: a parallel load through the gate (lines judged on the scanning thread) stores and answers as a sequential one', async () => {
  const dir = mixedFixtures();
  const ops = [...(await loaded(dir)).store.projects.values()].flatMap((p) => p.calls.opNames.values.filter((v): v is string => typeof v === 'string'));
  const bodies = [
    { project_id: 'e/a', filter: { op_names: [ops[0].slice(0, ops[0].lastIndexOf(':') + 1) + '*', ops[1]] } },
    { project_id: 'e/b', filter: { trace_roots_only: true }, sort_by: [{ field: 'started_at', direction: 'desc' }], limit: 7 },
    { project_id: 'e/none' },
  ];
  for (const body of bodies) {
    const spec = oneShotGateSpec(body)!;
    const sequential = await loaded(dir, () => new OneShotGate(spec));
    const parallel = await loaded(dir, () => new OneShotGate(spec), true);
    assert.deepEqual([...parallel.store.projects.keys()].sort(), [...sequential.store.projects.keys()].sort());
    for (const [id, project] of sequential.store.projects) assert.equal(parallel.store.projects.get(id)!.calls.size, project.calls.size, id);
    assert.equal(answer(parallel, '/calls/stream_query', body), answer(sequential, '/calls/stream_query', body), JSON.stringify(body));
  }
  const dup = join(scratch, 'dup-parallel');
  mkdirSync(dup);
  const lines = [...generateCalls({ calls: 30, seed: 9, projectId: 'e/a', startUs: 1.7e15 })];
  writeFileSync(join(dup, 'calls.jsonl'), [...lines, lines[4]].join('\n') + '\n');
  await assert.rejects(loaded(dup, () => new OneShotGate(oneShotGateSpec({ project_id: 'e/other' })!), true), OneShotGateGaveUp);
});

test('the gate takes row-local requests only', () => {
  assert.deepEqual(oneShotGateSpec({ project_id: 'e/a', filter: { op_names: ['weave:///e/a/op/f:*', 'weave:///e/a/op/g:v1'], trace_roots_only: true }, sort_by: [{ field: 'started_at', direction: 'desc' }], limit: 10, offset: 5 }), {
    projectId: 'e/a',
    opExact: new Set(['weave:///e/a/op/g:v1']),
    opPrefixes: ['weave:///e/a/op/f:'],
    rootsOnly: true,
    topK: { k: 15, descending: true },
  });
  assert.deepEqual(oneShotGateSpec({ project_id: 'e/a', limit: 3 })?.topK, { k: 3, descending: false });
  assert.equal(oneShotGateSpec({ project_id: 'e/a', limit: 3, sort_by: [] })?.topK, null, 'sort_by [] orders by id');
  assert.equal(oneShotGateSpec({ project_id: 'e/a', limit: 20_000 })?.topK, null, 'a deep page keeps every match');
  assert.equal(oneShotGateSpec({ project_id: 'e/a', limit: 3, sort_by: [{ field: 'op_name', direction: 'asc' }] })?.topK, null);
  for (const refused of [
    null,
    [],
    { project_id: 'e/a', query: { $expr: { $eq: [{ $getField: 'op_name' }, { $literal: 'x' }] } } },
    { project_id: 'e/a', include_total_storage_size: true },
    { project_id: 'e/a', expand_columns: ['inputs.x'] },
    { project_id: 'e/a', filter: { trace_ids: ['t'] } },
    { project_id: 'e/a', filter: { op_names: ['bare_name'] } },
    { project_id: 'e/a', filter: { op_names: [3] } },
    { project_id: 'e/a', filter: { trace_roots_only: 'yes' } },
    { project_id: 3 },
    { project_id: '' },
  ]) assert.equal(oneShotGateSpec(refused), null, JSON.stringify(refused));
});

test('a duplicate id the gate would leave out makes it give up; the CLI then loads whole and names the line', async () => {
  const dir = join(scratch, 'dup');
  mkdirSync(dir);
  const lines = [...generateCalls({ calls: 30, seed: 9, projectId: 'e/a', startUs: 1.7e15 })];
  lines.push(lines[4]);
  writeFileSync(join(dir, 'calls.jsonl'), lines.join('\n') + '\n');
  const spec = oneShotGateSpec({ project_id: 'e/other' })!;
  await assert.rejects(loaded(dir, () => new OneShotGate(spec)), OneShotGateGaveUp);
  const env = { TQ_ONESHOT_MIN_BYTES: '0', TQ_SNAPSHOT: '0' };
  const gated = await runTq(['calls', '--fixtures', dir, '--project', 'e/other'], env);
  const whole = await runTq(['calls', '--fixtures', dir, '--project', 'e/other'], { ...env, TQ_ONESHOT_MIN_BYTES: '999999999' });
  assert.equal(gated.code, 1);
  assert.match(gated.err, new RegExp(`calls\\.jsonl:31: duplicate call id ${(JSON.parse(lines[4]) as { id: string }).id}`));
  assert.equal(gated.err, whole.err);
});

function runTq(args: string[], env: Record<string, string>): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [TQ_BIN, ...args], { env: { ...process.env, NO_COLOR: '1', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '', err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, out, err }));
  });
}

test('the CLI one-shot: the same bytes and notices as a whole load; the snapshot is written after the answer, by a detached writer, and then restored', async () => {
  const dir = mixedFixtures();
  // Older than the 2 s a snapshot waits for a file to settle.
  const past = new Date(Date.now() - 10_000);
  utimesSync(join(dir, 'calls.jsonl'), past, past);
  const cache = join(scratch, 'cache');
  const gate = { TQ_ONESHOT_MIN_BYTES: '0', TQ_SNAPSHOT_DIR: cache, TQ_SNAPSHOT_MIN_BYTES: '0' };
  const whole = { ...gate, TQ_ONESHOT_MIN_BYTES: '999999999', TQ_SNAPSHOT: '0' };
  const args = ['calls', '--fixtures', dir, '--project', 'e/a', '--filter-json', '{"trace_roots_only":true}', '--sort', 'started_at:desc', '--limit', '12'];
  const reference = await runTq(args, whole);
  assert.equal(reference.code, 0, reference.err);
  assert.equal(reference.out.split('\n').length, 13);
  const unknown = ['calls', '--fixtures', dir, '--project', 'e/c', '--verbose'];
  assert.deepEqual(await runTq(unknown, { ...gate, TQ_SNAPSHOT: '0' }), await runTq(unknown, whole));
  const first = await runTq(args, gate);
  assert.deepEqual(first, reference);
  // The writer runs on after the answer: wait for its snapshot and its lock to go.
  const deadline = Date.now() + 60_000;
  const names = () => (existsSync(cache) ? readdirSync(cache) : []);
  while (!(names().some((n) => n.endsWith('.tqsnap')) && !names().some((n) => n.endsWith('.writer')))) {
    assert.ok(Date.now() < deadline, `no snapshot written: ${names().join(', ')}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.equal(names().length, 1, names().join(', '));
  const snapshot = join(cache, names()[0]);
  const written = readFileSync(snapshot);
  const repeat = await runTq(args, gate);
  assert.deepEqual(repeat, reference);
  // A gated run takes the writer's lock before it exits: none means the snapshot was restored.
  assert.deepEqual(names(), [names()[0]]);
  assert.ok(readFileSync(snapshot).equals(written));
});

test('a bad line under the gate is the full load\'s error: the same line, the same message', async () => {
  const dir = join(scratch, 'bad');
  mkdirSync(dir);
  const lines = [...generateCalls({ calls: 20, seed: 5, projectId: 'e/a', startUs: 1.7e15 })];
  lines[7] = lines[7].replace('"op_name"', '"op\\u005fname"').slice(0, -1); // the slow path, then invalid JSON
  lines[12] = lines[12].replace(/"trace_id":"[^"]*"/, '"trace_id":7');
  for (const [file, want] of [[lines, /calls\.jsonl:8: invalid JSON/], [lines.filter((_, i) => i !== 7), /calls\.jsonl:12: trace_id must be a non-empty string/]] as const) {
    writeFileSync(join(dir, 'calls.jsonl'), file.join('\n') + '\n');
    const env = { TQ_ONESHOT_MIN_BYTES: '0', TQ_SNAPSHOT: '0' };
    const gated = await runTq(['calls', '--fixtures', dir, '--project', 'e/a', '--limit', '2'], env);
    const whole = await runTq(['calls', '--fixtures', dir, '--project', 'e/a', '--limit', '2'], { ...env, TQ_ONESHOT_MIN_BYTES: '999999999' });
    assert.equal(gated.code, 1);
    assert.match(gated.err, want);
    assert.deepEqual(gated, whole);
  }
});
