/**
 * The helper thread of long first-use walks (core/json/path-walk.ts, RowMemberWalk.split): one
 * worker (path-walk-worker.ts), started on the first walk that is split, kept for the process
 * but unref'd (it never keeps a process alive). A walk never waits for it to start: rows it has
 * not claimed yet are walked by the calling thread.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { setPathWalkHelper, type PathWalkJob } from '../core/json/path-walk.ts';

let worker: Worker | null = null;

/** Lets long first-use walks use a second thread (`TQ_PATH_WALK_HELPER=0` keeps them on one). */
export function installPathWalkHelper(): void {
  if (process.env.TQ_PATH_WALK_HELPER === '0') return;
  setPathWalkHelper(postPathWalkJob);
}

/** Posts `job` to the helper worker, started on the first job. */
export function postPathWalkJob(job: PathWalkJob): void {
  if (worker === null) {
    worker = startWorker();
    worker.unref();
    // A helper that fails stops being used; blocks it had not claimed are the caller's anyway.
    worker.on('error', () => {
      setPathWalkHelper(null);
      worker = null;
    });
  }
  worker.postMessage(job);
}

/**
 * From the build, path-walk-worker.js; from the sources, the build's when it is current, else
 * the source through tsx (registered by a bootstrap: a worker does not inherit the loader).
 * The test suite (TQ_FROM_SOURCE=1) runs the sources.
 */
function startWorker(): Worker {
  if (!import.meta.url.endsWith('.ts')) return new Worker(new URL('./path-walk-worker.js', import.meta.url));
  const built = process.env.TQ_FROM_SOURCE === '1' ? null : currentBuiltWorker();
  if (built) return new Worker(built);
  const source = new URL('./path-walk-worker.ts', import.meta.url);
  const tsx = import.meta.resolve('tsx/esm/api');
  const bootstrap = `import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(source.href)}); });`;
  return new Worker(bootstrap, { eval: true });
}

/** dist/io/path-walk-worker.js when dist/ holds a build newer than every source file. */
function currentBuiltWorker(): URL | null {
  const root = new URL('../../', import.meta.url);
  const stamp = new URL('dist/BUILT', root);
  const built = new URL('dist/io/path-walk-worker.js', root);
  if (!existsSync(stamp) || !existsSync(built)) return null;
  const builtAt = Number(readFileSync(stamp, 'utf8'));
  const src = fileURLToPath(new URL('src/', root));
  for (const entry of readdirSync(src, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.ts') || entry.name.endsWith('.test.ts')) continue;
    if (statSync(join(entry.parentPath ?? (entry as { path?: string }).path ?? src, entry.name)).mtimeMs > builtAt) return null;
  }
  return built;
}
