/**
 * One writer per data directory: `DIR/tq.lock` holds the pid of the process that writes DIR.
 * It is created atomically (a link of a fully written temp file: the lock never exists empty);
 * a lock left by a process that no longer runs (after `kill -9`) is taken over.
 */
import { linkSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const LOCK_FILE = 'tq.lock';

export class LockHeldError extends Error {}

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
  writeFileSync(temp, `${pid}\n`);
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        linkSync(temp, lock);
        break;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      }
      const holder = holderOf(lock);
      // A second EEXIST: another process took the stale lock at the same moment.
      if ((holder !== null && holder !== pid && alive(holder)) || attempt > 0) {
        throw new LockHeldError(`${dir} is in use by another tq (pid ${holder}, lock file ${lock}); stop it first, or delete the lock file if that pid is not a tq`);
      }
      // Stale: its process is gone (or the file is unreadable garbage). Take it over once.
      unlinkSync(lock);
    }
  } finally {
    unlinkSync(temp);
  }
  return () => {
    if (holderOf(lock) === pid) unlinkSync(lock);
  };
}
