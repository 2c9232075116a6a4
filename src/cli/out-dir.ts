/**
 * Writing a whole output folder so that readers never see a mix of old and new files: the
 * files go to a fresh sibling folder, which is renamed into place once complete. An existing
 * non-empty folder is replaced only when asked (`--force`); it is moved aside first and
 * removed after the swap, so at every moment the path holds either the old set or the new one.
 */
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { UsageError } from './common.ts';

/** Checks `out` can be written (before any work starts); throws a UsageError naming `flag`. */
export function checkOutDir(out: string, force: boolean, flag = '--out'): void {
  if (!existsSync(out)) return;
  if (!statSync(out).isDirectory()) throw new UsageError(`${flag}: '${out}' is a file, not a folder`);
  const entries = readdirSync(out);
  if (entries.length > 0 && !force) {
    throw new UsageError(`${flag}: '${out}' is not empty (${entries.length} ${entries.length === 1 ? 'entry' : 'entries'}); use --force to replace its contents`);
  }
}

/** Runs `write` on a fresh folder next to `out`, then moves it into place (see above). */
export async function writeDirAtomically<T>(out: string, force: boolean, write: (dir: string) => Promise<T>): Promise<T> {
  checkOutDir(out, force);
  const target = resolve(out);
  const parent = dirname(target);
  mkdirSync(parent, { recursive: true });
  const staging = join(parent, `.${basename(target)}.tq-partial-${process.pid}`);
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging);
  let result: T;
  try {
    result = await write(staging);
  } catch (e) {
    rmSync(staging, { recursive: true, force: true });
    throw e;
  }
  if (existsSync(target)) {
    const old = join(parent, `.${basename(target)}.tq-old-${process.pid}`);
    rmSync(old, { recursive: true, force: true });
    renameSync(target, old);
    renameSync(staging, target);
    rmSync(old, { recursive: true, force: true });
  } else {
    renameSync(staging, target);
  }
  return result;
}
