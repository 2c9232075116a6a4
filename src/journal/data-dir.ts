/**
 * The data directory of `tq serve --data DIR` (docs/semantics.md#durability):
 *
 *   DIR/calls.jsonl … costs.jsonl[.gz]   the base: a fixtures directory, loaded as --fixtures is
 *   DIR/base.journal.jsonl               records replayed right after the base (written by
 *                                        compaction for what fixture files cannot hold)
 *   DIR/journal-000001.jsonl …           journal segments, replayed in order on the base
 *   DIR/tq.lock                          pid of the process that writes DIR
 *   DIR/compact.tmp/                     a compaction being written (discarded on start)
 *   DIR/compact.ready/                   a committed compaction not yet moved into place
 *
 * Opening DIR for writing takes the lock, finishes or discards an interrupted compaction,
 * loads, replays, and cuts a torn last record off the newest segment. Opening it read-only
 * (CLI commands) changes nothing: it reads the same view, skipping a torn tail.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, unlinkSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { Engine, FieldPrefix } from '../api/types.ts';
import { createEngine } from '../engine.ts';
import { fixtureFilesIn, FIXTURE_KINDS as KINDS, loadFixtureFiles, type FixtureFile, type LoadProgress } from '../io/load-fixtures.ts';
import type { SnapshotSettings } from '../io/snapshot/cache.ts';
import { loadFixtureFilesWithSnapshot } from '../io/snapshot/load.ts';
import { replayRecord } from './apply.ts';
import { acquireLock } from './lock.ts';
import { JournalError, readJournal } from './read.ts';
import { syncDir } from './sync-dir.ts';

export const COMPACT_TMP = 'compact.tmp';
export const COMPACT_READY = 'compact.ready';
export const MANIFEST = 'manifest.json';
export const BASE_JOURNAL = 'base.journal.jsonl';
const SEGMENT = /^journal-(\d{6,})\.jsonl$/;

export const segmentName = (seq: number) => `journal-${String(seq).padStart(6, '0')}.jsonl`;

/** The sequence number of a segment file; 0 for the base journal. */
export const segmentSeq = (file: string) => Number(SEGMENT.exec(basename(file))?.[1] ?? 0);

interface Segment {
  seq: number;
  file: string;
}

/** Journal segments of `dir`, oldest first. */
function segmentsOf(dir: string): Segment[] {
  return readdirSync(dir)
    .map((name) => SEGMENT.exec(name))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ seq: Number(m[1]), file: join(dir, m[0]) }))
    .sort((a, b) => a.seq - b.seq);
}

/** The committed compaction's manifest: it covers segments up to `through`. */
function readManifest(dir: string): { through: number } | null {
  const file = join(dir, COMPACT_READY, MANIFEST);
  if (!existsSync(file)) return null;
  const m = JSON.parse(readFileSync(file, 'utf8')) as { through: number };
  return { through: m.through };
}

/**
 * What DIR holds now: the base fixture files and the segments to replay. While a committed
 * compaction is being moved into place, a kind still in compact.ready comes from there, and
 * the segments it covers are skipped.
 */
export function currentView(dir: string): { fixtures: FixtureFile[]; journals: string[] } {
  const manifest = readManifest(dir);
  const base = fixtureFilesIn(dir);
  const ownBase = join(dir, BASE_JOURNAL);
  if (manifest === null) {
    const segments = segmentsOf(dir).map((s) => s.file);
    return { fixtures: base, journals: existsSync(ownBase) ? [ownBase, ...segments] : segments };
  }
  const readyDir = join(dir, COMPACT_READY);
  const ready = fixtureFilesIn(readyDir);
  const fixtures = KINDS.flatMap((kind) => ready.filter((f) => f.kind === kind).concat(ready.some((f) => f.kind === kind) ? [] : base.filter((f) => f.kind === kind)));
  const readyBase = join(readyDir, BASE_JOURNAL);
  const baseJournal = existsSync(readyBase) ? readyBase : ownBase;
  const segments = segmentsOf(dir).filter((s) => s.seq > manifest.through).map((s) => s.file);
  return { fixtures, journals: existsSync(baseJournal) ? [baseJournal, ...segments] : segments };
}


/**
 * Moves a committed compaction into place (idempotent: a crash half-way is finished by the
 * next start). Each kind replaces its old file (.jsonl or .jsonl.gz); then the segments it
 * covers are deleted, then compact.ready.
 */
export async function finishCompaction(dir: string): Promise<void> {
  const manifest = readManifest(dir);
  if (manifest === null) return;
  const ready = join(dir, COMPACT_READY);
  // A compaction writes every kind and the base journal, so "still in compact.ready" always
  // means "not moved yet" (currentView relies on it).
  for (const { file, kind } of fixtureFilesIn(ready)) {
    rmSync(join(dir, `${kind}.jsonl.gz`), { force: true });
    renameSync(file, join(dir, `${kind}.jsonl`));
  }
  if (existsSync(join(ready, BASE_JOURNAL))) renameSync(join(ready, BASE_JOURNAL), join(dir, BASE_JOURNAL));
  await syncDir(dir);
  for (const s of segmentsOf(dir)) if (s.seq <= manifest.through) unlinkSync(s.file);
  rmSync(ready, { recursive: true, force: true });
  await syncDir(dir);
}

