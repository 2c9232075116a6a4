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

/**
 * A process that waits until `at` (ms since the epoch) and tries the lock; the one that gets it
 * holds it until `release` exists, which the test creates once every contender has tried (under
 * load a contender may start late: it must still meet the lock held, not a lock given back).
 */
function contender(dir: string, at: number, release: string): { tried: Promise<string>; exited: Promise<void> } {
  const code = `const { existsSync } = await import('node:fs');
    const { acquireLock } = await import(${JSON.stringify(LOCK_MODULE)});
    while (Date.now() < ${at}) {}
    let release;
    try { release = acquireLock(${JSON.stringify(dir)}); console.log('got'); }
    catch (e) { console.log('refused'); process.exit(0); }
    while (!existsSync(${JSON.stringify(release)})) await new Promise((r) => setTimeout(r, 20));
    release();`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  const tried = new Promise<string>((resolve) => {
    child.stdout.on('data', (b: Buffer) => {
      out += b.toString();
      if (out.includes('\n')) resolve(out.trim());
    });
    child.on('exit', () => resolve(out.trim()));
  });
  return { tried, exited: new Promise((resolve) => child.on('exit', () => resolve())) };
}

describe('taking over a stale lock', () => {
  it('six processes at the same moment: exactly one holds it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tq-lock-'));
    try {
      writeFileSync(join(dir, LOCK_FILE), '2147483646\n');
      const at = Date.now() + 2500;
      const release = join(dir, 'release-now');
      const contenders = Array.from({ length: 6 }, () => contender(dir, at, release));
      const outcomes = await Promise.all(contenders.map((c) => c.tried));
      writeFileSync(release, '');
      await Promise.all(contenders.map((c) => c.exited));
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
