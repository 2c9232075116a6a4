/**
 * Load snapshots of the tables, objects and costs files: one **kind image** per fixture file
 * (docs/loading.md, "Load snapshots"). Loading a million-row table digests every row (about
 * 50 s for the bench's 145 MB one-line table); its image holds what that load stored (each
 * project's rows as digest and text, each table as indexes into them), so a repeat reads it back
 * instead. Objects keep every field of each version but the parsed value, which is parsed again
 * from the stored text (what the load does too, so the number spelling is the same); prices are
 * kept whole.
 *
 * An image is keyed like the calls snapshot (key.ts): its own file's real path, size, mtime,
 * ctime, inode and device, the field prefix, tq's version, the running code and the format; it
 * lives in the same cache under the same name scheme (`<hash>.tqsnap`), so `tq cache` lists it,
 * the bound counts it and it goes once its file is gone. The file is the calls snapshot's frame
 * (magic, format, header with its SHA-256) and then the image's parts, each a `node:v8`
 * serialization framed by its length and CRC-32, then a trailer with the part count; it is
 * written a part at a time, so writing holds one part's copy of the data, not the image's. Every part is read and checked before
 * anything is put in the store: a damaged image is removed, said once, and the fixture file is
 * loaded instead (and a new image written), never a wrong or partial answer.
 *
 * Used only when the store holds nothing of the kind yet (what a fixture load starts from), and
 * written only when the load drew no ids or times (a record without `id` or `created_at` gets
 * fresh ones on every load, so its file is loaded every time).
 */