export interface OpenedData {
  engine: Engine;
  /** Journal records replayed. */
  replayed: number;
  /** The newest segment and its valid length (where the next record goes). */
  active: { file: string; seq: number; length: number };
  /** Releases the lock (writable opens only). */
  release: () => void;
  /** Why DIR cannot be written, when it cannot (writes then answer 503). */
  readOnly?: Error;
  /**
   * A record that could not be read or replayed: the engine holds every record before it, DIR is
   * left exactly as it is, and the open is read-only (`tq journal quarantine` is the way on).
   */
  stoppedAt?: JournalError;
}

/** What a start says when a record stops the replay: which record, why, and the way forward. */
function stoppedAtAdvice(dir: string, e: JournalError, writable: boolean): string {
  return (
    `journal: ${e.message}. ${writable ? 'Serving the records before it, read-only (writes answer 503)' : 'Reading only the records before it'}; nothing in ${dir} was changed. ` +
    `Inspect it with \`tq journal show ${dir} ${basename(e.file)}:${e.line}\`; set it aside with \`tq journal quarantine ${dir} ${basename(e.file)}:${e.line}\` ` +
    `(it moves to ${dir}/quarantine/, and the next start replays the records after it)`
  );
}

export interface OpenOptions {
  fieldPrefix: FieldPrefix;
  /** Take the lock, repair (torn tail, interrupted compaction) and prepare for appends. */
  writable: boolean;
  /** Human messages (the torn-tail report). */
  say: (message: string) => void;
  onProgress?: (p: LoadProgress) => void;
  /** Load the calls file through a load snapshot (src/io/snapshot/); the journal replays after it. */
  snapshot?: SnapshotSettings;
}

/** Loads DIR's fixtures and replays its journal into a new engine. */
export async function openDataDir(dir: string, opts: OpenOptions): Promise<OpenedData> {
  // Private, like the snapshot cache: traces are not for every user of the machine (umask aside).
  if (opts.writable) mkdirSync(dir, { recursive: true, mode: 0o700 });
  else if (!existsSync(dir) || !statSync(dir).isDirectory()) throw Object.assign(new Error(`no such data directory: ${dir}`), { code: 'ENOENT' });
  let release = () => {};
  let readOnly: Error | undefined;
  if (opts.writable) {
    try {
      release = acquireLock(dir);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code !== 'EROFS' && code !== 'EACCES' && code !== 'EPERM') throw e;
      // Nothing can be written to DIR, so nothing can conflict: serve it read-only.
      readOnly = e as Error;
    }
  }
  const repair = opts.writable && readOnly === undefined;
  try {
    if (repair) {
      rmSync(join(dir, COMPACT_TMP), { recursive: true, force: true });
      await finishCompaction(dir);
    }
    const { fixtures, journals } = currentView(dir);
    const segments = journals.map((file) => ({ file, seq: segmentSeq(file) }));
    const engine = createEngine(undefined, { fieldPrefix: opts.fieldPrefix });
    if (opts.snapshot === undefined) await loadFixtureFiles(engine, dir, fixtures, opts.onProgress);
    else for (const notice of (await loadFixtureFilesWithSnapshot(engine, dir, fixtures, opts.snapshot, opts.onProgress)).notices) opts.say(notice);
    let replayed = 0;
    let newest: OpenedData['active'] | null = null;
    for (const [i, segment] of segments.entries()) {
      let scan;
      try {
        scan = await readJournal(segment.file, (record) => replayRecord(engine, record));
      } catch (e) {
        if (!(e instanceof JournalError)) throw e;
        // A record that cannot be replayed never bricks DIR: keep what came before it, change
        // nothing on disk (no repair, no truncation), and refuse writes until it is dealt with.
        opts.say(stoppedAtAdvice(dir, e, opts.writable));
        const active = newest ?? { file: join(dir, segmentName(1)), seq: 1, length: 0 };
        return { engine, replayed: replayed + e.line - 1, active, release, readOnly: e, stoppedAt: e };
      }
      replayed += scan.records;
      const last = i === segments.length - 1;
      if (scan.tornAt !== undefined) {
        if (!last) throw new JournalError(segment.file, scan.records + 1, `incomplete record at byte ${scan.tornAt} in a segment that is not the newest (only the newest can be torn by a crash)`);
        opts.say(
          repair
            ? `journal: dropped a torn last record at byte ${scan.tornAt}`
            : `journal: ignored an incomplete last record at byte ${scan.tornAt} of ${segment.file} (a write in progress, or a crash; tq serve --data cuts it off)`,
        );
      }
      // The base journal (seq 0) is never appended to.
      if (segment.seq > 0) newest = { file: segment.file, seq: segment.seq, length: scan.completeBytes };
    }
    const active = newest ?? { file: join(dir, segmentName(1)), seq: 1, length: 0 };
    if (repair && newest !== null) {
      const handle = await open(newest.file, 'r+');
      try {
        if ((await handle.stat()).size > newest.length) {
          await handle.truncate(newest.length);
          await handle.sync();
        }
      } finally {
        await handle.close();
      }
    }
    return { engine, replayed, active, release, ...(readOnly !== undefined ? { readOnly } : {}) };
  } catch (e) {
    release();
    throw e;
  }
}
