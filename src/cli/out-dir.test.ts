import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkOutDir, writeDirAtomically } from './out-dir.ts';
import { runMainCaptured as runTq } from './run-tq.testing.ts';
import { tempDir } from '../io/temp-dir.testing.ts';

const scratch = () => tempDir('tq-out-');

test('checkOutDir: missing or empty is fine; a file, or a non-empty folder without force, is not', () => {
  const base = scratch();
  checkOutDir(join(base, 'new'), false);
  mkdirSync(join(base, 'empty'));
  checkOutDir(join(base, 'empty'), false);
  writeFileSync(join(base, 'file'), 'x');
  assert.throws(() => checkOutDir(join(base, 'file'), true), { message: `--out: '${join(base, 'file')}' is a file, not a folder` });
  mkdirSync(join(base, 'full'));
  writeFileSync(join(base, 'full', 'a'), 'x');
  assert.throws(() => checkOutDir(join(base, 'full'), false), { message: `--out: '${join(base, 'full')}' is not empty (1 entry); use --force to replace its contents` });
  checkOutDir(join(base, 'full'), true);
});

test('writeDirAtomically replaces the whole folder; a failed write leaves the old one untouched', async () => {
  const base = scratch();
  const out = join(base, 'data');
  mkdirSync(out);
  writeFileSync(join(out, 'old.jsonl'), 'old');
  await assert.rejects(
    writeDirAtomically(out, true, async (dir) => {
      writeFileSync(join(dir, 'calls.jsonl'), 'half');
      throw new Error('disk full');
    }),
    { message: 'disk full' },
  );
  assert.deepEqual(readdirSync(out), ['old.jsonl']);
  assert.deepEqual(readdirSync(base), ['data'], 'no staging folder is left behind');
  const n = await writeDirAtomically(out, true, async (dir) => {
    // While writing, the target still holds the old set only.
    assert.deepEqual(readdirSync(out), ['old.jsonl']);
    writeFileSync(join(dir, 'calls.jsonl'), 'new');
    return 1;
  });
  assert.equal(n, 1);
  assert.deepEqual(readdirSync(out), ['calls.jsonl']);
  assert.equal(readFileSync(join(out, 'calls.jsonl'), 'utf8'), 'new');
  assert.deepEqual(readdirSync(base), ['data']);
  await writeDirAtomically(join(base, 'deeper', 'fresh'), false, async (dir) => writeFileSync(join(dir, 'x'), ''));
  assert.ok(existsSync(join(base, 'deeper', 'fresh', 'x')));
});

test('tq gen --out refuses a non-empty folder without --force; --force --gzip leaves a loadable folder', async () => {
  const out = join(scratch(), 'gen');
  assert.equal((await runTq(['gen', '--calls', '20', '--out', out])).code, 0);
  const refused = await runTq(['gen', '--calls', '10', '--gzip', '--out', out]);
  assert.equal(refused.code, 2);
  assert.equal(refused.err, `error: --out: '${out}' is not empty (1 entry); use --force to replace its contents\n`);
  assert.deepEqual(readdirSync(out), ['calls.jsonl']);
  assert.equal((await runTq(['gen', '--calls', '10', '--gzip', '--force', '--out', out])).code, 0);
  assert.deepEqual(readdirSync(out), ['calls.jsonl.gz']);
  assert.equal((await runTq(['load', '--check', out])).lines[0].calls, 10);
});
