/**
 * Reloading `tq serve`'s data: on SIGHUP, and with `--watch` when a fixture file changes
 * (debounced, so an editor's or `tq gen`'s burst of writes is one reload). The new data is
 * loaded into a fresh engine while the old one keeps serving; only a complete load is swapped
 * in (requests already running finish on the old data). A load that fails (a bad line: the
 * log names file:line) keeps the old data. Reloads never overlap: a change during a reload
 * schedules one more.
 */
import { statSync, watch, type FSWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';
import type { Engine } from '../api/types.ts';
import { FixtureError } from '../core/errors.ts';

/** The file names tq reads from a fixtures directory (load-fixtures.ts). */
const FIXTURE_FILE = /^(calls|tables|objects|feedback|costs)\.jsonl(\.gz)?$/;

export interface ReloaderOptions {
  /** The fixtures directory or calls file being served. */
  path: string;
  load: () => Promise<Engine>;
  swap: (engine: Engine) => void;
  log: (line: string) => void;
  /** Quiet time after the last change before reloading (default 300 ms). */
  debounceMs?: number;
}

export interface Reloader {
  /** Reloads now (or once more after a running reload); resolves when that reload is done. */
  reload(reason: string): Promise<void>;
  /** Starts watching the fixture files; returns a function that stops it. */
  watch(): () => void;
}

function describeFailure(e: unknown): string {
  if (e instanceof FixtureError) return e.message;
  const err = e as NodeJS.ErrnoException;
  return err?.message ?? String(e);
}

export function createReloader(opts: ReloaderOptions): Reloader {
  const debounceMs = opts.debounceMs ?? 300;
  let running: Promise<void> | undefined;
  let again: string | undefined;

  async function loadAndSwap(reason: string): Promise<void> {
    const started = performance.now();
    let engine: Engine;
    try {
      engine = await opts.load();
    } catch (e) {
      opts.log(`tq: reload (${reason}) failed, still serving the previous data: ${describeFailure(e)}`);
      return;
    }
    opts.swap(engine);
    const c = engine.store.counts();
    opts.log(`tq: reloaded ${opts.path} (${reason}) in ${(performance.now() - started).toFixed(0)} ms: ${c.projects} projects, ${c.calls} calls, ${c.tables} tables, ${c.objects} objects` + ' (writes received over HTTP since the last load are not carried over)');
  }

  function reload(reason: string): Promise<void> {
    if (running) {
      again = reason;
      return running;
    }
    running = (async () => {
      let next: string | undefined = reason;
      while (next !== undefined) {
        again = undefined;
        await loadAndSwap(next);
        next = again;
      }
      running = undefined;
    })();
    return running;
  }

  function startWatching(): () => void {
    const isDir = statSync(opts.path).isDirectory();
    const dir = isDir ? opts.path : dirname(opts.path);
    const wanted = (name: string) => (isDir ? FIXTURE_FILE.test(name) : name === basename(opts.path));
    let timer: NodeJS.Timeout | undefined;
    let changed = new Set<string>();
    const changedNow = (name: string) => {
      changed.add(name);
      clearTimeout(timer);
      timer = setTimeout(() => {
        const names = [...changed].sort().join(', ');
        changed = new Set();
        if (isDir) rearm();
        void reload(`${names} changed`);
      }, debounceMs);
    };
    const onError = (e: Error) => opts.log(`tq: --watch stopped: ${e.message}`);

    // The directory is watched, not the files: editors and tq gen replace files by renaming.
    const watchFiles = (): FSWatcher =>
      watch(dir, (_event, name) => {
        if (name !== null && wanted(String(name))) changedNow(String(name));
      }).on('error', onError);
    let files = watchFiles();
    let watchedIno = statSync(dir).ino;
    // A fixtures folder replaced as a whole (tq gen --force renames a new one into place) is a
    // new inode: its parent tells, and the file watcher moves to the new folder.
    function rearm(): void {
      let ino: number;
      try {
        ino = statSync(dir).ino;
      } catch {
        return; // gone for now; the next event in the parent re-arms
      }
      if (ino === watchedIno) return;
      files.close();
      files = watchFiles();
      watchedIno = ino;
    }
    const parent = isDir ? watch(dirname(dir), (_event, name) => name === basename(dir) && changedNow(basename(dir))).on('error', onError) : undefined;
    return () => {
      clearTimeout(timer);
      files.close();
      parent?.close();
    };
  }

  return { reload, watch: startWatching };
}
