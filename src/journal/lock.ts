/**
 * One writer per data directory: `DIR/tq.lock` holds the pid of the process that writes DIR.
 * It is created atomically (a link of a fully written temp file: the lock never exists empty);
 * a lock left by a process that no longer runs (after `kill -9`) is taken over.
 *
 * Taking over is atomic: only the process that creates `tq.lock.takeover` (mkdir: one winner)
 * may replace a stale lock, and it reads the lock again once it holds that right, so two
 * processes that both saw the same stale lock cannot both end up holding it (before issue 22,
 * unlink-then-link let both win in 9 of 100 trials). The stale lock is replaced by a rename, so
 * the lock file never goes missing in between.
 */
import { linkSync, mkdirSync, readFileSync, renameSync, rmdirSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { OperationalError } from '../core/operational-errors.ts';

export const LOCK_FILE = 'tq.lock';
export const TAKEOVER_DIR = 'tq.lock.takeover';

export class LockHeldError extends OperationalError<'TQ_DATA_DIR_LOCKED'> {
  constructor(reason: string) {
    super('TQ_DATA_DIR_LOCKED', { reason });
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: it runs, as another user.
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function holderOf(lock: string): number | null {
  try {
    const pid = Number(readFileSync(lock, 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
}

/** Takes the lock of `dir` for this process; returns its release. */
export function acquireLock(dir: string, pid: number = process.pid): () => void {
  const lock = join(dir, LOCK_FILE);
  const temp = join(dir, `${LOCK_FILE}.${pid}`);
  writeFileSync(temp, `${pid}\n`, { mode: 0o600 });
  const held = (holder: number | null) =>
    new LockHeldError(`${dir} is in use by another tq (pid ${holder}, lock file ${lock}); stop it first, or delete the lock file if that pid is not a tq`);
  const stale = (holder: number | null) => !(holder !== null && holder !== pid && alive(holder));
  try {
    try {
      linkSync(temp, lock);
      return releaseOf(lock, pid);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    if (!stale(holderOf(lock))) throw held(holderOf(lock));
    const takeover = join(dir, TAKEOVER_DIR);
    try {
      mkdirSync(takeover);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      throw new LockHeldError(`${dir}: another tq is taking over its stale lock right now (${takeover} exists; if no tq is starting, remove that directory)`);
    }
    try {
      // Read again under the takeover right: another process may have taken over meanwhile.
      const holder = holderOf(lock);
      if (!stale(holder)) throw held(holder);
      const fresh = join(dir, `${LOCK_FILE}.${pid}.fresh`);
      linkSync(temp, fresh);
      renameSync(fresh, lock);
    } finally {
      rmdirSync(takeover);
    }
  } finally {
    unlinkSync(temp);
  }
  return releaseOf(lock, pid);
}

function releaseOf(lock: string, pid: number): () => void {
  return () => {
    if (holderOf(lock) === pid) unlinkSync(lock);
  };
}

