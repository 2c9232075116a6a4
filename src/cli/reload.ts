/**
 * Reloading `tq serve`'s data: on SIGHUP, and with `--watch` when a fixture file changes
 * (debounced, so an editor's or `tq gen`'s burst of writes is one reload). The new data is
 * loaded into a fresh engine while the old one keeps serving; only a complete load is swapped
 * in (requests already running finish on the old data). A load that fails (a bad line: the
 * log names file:line) keeps the old data. Reloads never overlap: a change during a reload
 * schedules one more.
 *
 * A file still being written is not served as the whole data set (issue 22 §5): after the quiet
 * time, --watch reloads only when every watched file has kept its size and mtime for one more
 * quiet time, and every plain `.jsonl` file ends with a newline (a half-written line is a
 * change still under way: it is said once, the next change reloads). A `.jsonl.gz` cut short
 * fails to load and keeps the old data. A writer that pauses longer than that between whole
 * lines is still seen in part: write elsewhere and rename into place (as `tq gen` does).
 * SIGHUP reloads at once, without these checks.
 */
import { closeSync, openSync, readdirSync, readSync, statSync, watch, type FSWatcher } from 'node:fs';
import { basename, dirname, join } from 'node:path';
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

/** `size:mtime` of each watched file (a file that vanished between listing and stat is left out). */
function fileStates(paths: readonly string[]): Map<string, string> {
  const states = new Map<string, string>();
  for (const path of paths) {
    try {
      const st = statSync(path);
      states.set(path, `${st.size}:${st.mtimeMs}`);
    } catch {
      // gone for now: the change that removed it is its own event
    }
  }
  return states;
}

const sameStates = (a: Map<string, string>, b: Map<string, string>) => a.size === b.size && [...a].every(([path, state]) => b.get(path) === state);

/** Whether a non-empty plain JSON Lines file ends in the middle of a line. */
function endsMidLine(path: string): boolean {
  if (path.endsWith('.gz')) return false;
  let fd: number | undefined;
  try {
    const size = statSync(path).size;
    if (size === 0) return false;
    fd = openSync(path, 'r');
    const last = Buffer.alloc(1);
    readSync(fd, last, 0, 1, size - 1);
    return last[0] !== 0x0a;
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
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
    const watchedFiles = (): string[] => {
      if (!isDir) return [opts.path];
      try {
        return readdirSync(dir)
          .filter((name) => FIXTURE_FILE.test(name))
          .map((name) => join(dir, name));
      } catch {
        return [];
      }
    };
    let timer: NodeJS.Timeout | undefined;
    let changed = new Set<string>();
    let stopped = false;
    /** The half-written file last reported, so a writer's every chunk does not repeat it. */
    let reportedMidLine: string | undefined;
    const changedNow = (name: string) => {
      changed.add(name);
      clearTimeout(timer);
      timer = setTimeout(() => {
        if (isDir) rearm();
        const before = fileStates(watchedFiles());
        // One more quiet time, measured on the files themselves (events can be coalesced or late).
        timer = setTimeout(() => {
          if (stopped) return;
          const files = watchedFiles();
          if (!sameStates(before, fileStates(files))) {
            // Still changing: wait again, as for a new change of the same files.
            changedNow([...changed][0] ?? basename(opts.path));
            return;
          }
          const midLine = files.find(endsMidLine);
          if (midLine !== undefined) {
            if (reportedMidLine !== midLine) opts.log(`tq: --watch: ${midLine} ends in the middle of a line (still being written?); not reloaded until it ends with a newline`);
            reportedMidLine = midLine;
            return;
          }
          reportedMidLine = undefined;
          const names = [...changed].sort().join(', ');
          changed = new Set();
          void reload(`${names} changed`);
        }, debounceMs);
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
      stopped = true;
      clearTimeout(timer);
      files.close();
      parent?.close();
    };
  }

  return { reload, watch: startWatching };
}
