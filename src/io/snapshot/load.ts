/**
 * Loading fixtures through a load snapshot (README, "Load snapshots"). The calls file is the
 * bulk of every load, feedback the next; when a valid snapshot of what loading them produced
 * exists, the call tables and feedback rows are restored from it, and the other fixture files
 * (tables, objects, costs) load as always, in the usual order. Otherwise everything loads
 * normally and a snapshot is written for the next process. Never stale: the key (key.ts) covers
 * every fixture file and the code, and any doubt is a normal load.
 */
import { mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Engine } from '../../api/types.ts';
import { arenaRegionBytes, dataRegionBytes, encodeCallTables, restoreFeedback } from '../../store/snapshot.ts';
import { Store } from '../../store/store.ts';
import { FIXTURE_KINDS, loadFixtureFiles, type FixtureFile, type LoadProgress, type LoadReport } from '../load-fixtures.ts';
import { evictSnapshots, touchSnapshot, type SnapshotSettings } from './cache.ts';
import { readSnapshotFile, writeSnapshotFile } from './file.ts';
import { fileIdentity, snapshotFileName, snapshotKey, type SnapshotKey } from './key.ts';

/** What happened to the snapshot on one load (for logs, tests and the bench). */
export type SnapshotOutcome =
  | { status: 'off'; reason: string }
  | { status: 'restored'; file: string; bytes: number; ms: number; feedback: boolean }
  | { status: 'written'; file: string; bytes: number; ms: number; feedback: boolean }
  | { status: 'not-written'; reason: string };

export interface SnapshotLoadReport extends LoadReport {
  snapshot: SnapshotOutcome;
}

/** A fixture file changed this recently may change again within its mtime's resolution. */
const RACY_MS = 2000;

/**
 * Loads `files` into `engine.store` (which must be empty for a snapshot to be used), through a
 * snapshot when `settings` allow. Problems with a snapshot are notices, never errors: the load
 * then goes the normal way.
 */
export async function loadFixtureFilesWithSnapshot(
  engine: Engine,
  source: string,
  files: readonly FixtureFile[],
  settings: SnapshotSettings,
  onProgress?: (p: LoadProgress) => void,
  now: () => number = Date.now,
): Promise<SnapshotLoadReport> {
  const plain = async (outcome: SnapshotOutcome): Promise<SnapshotLoadReport> => ({ ...(await loadFixtureFiles(engine, source, files, onProgress)), snapshot: outcome });
  if (!settings.enabled) return plain({ status: 'off', reason: 'turned off' });
  if (files[0]?.kind !== 'calls') return plain({ status: 'off', reason: 'no calls file' });
  // Kinds outside FIXTURE_KINDS (OTLP traces) are -1: never in load order, so no snapshot.
  const order = files.map((f) => (FIXTURE_KINDS as readonly string[]).indexOf(f.kind));
  if (order.some((k, i) => i > 0 && k <= order[i - 1])) return plain({ status: 'off', reason: 'fixture files not in load order' });
  if (engine.store.projects.size !== 0 || engine.store.prices.length !== 0) return plain({ status: 'off', reason: 'store not empty' });
  if (statSync(files[0].file).size < settings.minBytes) return plain({ status: 'off', reason: `calls file under ${settings.minBytes} bytes` });
  const key = snapshotKey(files, engine.options.fieldPrefix);
  if (key.code === null) return plain({ status: 'off', reason: 'the running code has no build stamp' });
  const path = join(settings.dir, snapshotFileName(key));
  const load = (kinds: string[]) => loadFixtureFiles(engine, source, files.filter((f) => kinds.includes(f.kind)), onProgress);

  const started = performance.now();
  const restored = new Store();
  const read = readSnapshotFile(path, key, restored);
  if (read.kind === 'restored') {
    for (const [id, project] of restored.projects) engine.store.projects.set(id, project);
    const ms = performance.now() - started;
    touchSnapshot(path);
    const reports = [await load(['tables', 'objects'])];
    if (read.feedback !== null) restoreFeedback(read.feedback, engine.store);
    reports.push(await load(read.feedback === null ? ['feedback', 'costs'] : ['costs']));
    const records = (kind: string) =>
      kind === 'calls'
        ? [...restored.projects.values()].reduce((n, p) => n + p.calls.size, 0)
        : kind === 'feedback' && read.feedback !== null
          ? read.feedback.reduce((n, f) => n + f.count, 0)
          : reports.flatMap((r) => r.files).find((f) => f.kind === kind)!.records;
    return {
      source,
      files: files.map((f) => ({ file: f.file, kind: f.kind, records: records(f.kind) })),
      notices: reports.flatMap((r) => r.notices),
      snapshot: { status: 'restored', file: path, bytes: read.bytes, ms, feedback: read.feedback !== null },
    };
  }
  const notices = read.kind === 'invalid' ? [`snapshot ${path} ignored (${read.reason}); loading the fixture files`] : [];

  const reports = [await load(['calls', 'tables', 'objects'])];
  // Feedback records without id or created_at draw fresh ones on every load: not frozen.
  const options = engine.options;
  const { newId, now: clock } = options;
  let drew = false;
  options.newId = () => ((drew = true), newId());
  options.now = () => ((drew = true), clock());
  try {
    reports.push(await load(['feedback']));
  } finally {
    options.newId = newId;
    options.now = clock;
  }
  const snapshot = writeFor(engine, key, path, settings, !drew, now);
  if (snapshot.status === 'not-written' && snapshot.reason.startsWith('cannot')) notices.push(`snapshot not written: ${snapshot.reason}`);
  reports.push(await load(['costs']));
  const all = reports.flatMap((r) => r.files);
  return { source, files: files.map((f) => all.find((r) => r.file === f.file)!), notices: [...notices, ...reports.flatMap((r) => r.notices)], snapshot };
}

function writeFor(engine: Engine, key: SnapshotKey, path: string, settings: SnapshotSettings, withFeedback: boolean, now: () => number): SnapshotOutcome {
  const started = performance.now();
  for (const f of key.files) {
    let after;
    try {
      after = fileIdentity(f.kind, f.path);
    } catch (e) {
      return { status: 'not-written', reason: `${f.path} is gone: ${(e as Error).message}` };
    }
    if (JSON.stringify(after) !== JSON.stringify(f)) return { status: 'not-written', reason: `${f.path} changed while loading` };
    if (now() - Number(BigInt(f.mtimeNs) / 1_000_000n) < RACY_MS) return { status: 'not-written', reason: `${f.path} was modified less than 2 s ago` };
  }
  try {
    const encoded = encodeCallTables(engine.store, withFeedback);
    const size = dataRegionBytes(encoded.layout) + arenaRegionBytes(encoded.layout);
    if (size > settings.maxCacheBytes) return { status: 'not-written', reason: `the snapshot (${size} bytes) would be larger than the cache bound (${settings.maxCacheBytes})` };
    mkdirSync(settings.dir, { recursive: true, mode: 0o700 });
    const bytes = writeSnapshotFile(path, key, encoded);
    evictSnapshots(settings.dir, settings.maxCacheBytes, snapshotFileName(key));
    return { status: 'written', file: path, bytes, ms: performance.now() - started, feedback: withFeedback };
  } catch (e) {
    return { status: 'not-written', reason: `cannot write ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}` };
  }
}

