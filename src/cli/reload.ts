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
    // The directory is watched, not the files: editors and tq gen replace files by renaming.
    const watcher: FSWatcher = watch(dir, (_event, name) => {
      if (name === null || !wanted(String(name))) return;
      changed.add(String(name));
      clearTimeout(timer);
      timer = setTimeout(() => {
        const names = [...changed].sort().join(', ');
        changed = new Set();
        void reload(`${names} changed`);
      }, debounceMs);
    });
    watcher.on('error', (e) => opts.log(`tq: --watch stopped: ${e.message}`));
    return () => {
      clearTimeout(timer);
      watcher.close();
    };
  }

  return { reload, watch: startWatching };
}
