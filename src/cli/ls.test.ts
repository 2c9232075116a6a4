import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createEngine } from '../engine.ts';
import { BUNDLED_FIXTURES, loadFixtures } from '../io/load-fixtures.ts';
import { alignColumns, describeProject, listProjects } from './ls.ts';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runMainCaptured as runTq, TQ_BIN } from './run-tq.testing.ts';
import { spawnSync } from 'node:child_process';
import { tempDir } from '../io/temp-dir.testing.ts';

const DIGEST = '10539a35ae35030cddcb98ffcd1d555ec899184d64c3185ec8a87e91370cdf3f';

test('listProjects and describeProject count what the demo holds', async () => {
  const engine = createEngine();
  await loadFixtures(engine, BUNDLED_FIXTURES);
  assert.deepEqual(listProjects(engine.store), [
    { project: 'acme/evals', calls: 104, threads: 0, tables: 1, objects: 10 },
    { project: 'acme/support-bot', calls: 77, threads: 6, tables: 0, objects: 16 },
    { project: 'globex/rag-search', calls: 98, threads: 0, tables: 0, objects: 15 },
  ]);
  const evals = describeProject(engine.store, 'acme/evals');
  assert.deepEqual(evals[0], { kind: 'table', digest: DIGEST, rows: 10 });
  assert.deepEqual(evals.find((e) => e.kind === 'object' && e.object_id === 'intent-classifier'), { kind: 'object', object_id: 'intent-classifier', versions: 2 });
  const threads = describeProject(engine.store, 'acme/support-bot').filter((e) => e.kind === 'thread');
  assert.equal(threads.length, 6);
  assert.deepEqual(threads.find((t) => t.kind === 'thread' && t.thread_id === 'conv-04-plan-upgrade'), { kind: 'thread', thread_id: 'conv-04-plan-upgrade', turns: 6 });
  assert.throws(() => describeProject(engine.store, 'acme/eval'), { message: '--project: no project "acme/eval" in the data (projects: acme/evals, acme/support-bot, globex/rag-search)' });
});

test('a deleted call leaves the counts', async () => {
  const engine = createEngine();
  await loadFixtures(engine, BUNDLED_FIXTURES);
  const calls = engine.store.project('acme/support-bot')!.calls;
  calls.markDeleted(calls.turnsByThread.get('conv-04-plan-upgrade')![0], 1);
  assert.equal(listProjects(engine.store)[1].calls, 76);
  const thread = describeProject(engine.store, 'acme/support-bot').find((e) => e.kind === 'thread' && e.thread_id === 'conv-04-plan-upgrade');
  assert.deepEqual(thread, { kind: 'thread', thread_id: 'conv-04-plan-upgrade', turns: 5 });
});

test('alignColumns: 300,000 rows (more than a call takes arguments) align without a RangeError', () => {
  const rows: Array<Array<string | number>> = [['project', 'calls']];
  for (let i = 0; i < 300_000; i++) rows.push([`e/p${i}`, i]);
  const lines = alignColumns(rows);
  assert.equal(lines.length, 300_001);
  assert.equal(lines[0], 'project     calls');
  assert.equal(lines[300_000], 'e/p299999  299999');
});

test('alignColumns: text left, numbers (and their headers) right', async () => {
  assert.deepEqual(alignColumns([['name', 'n'], ['ab', 10], ['abcd', 2]]), ['name   n', 'ab    10', 'abcd   2']);
});

test('tq ls prints a table or JSON Lines; --project lists tables, objects, threads', async () => {
  const text = await runTq(['ls']);
  assert.equal(text.code, 0);
  assert.equal(
    text.out,
    'project            calls  threads  tables  objects\n' +
      'acme/evals           104        0       1       10\n' +
      'acme/support-bot      77        6       0       16\n' +
      'globex/rag-search     98        0       0       15\n' +
      '\n' +
      'calls: live calls only; 18 deleted calls are not counted (tq load --check counts all 297 call records)\n' +
      'threads: 1 thread has no finished turn yet: counted here, left out by tq threads\n',
  );
  // The footnotes tell the truth: the other commands' counts differ by exactly those numbers.
  const loaded = await runTq(['load', '--check']);
  assert.match(loaded.out + loaded.err, /"calls":297/);
  const threads = spawnSync(process.execPath, [TQ_BIN, 'threads', '-p', 'acme/support-bot'], { cwd: tmpdir(), encoding: 'utf8', env: { ...process.env, TQ_FIXTURES: '' } });
  assert.equal(threads.stdout.trim().split('\n').length, 6 - 1, 'tq threads leaves out the one thread without a finished turn');
  const support = await runTq(['ls', '-p', 'acme/support-bot']);
  assert.match(support.out, /\n\ncalls: live calls only; 4 deleted calls are not counted \(tq load --check counts all 81 call records\)\nthreads: 1 thread has no finished turn yet: counted here, left out by tq threads\n$/);
  const json = await runTq(['ls', '--json']);
  assert.deepEqual(json.lines[2], { project: 'globex/rag-search', calls: 98, threads: 0, tables: 0, objects: 15 });
  const project = await runTq(['ls', '--project', 'acme/evals']);
  assert.equal(project.code, 0);
  assert.match(project.out, new RegExp(`^acme/evals\\ntables \\(1\\)\\n  ${DIGEST}  10  rows\\nobjects \\(10\\)\\n`));
  assert.match(project.out, /\n  intent-classifier +2  versions\n/);
  assert.match(project.out, /\nthreads \(0\)\n$/, 'no footnote where the counts agree');
  const lines = (await runTq(['ls', '-p', 'acme/support-bot', '--json'])).lines;
  assert.deepEqual(lines.find((l) => l.kind === 'thread' && l.thread_id === 'conv-04-plan-upgrade'), { kind: 'thread', thread_id: 'conv-04-plan-upgrade', turns: 6 });
  const unknown = await runTq(['ls', '-p', 'acme/nope']);
  assert.equal(unknown.code, 2);
  assert.match(unknown.err, /--project: no project "acme\/nope" in the data \(projects: acme\/evals, /);
});

test('tq ls on data without projects says so', async () => {
  const dir = tempDir('tq-ls-');
  writeFileSync(join(dir, 'calls.jsonl'), '');
  const r = await runTq(['ls', '--fixtures', dir]);
  assert.deepEqual([r.code, r.out], [0, '(no projects)\n']);
});
