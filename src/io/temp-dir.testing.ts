/**
 * Temporary folders for tests, removed when the test process exits: a run leaves nothing in
 * the temp directory, whether its tests pass, fail or stop half-way (the folders of a process
 * killed by a signal are the only ones left).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const made: string[] = [];

function removeAll(): void {
  for (const dir of made.splice(0)) {
    // A child process may still be writing into it: retry, and never fail the run over it.
    try {
      rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
    } catch {
      /* left for the system's temp cleaner */
    }
  }
}

/** A fresh folder under os.tmpdir(), named `prefix` + random characters; removed at exit. */
export function tempDir(prefix = 'tq-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  if (made.length === 0) process.once('exit', removeAll);
  made.push(dir);
  return dir;
}
