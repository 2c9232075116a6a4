/**
 * Test support for corpus-wide differential tests of loading (lazy-kinds.test.ts,
 * kind-images.test.ts): a conformance target that runs each case on an empty engine and, for a
 * query case, writes the data its setup left as fixture files (as `tq dump` writes them) to a
 * scratch folder and hands that folder and the request to `compare` before answering the case
 * itself.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CaseRequest, ConformanceCase } from '../src/check/case.ts';
import { createEngineTarget } from '../src/check/engine-target.ts';
import { TRANSPORT_TAG, type Target } from '../src/check/target.ts';
import { createEngine } from '../src/engine.ts';
import type { Engine } from '../src/api/types.ts';
import { snapshot, SnapshotError, type Snapshot } from '../src/journal/snapshot.ts';
import { FIXTURE_KINDS } from '../src/load/fixture-kinds.ts';

/** An engine with a fixed clock and counted ids, so that two loads of one folder agree. */
export function freshEngine(): Engine {
  let id = 0;
  return createEngine(undefined, { now: () => 1.9e15, newId: () => `00000000-0000-7000-8000-${String(++id).padStart(12, '0')}` });
}

export interface DumpedCaseOptions {
  name: string;
  /** The request paths compared; every other case is skipped with `skipReason`. */
  queryPaths: ReadonlySet<string>;
  skipReason: string;
  /** Compares loads of `dir` for the case `caseName`; the folder is removed afterwards. */
  compare(dir: string, req: CaseRequest, caseName: string, lines: Snapshot['lines']): Promise<void>;
  /** The case's data cannot be written as fixture files (the case is answered, not compared). */
  notDumpable?(caseName: string): void;
}

export function dumpedCaseTarget(options: DumpedCaseOptions): Target & { cleanup(): void } {
  const scratch = mkdtempSync(join(tmpdir(), `tq-${options.name}-`));
  let inner = createEngineTarget();
  let current = '';
  let dirs = 0;
  return {
    ...inner,
    name: options.name,
    cleanup: () => rmSync(scratch, { recursive: true, force: true }),
    skipReason(c: ConformanceCase) {
      current = c.name;
      inner = createEngineTarget();
      if (c.tags.includes(TRANSPORT_TAG) || !options.queryPaths.has(c.request.path)) return options.skipReason;
      return undefined;
    },
    async send(req: CaseRequest) {
      if (!options.queryPaths.has(req.path)) return inner.send(req);
      let lines;
      try {
        lines = snapshot(inner.engine.store).lines;
      } catch (e) {
        if (!(e instanceof SnapshotError)) throw e;
        options.notDumpable?.(current);
        return inner.send(req);
      }
      const dir = join(scratch, `case-${++dirs}`);
      mkdirSync(dir);
      for (const kind of FIXTURE_KINDS) if (lines[kind].length > 0) writeFileSync(join(dir, `${kind}.jsonl`), lines[kind].join('\n') + '\n');
      try {
        await options.compare(dir, req, current, lines);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
      return inner.send(req);
    },
  };
}