import { closeSync, fsyncSync, mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { deserialize, serialize } from 'node:v8';
import type { Engine } from '../../api/types.ts';
import { parseExact } from '../../core/json/exact.ts';
import type { FIXTURE_KIND_REGISTRY, FixtureKind } from '../../load/fixture-kinds.ts';
import { crc32 } from '../../store/snapshot-checksum.ts';
import type { ObjectVersion, StoredRow } from '../../store/project.ts';
import type { PriceRow, Store } from '../../store/store.ts';
import { loadFixtureFiles, type FixtureFile, type LoadProgress, type LoadReport } from '../load-fixtures.ts';
import { cacheBound, diskRoom, evictSnapshots, touchSnapshot, type SnapshotSettings } from './cache.ts';
import { align8, openSnapshot, openSnapshotTemp, readExactly, readSnapshotHead, writeAll } from './file.ts';
import { fileIdentity, fileSnapshotKey, snapshotFileName, type SnapshotKey } from './key.ts';

/** The kinds whose registry entry says `image` (a new one fails to compile here until it has a codec). */
export type ImagedKind = { [K in FixtureKind]: (typeof FIXTURE_KIND_REGISTRY)[K]['snapshot'] extends 'image' ? K : never }[FixtureKind];

/** Rows (or versions, or prices) per serialized part: a part is serialized and decoded whole, so parts stay a few MB. */
const PART_ITEMS = 8192;

/** The first part of every image: the projects that hold the kind, in the store's order. */
interface Manifest {
  projects: string[];
}
/** A tables image part: a run of a project's rows, or (after all of them) its tables as indexes into its rows. */
type TablesPart = { project: string; digests: string[]; texts: string[] } | { project: string; tables: Array<[string, Uint32Array]> };
/** An objects image part: versions of some of a project's object ids, `val` left out (parsed again from `valText`). */
interface ObjectsPart {
  project: string;
  objects: Array<[string, ObjectVersion[]]>;
}
interface PricesPart {
  prices: PriceRow[];
}

/** How one kind is imaged: what of the store it holds, and how it is put back. */
interface KindCodec {
  /** The store holds nothing of the kind (an image applies only to such a store). */
  isEmpty(store: Store): boolean;
  /** The projects holding the kind, in the store's order. */
  projects(store: Store): string[];
  /**
   * The parts after the manifest, made one at a time as they are written (so a write holds one
   * part's copy, not the whole image's). Throws NotImageable when the store holds something an
   * image cannot (never after a fixture load).
   */
  parts(store: Store): Iterable<unknown>;
  /** Puts the decoded parts into `store` (whose projects of the manifest exist already). */
  apply(store: Store, parts: unknown[]): void;
}

const projectsWith = (store: Store, holds: (p: { rows: Map<string, StoredRow>; tables: Map<string, string[]>; objects: Map<string, ObjectVersion[]> }) => boolean) =>
  [...store.projects.values()].filter(holds).map((p) => p.projectId);

const tablesCodec: KindCodec = {
  isEmpty: (store) => projectsWith(store, (p) => p.rows.size > 0 || p.tables.size > 0).length === 0,
  projects: (store) => projectsWith(store, (p) => p.rows.size > 0 || p.tables.size > 0),
  *parts(store) {
    for (const projectId of tablesCodec.projects(store)) {
      const p = store.projects.get(projectId)!;
      const indexOf = new Map<string, number>();
      let digests: string[] = [];
      let texts: string[] = [];
      for (const [digest, row] of p.rows) {
        if (row.digest !== digest) throw new NotImageable(`row ${digest} is stored under another digest`);
        indexOf.set(digest, indexOf.size);
        digests.push(digest);
        texts.push(row.text);
        if (digests.length === PART_ITEMS) {
          yield { project: projectId, digests, texts } satisfies TablesPart;
          digests = [];
          texts = [];
        }
      }
      if (digests.length > 0) yield { project: projectId, digests, texts } satisfies TablesPart;
      let tables: Array<[string, Uint32Array]> = [];
      let held = 0;
      for (const [digest, list] of p.tables) {
        const indexes = new Uint32Array(list.length);
        for (let i = 0; i < list.length; i++) {
          const at = indexOf.get(list[i]);
          // A table naming a row the project does not hold (table_create_from_digests): not a fixture load's.
          if (at === undefined) throw new NotImageable(`table ${digest} names a row the project does not hold`);
          indexes[i] = at;
        }
        tables.push([digest, indexes]);
        held += list.length + 1;
        if (held >= PART_ITEMS) {
          yield { project: projectId, tables } satisfies TablesPart;
          tables = [];
          held = 0;
        }
      }
      if (tables.length > 0) yield { project: projectId, tables } satisfies TablesPart;
    }
  },
  apply(store, parts) {
    // The digests of each project's rows in their order, for the tables' indexes.
    const digestsOf = new Map<string, { digests: string[]; rows: StoredRow[] }>();
    for (const part of parts as TablesPart[]) {
      const project = store.projectForWrite(part.project);
      let all = digestsOf.get(part.project);
      if (all === undefined) digestsOf.set(part.project, (all = { digests: [], rows: [] }));
      if ('digests' in part) {
        const { digests, texts } = part;
        for (let i = 0; i < digests.length; i++) {
          const row: StoredRow = { digest: digests[i], text: texts[i] };
          project.rows.set(digests[i], row);
          all.digests.push(digests[i]);
          all.rows.push(row);
        }
      } else {
        for (const [digest, indexes] of part.tables) {
          const list = new Array<string>(indexes.length);
          // Pushed, not `new Array(n)`: a large preallocated array is a slow dictionary.
          const byPosition: StoredRow[] = [];
          for (let i = 0; i < indexes.length; i++) {
            list[i] = all.digests[indexes[i]];
            byPosition.push(all.rows[indexes[i]]);
          }
          project.storeTable(digest, list, byPosition);
        }
      }
    }
  },
};

const objectsCodec: KindCodec = {
  isEmpty: (store) => projectsWith(store, (p) => p.objects.size > 0).length === 0,
  projects: (store) => projectsWith(store, (p) => p.objects.size > 0),
  *parts(store) {
    for (const projectId of objectsCodec.projects(store)) {
      let objects: Array<[string, ObjectVersion[]]> = [];
      let held = 0;
      for (const [objectId, versions] of store.projects.get(projectId)!.objects) {
        // The value is parsed again from its text on restore, as the load parsed it.
        objects.push([objectId, versions.map((v) => ({ ...v, val: null }))]);
        held += versions.length;
        if (held >= PART_ITEMS) {
          yield { project: projectId, objects } satisfies ObjectsPart;
          objects = [];
          held = 0;
        }
      }
      if (objects.length > 0) yield { project: projectId, objects } satisfies ObjectsPart;
    }
  },
  apply(store, parts) {
    for (const part of parts as ObjectsPart[]) {
      const objects = store.projectForWrite(part.project).objects;
      for (const [objectId, versions] of part.objects) {
        for (const v of versions) v.val = parseExact(v.valText);
        objects.set(objectId, versions);
      }
    }
  },
};

const costsCodec: KindCodec = {
  isEmpty: (store) => store.prices.length === 0,
  projects: () => [],
  *parts(store) {
    for (let at = 0; at < store.prices.length; at += PART_ITEMS) yield { prices: store.prices.slice(at, at + PART_ITEMS) } satisfies PricesPart;
  },
  apply(store, parts) {
    for (const part of parts as PricesPart[]) for (const row of part.prices) store.prices.push(row);
  },
};

const CODECS: Record<ImagedKind, KindCodec> = { tables: tablesCodec, objects: objectsCodec, costs: costsCodec };

/** The store holds something no fixture load makes: no image is written. */
class NotImageable extends Error {}

interface ImageHeader {
  key: SnapshotKey;
  image: { kind: ImagedKind; records: number };
  /** Always null: read by readSnapshotHeader, which every cache entry answers. */
  feedbackSource: null;
}

/** A part's frame: its length and CRC-32 (u32 LE each), then its bytes; the trailer's first word is this, then the part count. */
const FRAME_BYTES = 8;
const TRAILER_MARK = 0xffffffff;

/**
 * Writes the image of `kind` in `store` to `path` atomically (a temporary file renamed), a part
 * at a time: the header, then each part framed by its length and CRC-32, then a trailer with
 * the part count (so a file cut at a frame's end is seen as cut). Returns the bytes written,
 * or null (nothing left behind) when they would exceed `maxBytes`.
 */
function writeImageFile(path: string, key: SnapshotKey, store: Store, kind: ImagedKind, records: number, maxBytes = Infinity): number | null {
  const codec = CODECS[kind];
  const header: ImageHeader = { key, image: { kind, records }, feedbackSource: null };
  const { fd, temp, headerEnd } = openSnapshotTemp(path, header);
  let done = false;
  try {
    writeAll(fd, new Uint8Array(align8(headerEnd) - headerEnd));
    let bytes = align8(headerEnd);
    let count = 0;
    const frame = Buffer.alloc(FRAME_BYTES);
    const manifest: Manifest = { projects: codec.projects(store) };
    for (const part of [manifest, ...codec.parts(store)]) {
      const serialized = serialize(part);
      if (serialized.byteLength >= TRAILER_MARK) throw new NotImageable('a part of 4 GiB or more');
      frame.writeUInt32LE(serialized.byteLength, 0);
      frame.writeUInt32LE(crc32(serialized), 4);
      writeAll(fd, frame);
      writeAll(fd, serialized);
      bytes += FRAME_BYTES + serialized.byteLength;
      count++;
      if (bytes + FRAME_BYTES > maxBytes) return null;
    }
    frame.writeUInt32LE(TRAILER_MARK, 0);
    frame.writeUInt32LE(count, 4);
    writeAll(fd, frame);
    fsyncSync(fd);
    closeSync(fd);
    renameSync(temp, path);
    done = true;
    return bytes + FRAME_BYTES;
  } finally {
    if (!done) {
      try {
        closeSync(fd);
      } catch {
        // already closed
      }
      rmSync(temp, { force: true });
    }
  }
}

export type ImageRead = { kind: 'restored'; bytes: number; records: number } | { kind: 'missing' } | { kind: 'stale' } | { kind: 'invalid'; reason: string };

/**
 * Restores the image at `path` into `store` when it is whole, of `kind`, and keyed `key`. Every
 * part is read and checked against its CRC-32 and decoded before the store is touched, so a
 * miss of any kind leaves `store` as it was.
 */
export function readImageFile(path: string, key: SnapshotKey, kind: ImagedKind, store: Store): ImageRead {
  const fd = openSnapshot(path);
  if (typeof fd !== 'number') return fd;
  try {
    const head = readSnapshotHead<ImageHeader>(fd, key);
    if (head.kind !== 'head') return head;
    const { header, size } = head;
    if (header.image?.kind !== kind) return { kind: 'invalid', reason: `not an image of ${kind}` };
    let at = head.dataAt;
    const decoded: unknown[] = [];
    const frame = Buffer.alloc(FRAME_BYTES);
    for (;;) {
      if (at + FRAME_BYTES > size || !readExactly(fd, frame, at)) return { kind: 'invalid', reason: `truncated after ${decoded.length} parts` };
      const length = frame.readUInt32LE(0);
      if (length === TRAILER_MARK) {
        if (frame.readUInt32LE(4) !== decoded.length || at + FRAME_BYTES !== size) return { kind: 'invalid', reason: `${decoded.length} parts and ${size - at - FRAME_BYTES} bytes after them, the trailer says ${frame.readUInt32LE(4)} parts` };
        break;
      }
      // A part always leaves room for the trailer.
      if (at + FRAME_BYTES + length + FRAME_BYTES > size) return { kind: 'invalid', reason: `truncated in part ${decoded.length}` };
      const bytes = Buffer.allocUnsafe(length);
      if (!readExactly(fd, bytes, at + FRAME_BYTES)) return { kind: 'invalid', reason: `truncated in part ${decoded.length}` };
      if (crc32(bytes) !== frame.readUInt32LE(4)) return { kind: 'invalid', reason: `part ${decoded.length} checksum mismatch` };
      try {
        decoded.push(deserialize(bytes));
      } catch (e) {
        return { kind: 'invalid', reason: `part ${decoded.length} does not decode: ${(e as Error).message}` };
      }
      at += FRAME_BYTES + length;
    }
    const manifest = decoded[0] as Manifest;
    if (!Array.isArray(manifest?.projects)) return { kind: 'invalid', reason: 'no manifest' };
    for (const projectId of manifest.projects) store.projectForWrite(projectId);
    CODECS[kind].apply(store, decoded.slice(1));
    return { kind: 'restored', bytes: size, records: header.image.records };
  } catch (e) {
    if (e instanceof SyntaxError || e instanceof TypeError || e instanceof RangeError) return { kind: 'invalid', reason: e.message };
    throw e;
  } finally {
    closeSync(fd);
  }
}

/** What happened to one file's image (for the load report, tests and the bench). */
export type ImageOutcome =
  | { file: string; status: 'restored'; bytes: number; ms: number }
  | { file: string; status: 'written'; bytes: number; ms: number }
  | { file: string; status: 'not-written' | 'off'; reason: string };

/** A file this recently modified may change again within its mtime's resolution. */
const RACY_MS = 2000;

/**
 * Loads one tables, objects or costs file through its image: restored when one matches, else
 * loaded from the file and an image written for the next process. A damaged image is a notice
 * of the report; `say` takes one to be said once per process (an image not written for lack
 * of room or a cache that cannot be written).
 */
export async function loadFileThroughImage(
  engine: Engine,
  source: string,
  file: FixtureFile & { kind: ImagedKind },
  settings: SnapshotSettings,
  say: (notice: string) => void,
  onProgress?: (p: LoadProgress) => void,
  now: () => number = Date.now,
): Promise<LoadReport & { image: ImageOutcome }> {
  const codec = CODECS[file.kind];
  const plain = async (outcome: ImageOutcome) => ({ ...(await loadFixtureFiles(engine, source, [file], onProgress)), image: outcome });
  const size = statSync(file.file).size;
  if (size < settings.minBytes) return plain({ file: file.file, status: 'off', reason: `under ${settings.minBytes} bytes` });
  if (!codec.isEmpty(engine.store)) return plain({ file: file.file, status: 'off', reason: `the store holds ${file.kind} already` });
  const key = fileSnapshotKey(file.kind, file.file, engine.options.fieldPrefix);
  if (key.code === null) return plain({ file: file.file, status: 'off', reason: 'the running code has no build stamp' });
  const path = join(settings.dir, snapshotFileName(key));

  const started = performance.now();
  const read = readImageFile(path, key, file.kind, engine.store);
  if (read.kind === 'restored') {
    touchSnapshot(path);
    sweepOrphans(settings.dir, path);
    onProgress?.({ bytesRead: size, totalBytes: size, file: file.file, records: read.records });
    return {
      source,
      files: [{ file: file.file, kind: file.kind, records: read.records }],
      notices: [],
      image: { file: file.file, status: 'restored', bytes: read.bytes, ms: performance.now() - started },
    };
  }
  // Damage is said every time it is found (a skipped write, below, once per process).
  const damaged: string[] = [];
  if (read.kind === 'invalid') {
    rmSync(path, { force: true });
    damaged.push(`load snapshot ${path} of ${file.file} is damaged (${read.reason}); it was removed; loading the fixture file`);
  }

  // A load that draws ids or times answers differently every time: not imaged.
  let drew = false;
  const options = engine.options;
  const { newId, now: clock } = options;
  options.newId = () => ((drew = true), newId());
  options.now = () => ((drew = true), clock());
  let report: LoadReport;
  try {
    report = await loadFixtureFiles(engine, source, [file], onProgress);
  } finally {
    options.newId = newId;
    options.now = clock;
  }
  const records = report.files[0]?.records ?? 0;
  const written = drew
    ? { file: file.file, status: 'not-written' as const, reason: `${file.file} has records without id or created_at (fresh ones are drawn on every load)` }
    : records === 0
      ? { file: file.file, status: 'not-written' as const, reason: `${file.file} is empty` }
      : writeImage(engine.store, key, file, records, path, settings, now);
  if (written.status === 'not-written' && /^cannot|larger than/.test(written.reason)) say(`snapshot not written: ${written.reason}`);
  return { ...report, notices: [...damaged, ...report.notices], image: written };
}

/** Removes the snapshots whose fixture file is gone (never `keep`, the one in use). */
function sweepOrphans(dir: string, keep: string): void {
  try {
    evictSnapshots(dir, Infinity, basename(keep));
  } catch {
    // A cache that cannot be read is the next write's problem (and said then).
  }
}

function writeImage(store: Store, key: SnapshotKey, file: FixtureFile & { kind: ImagedKind }, records: number, path: string, settings: SnapshotSettings, now: () => number): ImageOutcome {
  const started = performance.now();
  const before = key.files[0];
  let after;
  try {
    after = fileIdentity(before.kind, file.file);
  } catch (e) {
    return { file: file.file, status: 'not-written', reason: `${file.file} is gone: ${(e as Error).message}` };
  }
  if (JSON.stringify(after) !== JSON.stringify(before)) return { file: file.file, status: 'not-written', reason: `${file.file} changed while loading` };
  if (now() - Number(BigInt(before.mtimeNs) / 1_000_000n) < RACY_MS) return { file: file.file, status: 'not-written', reason: `${file.file} was modified less than 2 s ago` };
  try {
    mkdirSync(settings.dir, { recursive: true, mode: 0o700 });
    // The image is written a part at a time, so its size is known as it is written: the bound
    // is sized for an image as large as the file it holds (about what one is), and a write
    // that passes it stops and leaves nothing.
    const bound = cacheBound(settings, statSync(file.file).size, diskRoom(settings.dir));
    const bytes = writeImageFile(path, key, store, file.kind, records, bound);
    if (bytes === null) return { file: file.file, status: 'not-written', reason: `the snapshot of ${file.file} would be larger than the cache bound (${bound} bytes; TQ_SNAPSHOT_MAX_BYTES sets it)` };
    evictSnapshots(settings.dir, bound, snapshotFileName(key));
    return { file: file.file, status: 'written', bytes, ms: performance.now() - started };
  } catch (e) {
    if (e instanceof NotImageable) return { file: file.file, status: 'not-written', reason: `the store holds ${file.kind} no fixture load makes: ${e.message}` };
    return { file: file.file, status: 'not-written', reason: `cannot write ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}` };
  }
}

/** Whether a kind is kept in a per-file image. */
export const isImagedKind = (kind: string): kind is ImagedKind => Object.hasOwn(CODECS, kind);
