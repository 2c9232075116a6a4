/**
 * Issue 22 §5: two processes that find the same stale lock at the same moment cannot both take
 * it over (the takeover is atomic), and a taken-over lock never goes missing in between.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { acquireLock, LOCK_FILE, TAKEOVER_DIR } from './lock.ts';

const LOCK_MODULE = new URL('./lock.ts', import.meta.url).href;

/** A process that waits until `at` (ms since the epoch), tries the lock, holds it for 1.5 s. */
function contender(dir: string, at: number): Promise<string> {
  const code = `const { acquireLock } = await import(${JSON.stringify(LOCK_MODULE)});
    while (Date.now() < ${at}) {}
    try { const release = acquireLock(${JSON.stringify(dir)}); console.log('got'); await new Promise((r) => setTimeout(r, 1500)); release(); }
    catch (e) { console.log('refused'); }`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (b: Buffer) => (out += b.toString()));
  return new Promise((resolve) => child.on('exit', () => resolve(out.trim())));
}

describe('taking over a stale lock', () => {
  it('six processes at the same moment: exactly one holds it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tq-lock-'));
    try {
      writeFileSync(join(dir, LOCK_FILE), '2147483646\n');
      const at = Date.now() + 2500;
      const outcomes = await Promise.all(Array.from({ length: 6 }, () => contender(dir, at)));
      assert.equal(outcomes.filter((o) => o === 'got').length, 1, outcomes.join(' '));
      assert.equal(existsSync(join(dir, TAKEOVER_DIR)), false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a stale lock is replaced in place (rename), and the lock file is private', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tq-lock-'));
    try {
      writeFileSync(join(dir, LOCK_FILE), '2147483646\n');
      const release = acquireLock(dir);
      assert.equal(readFileSync(join(dir, LOCK_FILE), 'utf8'), `${process.pid}\n`);
      release();
      assert.equal(existsSync(join(dir, LOCK_FILE)), false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
