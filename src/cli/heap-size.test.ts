import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { heapPlan, takeHeapFlag, type HeapInputs } from './heap-size.ts';
import { TQ_BIN } from './run-tq.testing.ts';

const scratch = mkdtempSync(join(tmpdir(), 'tq-heap-'));
process.on('exit', () => rmSync(scratch, { recursive: true, force: true }));
const GiB = 1024 ** 3;

/** A sparse file of `bytes` (its size is what counts; it takes no disk). */
function sized(path: string, bytes: number): string {
  writeFileSync(path, '');
  truncateSync(path, bytes);
  return path;
}

const big = join(scratch, 'big');
mkdirSync(big);
sized(join(big, 'calls.jsonl'), 10 * GiB);
sized(join(big, 'tables.jsonl'), 1 * GiB);
const gz = sized(join(scratch, 'calls.jsonl.gz'), 1 * GiB);
const small = join(scratch, 'small');
mkdirSync(small);
sized(join(small, 'calls.jsonl'), 100 * 1024 * 1024);

const plan = (over: Partial<HeapInputs>) => heapPlan({ args: [], env: {}, cwd: scratch, heap: undefined, limitMb: 4144, totalMemMb: 24_000, nodeArgs: [], ...over });

test('a data command whose data needs more heap than node allows runs again with what it needs, at most 90% of memory', () => {
  // 11 GiB of JSONL: 1.1 bytes of heap per byte, plus 1 GiB of room.
  assert.deepEqual(plan({ args: ['calls', '--fixtures', big, '-p', 'a/b'] }), { action: 'run-with', mb: 13_415, reason: `13415 MB needed for ${big}, 4144 MB allowed` });
  assert.deepEqual(plan({ args: ['serve', `--fixtures=${big}`], totalMemMb: 8000 }), { action: 'run-with', mb: 7200, reason: `13415 MB needed for ${big}, 4144 MB allowed` });
  assert.deepEqual(plan({ args: ['dump', '--data', big, '--out', 'x'] }).action, 'run-with');
  assert.deepEqual(plan({ args: ['load', '--check', big] }).action, 'run-with');
  assert.deepEqual(plan({ args: ['ls'], env: { TQ_FIXTURES: big } }).action, 'run-with');
  // A .gz file counts as ten times its size.
  assert.deepEqual(plan({ args: ['calls', '--fixtures', gz] }), { action: 'run-with', mb: 12_288, reason: `12288 MB needed for ${gz}, 4144 MB allowed` });
});

test('the limit is kept when it is enough, for other commands, and when node was given one', () => {
  assert.deepEqual(plan({ args: ['calls', '--fixtures', small] }), { action: 'keep', reason: '1135 MB needed, 4144 MB allowed' });
  assert.deepEqual(plan({ args: ['calls', '--fixtures', big], limitMb: 20_000 }), { action: 'keep', reason: '13415 MB needed, 20000 MB allowed' });
  assert.deepEqual(plan({ args: ['gen', '--out', big] }), { action: 'keep', reason: 'not a data command' });
  assert.deepEqual(plan({ args: ['calls', '--fixtures', big], nodeArgs: ['--max-old-space-size=2048'] }), { action: 'keep', reason: 'node was given --max-old-space-size' });
  assert.deepEqual(plan({ args: ['calls', '-p', 'a/b'] }), { action: 'keep', reason: 'the bundled demo data' });
  assert.deepEqual(plan({ args: ['calls', '--fixtures', join(scratch, 'missing')] }), { action: 'keep', reason: '1024 MB needed, 4144 MB allowed' });
});

test('--heap MB (or TQ_HEAP) sets the limit exactly; auto is the default; anything else is a usage error', () => {
  assert.deepEqual(plan({ args: ['calls'], heap: '2048' }), { action: 'run-with', mb: 2048, reason: '--heap 2048' });
  assert.deepEqual(plan({ args: ['calls'], env: { TQ_HEAP: '9000' } }), { action: 'run-with', mb: 9000, reason: '--heap 9000' });
  assert.deepEqual(plan({ args: ['calls'], heap: '4144' }), { action: 'keep', reason: 'the limit is already 4144 MB' });
  assert.deepEqual(plan({ args: ['calls', '--fixtures', big], heap: 'auto', env: { TQ_HEAP: '100' } }).action, 'run-with');
  assert.equal((plan({ args: ['calls', '--fixtures', big], heap: 'auto' }) as { mb: number }).mb, 13_415);
  for (const bad of ['', 'lots', '0', '-5', '1.5', '123456789']) {
    assert.deepEqual(plan({ args: ['calls'], heap: bad }), { action: 'usage-error', message: `--heap: a number of MB or auto, got '${bad}'` }, bad);
  }
  assert.deepEqual(takeHeapFlag(['calls', '--heap', '5000', '-p', 'a/b']), { args: ['calls', '-p', 'a/b'], heap: '5000' });
  assert.deepEqual(takeHeapFlag(['--heap=auto', 'serve']), { args: ['serve'], heap: 'auto' });
  assert.deepEqual(takeHeapFlag(['calls', '--', '--heap', '1']), { args: ['calls', '--', '--heap', '1'], heap: undefined });
});

test('bin/tq runs the command again with the limit it decided, and refuses a bad --heap', () => {
  const run = (args: string[]) => spawnSync(process.execPath, [TQ_BIN, ...args], { env: { ...process.env, TQ_HEAP_DEBUG: '1', TQ_SNAPSHOT: '0' }, encoding: 'utf8' });
  const sized5000 = run(['calls', '-p', 'acme/evals', '--limit', '1', '--columns', 'id', '--heap', '5000']);
  assert.equal(sized5000.status, 0, sized5000.stderr);
  assert.equal(sized5000.stderr, 'tq: heap limit 5000 MB (--heap 5000)\n');
  assert.equal(JSON.parse(sized5000.stdout).project_id, 'acme/evals');
  const bad = run(['calls', '-p', 'acme/evals', '--heap', 'x']);
  assert.equal(bad.status, 2);
  assert.equal(bad.stderr, "error: --heap: a number of MB or auto, got 'x'\n");
  assert.equal(bad.stdout, '');
});
