/**
 * Loading fixtures through a load snapshot (README, "Load snapshots"). The calls file is the
 * bulk of every load; when a valid snapshot of what loading it produced exists, the call tables
 * are restored from it instead, and the other fixture files load as always. Otherwise the calls
 * file loads normally and a snapshot is written for the next process. Never stale: the key
 * (key.ts) covers everything that changes the result, and any doubt is a normal load.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Engine } from '../../api/types.ts';
import { arenaRegionBytes, dataRegionBytes, encodeCallTables } from '../../store/snapshot.ts';
import { Store } from '../../store/store.ts';
import { loadFixtureFiles, type FixtureFile, type LoadProgress, type LoadReport } from '../load-fixtures.ts';
import { evictSnapshots, touchSnapshot, type SnapshotSettings } from './cache.ts';
import { readSnapshotFile, writeSnapshotFile } from './file.ts';
import { fileIdentity, snapshotFileName, snapshotKey } from './key.ts';

/** What happened to the snapshot on one load (for logs, tests and the bench). */
export type SnapshotOutcome =
  | { status: 'off'; reason: string }
  | { status: 'restored'; file: string; bytes: number; ms: number }
  | { status: 'written'; file: string; bytes: number; ms: number }
  | { status: 'not-written'; reason: string };

export interface SnapshotLoadReport extends LoadReport {
  snapshot: SnapshotOutcome;
}

/** A calls file changed this recently may change again within its mtime's resolution. */
const RACY_MS = 2000;

/**
 * Loads `files` into `engine.store` (which must be empty for a snapshot to be used), through a
 * snapshot of the calls file when `settings` allow. Problems with a snapshot are notices, never
 * errors: the load then goes the normal way.
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
  // Calls load first (as fixtureFilesIn orders them): other kinds then see the same store.
  const calls = files[0]?.kind === 'calls' ? files[0] : undefined;
  if (calls === undefined) return plain({ status: 'off', reason: 'no calls file' });
  if (engine.store.projects.size !== 0 || engine.store.prices.length !== 0) return plain({ status: 'off', reason: 'store not empty' });
  const key = snapshotKey(calls.file, engine.options.fieldPrefix);
  if (Number(key.calls.size) < settings.minBytes) return plain({ status: 'off', reason: `calls file under ${settings.minBytes} bytes` });
  const path = join(settings.dir, snapshotFileName(key));
  const rest = files.slice(1);
  const notices: string[] = [];

  const started = performance.now();
  const restored = new Store();
  const read = readSnapshotFile(path, key, restored);
  if (read.kind === 'restored') {
    for (const [id, project] of restored.projects) engine.store.projects.set(id, project);
    const ms = performance.now() - started;
    touchSnapshot(path);
    const report = await loadFixtureFiles(engine, source, rest, onProgress);
    const records = [...restored.projects.values()].reduce((n, p) => n + p.calls.size, 0);
    return { ...report, files: [{ file: calls.file, kind: 'calls', records }, ...report.files], snapshot: { status: 'restored', file: path, bytes: read.bytes, ms } };
  }
  if (read.kind === 'invalid') notices.push(`snapshot ${path} ignored (${read.reason}); loading ${calls.file}`);

  const callsReport = await loadFixtureFiles(engine, source, [calls], onProgress);
  const snapshot = writeFor(engine, key, calls.file, path, settings, now);
  if (snapshot.status === 'not-written' && snapshot.reason.startsWith('cannot')) notices.push(`snapshot not written: ${snapshot.reason}`);
  const report = await loadFixtureFiles(engine, source, rest, onProgress);
  return { source, files: [...callsReport.files, ...report.files], notices: [...notices, ...callsReport.notices, ...report.notices], snapshot };
}

function writeFor(engine: Engine, key: ReturnType<typeof snapshotKey>, callsFile: string, path: string, settings: SnapshotSettings, now: () => number): SnapshotOutcome {
  const started = performance.now();
  let after;
  try {
    after = fileIdentity(callsFile);
  } catch (e) {
    return { status: 'not-written', reason: `calls file gone: ${(e as Error).message}` };
  }
  if (JSON.stringify(after) !== JSON.stringify(key.calls)) return { status: 'not-written', reason: 'the calls file changed while loading' };
  if (now() - Number(BigInt(key.calls.mtimeNs) / 1_000_000n) < RACY_MS) return { status: 'not-written', reason: 'the calls file was modified less than 2 s ago' };
  try {
    const encoded = encodeCallTables(engine.store);
    const size = dataRegionBytes(encoded.layout) + arenaRegionBytes(encoded.layout);
    if (size > settings.maxCacheBytes) return { status: 'not-written', reason: `the snapshot (${size} bytes) would be larger than the cache bound (${settings.maxCacheBytes})` };
    mkdirSync(settings.dir, { recursive: true, mode: 0o700 });
    const bytes = writeSnapshotFile(path, key, encoded);
    evictSnapshots(settings.dir, settings.maxCacheBytes, snapshotFileName(key));
    return { status: 'written', file: path, bytes, ms: performance.now() - started };
  } catch (e) {
    return { status: 'not-written', reason: `cannot write ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}` };
  }
}
