/**
 * Loading fixtures through a load snapshot (docs/loading.md, "Load snapshots"). The calls file is the
 * bulk of every load, feedback the next; when a valid snapshot of what loading them produced
 * exists, the call tables and feedback rows are restored from it; the tables, objects and costs
 * files (the kinds whose registry entry says `image`) each restore from a snapshot of their own
 * (kind-image.ts), in the usual order. Otherwise the files load normally and snapshots are
 * written for the next process. Never stale: the
 * key (key.ts) covers the calls file and the code, the feedback rows carry their file's
 * identity, and any doubt is a normal load.
 */
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { Engine } from '../../api/types.ts';
import { arenaRegionBytes, dataRegionBytes, encodeCallTables, restoreFeedback, SnapshotDamagedError } from '../../store/snapshot.ts';
import { Store } from '../../store/store.ts';
import { FIXTURE_KINDS, loadFixtureFiles, type FixtureFile, type LoadProgress, type LoadReport } from '../load-fixtures.ts';
import { FIXTURE_KIND_REGISTRY, isFixtureKind, type FixtureKind } from '../../load/fixture-kinds.ts';
import { cacheBound, cacheDirProblem, diskRoom, evictSnapshots, touchSnapshot, type SnapshotSettings } from './cache.ts';
import { readSnapshotFile, writeSnapshotFile } from './file.ts';
import { isImagedKind, loadFileThroughImage, type ImageOutcome } from './kind-image.ts';
import { fileIdentity, sameIdentity, snapshotFileName, snapshotKey, type FileIdentity, type SnapshotKey } from './key.ts';

/** What happened to the snapshot on one load (for logs, tests and the bench). */
export type SnapshotOutcome =
  | { status: 'off'; reason: string }
  | { status: 'restored'; file: string; bytes: number; ms: number; feedback: boolean }
  | { status: 'written'; file: string; bytes: number; ms: number; feedback: boolean }
  | { status: 'not-written'; reason: string };

export interface SnapshotLoadReport extends LoadReport {
  snapshot: SnapshotOutcome;
  /** The tables, objects and costs files' own snapshots (kind-image.ts), in load order. */
  images: ImageOutcome[];
}

/** A fixture file changed this recently may change again within its mtime's resolution. */
const RACY_MS = 2000;

/** Notices said already by this process (a skipped snapshot is said once, not on every reload). */
const said = new Set<string>();
function once(notices: string[], notice: string): void {
  if (said.has(notice)) return;
  said.add(notice);
  notices.push(notice);
}

/** A file of a kind, not one that feeds a kind (FEEDING_FILE_REGISTRY: OTLP traces are converted on every load, never kept in a snapshot). */
type KindFile = FixtureFile & { kind: FixtureKind };
const isKindFile = (f: FixtureFile): f is KindFile => isFixtureKind(f.kind);
const roleOf = (f: KindFile) => FIXTURE_KIND_REGISTRY[f.kind].snapshot;

/**
 * Loads `files` into `engine.store` (which must be empty for a snapshot to be used), through a
 * snapshot when `settings` allow. Problems with a snapshot are notices, never errors: the load
 * then goes the normal way. The snapshot belongs to the calls file: a load of any subset of a
 * directory's kinds restores the call tables from it, the feedback rows too when it holds those
 * of the feedback file as it is now; each other file goes through its own image.
 */
