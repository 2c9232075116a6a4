/**
 * The two test lanes (issue 24 §6): `npm test` runs every test file; `npm run test:unit` runs
 * the ones that stay in their process, all in one Node process. The split is checked here: the
 * lanes cover every file once, and nothing that spawns, listens or drives a browser is in the
 * unit lane.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

function testFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((name) => {
    const path = join(dir, name);
    if (name === 'node_modules') return [];
    return statSync(join(ROOT, path)).isDirectory() ? testFiles(path) : name.endsWith('.test.ts') ? [path] : [];
  });
}

function lanes(filter: string[] = []): { unit: string[]; left: Array<[string, string]> } {
  const r = spawnSync(process.execPath, [join(ROOT, 'scripts', 'test-unit.mjs'), '--list', ...filter], { cwd: ROOT, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const unit: string[] = [];
  const left: Array<[string, string]> = [];
  for (const line of r.stdout.trim().split('\n')) {
    const out = /^# left out: (\S+) \((.*)\)$/.exec(line);
    if (out) left.push([out[1], out[2]]);
    else unit.push(line);
  }
  return { unit, left };
}

test('npm test runs every test file; test:unit runs its lane in one process', () => {
  const scripts = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
  assert.match(scripts.test, /\$\(find src spec-tests bench -name '\*\.test\.ts' \| sort\)/);
  assert.equal(scripts['test:unit'], 'node --import tsx scripts/test-unit.mjs');
});

test('the unit lane and the files it leaves out are every test file, each once', () => {
  const { unit, left } = lanes();
  const all = ['src', 'spec-tests', 'bench'].flatMap((d) => testFiles(d)).sort();
  assert.deepEqual([...unit, ...left.map(([f]) => f)].sort(), all);
  assert.ok(unit.length >= 90, `${unit.length} files in the unit lane`);
  // Known members of each side.
  assert.ok(unit.includes('src/core/datetime.test.ts'));
  assert.ok(unit.includes('spec-tests/corpus.test.ts'));
  const reasons = new Map(left);
  assert.equal(reasons.get('src/cli/cli.test.ts'), 'spawns a process');
  assert.equal(reasons.get('src/server/server.test.ts'), 'starts a server');
  assert.equal(reasons.get('src/server/viewer-browser.test.ts'), 'spawns a process');
  assert.equal(reasons.get('bench/smoke.test.ts'), 'runs the bench');
  assert.equal(reasons.get('src/api/hostile-input.test.ts'), 'slow: npm test runs it');
  assert.equal(reasons.get('src/test-lanes.test.ts'), 'spawns a process');
});

test('nothing in the unit lane spawns, listens, starts workers or drives a browser', () => {
  const forbidden = /node:child_process|node:worker_threads|node:https?'|node:net'|playwright|\.listen\(/;
  const offenders = lanes().unit.filter((f) => forbidden.test(readFileSync(join(ROOT, f), 'utf8')));
  assert.deepEqual(offenders, []);
});

test('test:unit WORD keeps the files whose path holds WORD', () => {
  const { unit, left } = lanes(['threads/']);
  assert.ok(unit.length > 0);
  assert.ok([...unit, ...left.map(([f]) => f)].every((f) => f.includes('threads/')));
});