export async function loadFixtureFilesWithSnapshot(
  engine: Engine,
  source: string,
  files: readonly FixtureFile[],
  settings: SnapshotSettings,
  onProgress?: (p: LoadProgress) => void,
  now: () => number = Date.now,
): Promise<SnapshotLoadReport> {
  const plain = async (outcome: SnapshotOutcome, notices: string[] = []): Promise<SnapshotLoadReport> => {
    const report = await loadFixtureFiles(engine, source, files, onProgress);
    return { ...report, notices: [...notices, ...report.notices], snapshot: outcome, images: [] };
  };
  if (!settings.enabled) return plain({ status: 'off', reason: 'turned off' });
  if (!files.every(isKindFile)) return plain({ status: 'off', reason: 'OTLP traces are converted on every load' });
  const order = files.map((f) => FIXTURE_KINDS.indexOf(f.kind));
  if (order.some((k, i) => i > 0 && k <= order[i - 1])) return plain({ status: 'off', reason: 'fixture files not in load order' });
  if (engine.store.projects.size !== 0 || engine.store.prices.length !== 0) return plain({ status: 'off', reason: 'store not empty' });
  const refused = cacheDirProblem(settings.dir);
  if (refused !== null) {
    const notices: string[] = [];
    once(notices, `snapshot cache not used: ${refused}`);
    return plain({ status: 'off', reason: refused }, notices);
  }
  // The tables, objects and costs files go through images of their own (kind-image.ts).
  const images: ImageOutcome[] = [];
  const imageNotices: string[] = [];
  const loadFile = async (f: KindFile): Promise<LoadReport> => {
    if (!isImagedKind(f.kind)) return loadFixtureFiles(engine, source, [f], onProgress);
    const r = await loadFileThroughImage(engine, source, { file: f.file, kind: f.kind }, settings, (notice) => once(imageNotices, notice), onProgress, now);
    images.push(r.image);
    return r;
  };
  const withoutCallsSnapshot = async (outcome: SnapshotOutcome): Promise<SnapshotLoadReport> => {
    const reports: LoadReport[] = [];
    for (const f of files) reports.push(await loadFile(f));
    return { source, files: reports.flatMap((r) => r.files), notices: [...reports.flatMap((r) => r.notices), ...imageNotices], snapshot: outcome, images };
  };
  if (files[0] === undefined || roleOf(files[0]) !== 'calls') return withoutCallsSnapshot({ status: 'off', reason: 'no calls file' });
  if (statSync(files[0].file).size < settings.minBytes) return withoutCallsSnapshot({ status: 'off', reason: `calls file under ${settings.minBytes} bytes` });
  const key = snapshotKey(files, engine.options.fieldPrefix);
  if (key.code === null) return plain({ status: 'off', reason: 'the running code has no build stamp' });
  const path = join(settings.dir, snapshotFileName(key));
  const feedbackFile = files.find((f) => roleOf(f) === 'feedback');

  const started = performance.now();
  const restored = new Store();
  const read = readSnapshotFile(path, key, restored);
  if (existsSync(settings.dir)) sweepOrphans(settings.dir, path);
  const damage = read.kind === 'restored' && settings.readBodies === true ? damageIn(restored) : null;
  if (read.kind === 'restored' && damage === null) {
    for (const [id, project] of restored.projects) engine.store.projects.set(id, project);
    const ms = performance.now() - started;
    touchSnapshot(path);
    const feedbackNow = feedbackFile === undefined ? null : fileIdentity(feedbackFile.kind, feedbackFile.file);
    const useFeedback = read.feedback !== null && sameIdentity(read.feedbackSource, feedbackNow);
    const reports: LoadReport['files'] = [];
    const notices: string[] = [];
    for (const f of files) {
      const role = roleOf(f);
      if (role === 'calls') reports.push({ file: f.file, kind: f.kind, records: [...restored.projects.values()].reduce((n, p) => n + p.calls.size, 0) });
      else if (role === 'feedback' && useFeedback) {
        restoreFeedback(read.feedback!, engine.store);
        reports.push({ file: f.file, kind: f.kind, records: read.feedback!.reduce((n, x) => n + x.count, 0) });
      } else {
        const r = await loadFile(f);
        reports.push(...r.files);
        notices.push(...r.notices);
      }
    }
    return { source, files: reports, notices: [...notices, ...imageNotices], snapshot: { status: 'restored', file: path, bytes: read.bytes, ms, feedback: useFeedback }, images };
  }
  const notices = read.kind === 'invalid' ? [`snapshot ${path} ignored (${read.reason}); loading the fixture files`] : damage !== null ? [`${damage}; loading the fixture files`] : [];

  const reports: LoadReport[] = [];
  // Feedback records without id or created_at draw fresh ones on every load: not frozen.
  let drew = false;
  for (const f of files) {
    if (roleOf(f) !== 'feedback') {
      reports.push(await loadFile(f));
      continue;
    }
    const options = engine.options;
    const { newId, now: clock } = options;
    options.newId = () => ((drew = true), newId());
    options.now = () => ((drew = true), clock());
    try {
      reports.push(await loadFile(f));
    } finally {
      options.newId = newId;
      options.now = clock;
    }
  }
  const feedbackSource = feedbackFile !== undefined && !drew ? fileIdentity(feedbackFile.kind, feedbackFile.file) : null;
  const snapshot = writeFor(engine, key, feedbackSource, path, settings, now);
  if (snapshot.status === 'not-written' && /^cannot|larger than/.test(snapshot.reason)) once(notices, `snapshot not written: ${snapshot.reason}`);
  return { source, files: reports.flatMap((r) => r.files), notices: [...notices, ...reports.flatMap((r) => r.notices), ...imageNotices], snapshot, images };
}

/**
 * Reads and checks every body a restore left in the file; the damage found (the snapshot is
 * then removed), or null.
 */
function damageIn(restored: Store): string | null {
  try {
    for (const project of restored.projects.values()) project.calls.readRestoredBodies();
    return null;
  } catch (e) {
    if (e instanceof SnapshotDamagedError) return e.message;
    throw e;
  }
}

/** Removes the snapshots whose calls file is gone (never `keep`, the one in use). */
function sweepOrphans(dir: string, keep: string): void {
  try {
    evictSnapshots(dir, Infinity, basename(keep));
  } catch {
    // A cache that cannot be read is the next write's problem (and said then).
  }
}

function writeFor(engine: Engine, key: SnapshotKey, feedbackSource: FileIdentity | null, path: string, settings: SnapshotSettings, now: () => number): SnapshotOutcome {
  const started = performance.now();
  for (const f of feedbackSource === null ? key.files : [...key.files, feedbackSource]) {
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
    const encoded = encodeCallTables(engine.store, feedbackSource !== null);
    const size = dataRegionBytes(encoded.layout) + arenaRegionBytes(encoded.layout);
    mkdirSync(settings.dir, { recursive: true, mode: 0o700 });
    const bound = cacheBound(settings, size, diskRoom(settings.dir));
    if (size > bound) return { status: 'not-written', reason: `the snapshot of ${key.files[0].path} (${size} bytes) would be larger than the cache bound (${bound} bytes; TQ_SNAPSHOT_MAX_BYTES sets it)` };
    const bytes = writeSnapshotFile(path, key, encoded, feedbackSource);
    evictSnapshots(settings.dir, bound, snapshotFileName(key));
    return { status: 'written', file: path, bytes, ms: performance.now() - started, feedback: feedbackSource !== null };
  } catch (e) {
    return { status: 'not-written', reason: `cannot write ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}` };
  }
}
