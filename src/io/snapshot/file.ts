/**
 * The snapshot file, byte by byte:
 *
 *   0   8 bytes  magic "tq-snap\n"
 *   8   u32 LE   format (SNAPSHOT_FORMAT)
 *   12  u32 LE   header length H
 *   16  H bytes  header: JSON {key, layout, dataBytes, arenaBytes, dataCrc32}
 *   ..  32 bytes SHA-256 of the header bytes
 *   ..  padding to a multiple of 8
 *   ..  data region: strings and columns (src/store/snapshot.ts), its CRC-32 in the header
 *   ..  arena region: the call bodies' bytes, as the arena holds them
 *
 * The file's length must be exactly what the header says. Reading checks, in order: magic,
 * format, header checksum, key, length, data checksum, then every block's structure while
 * decoding (src/store/snapshot.ts). The arena is read when a body in it is first needed, a
 * body or a whole chunk at a time (src/store/snapshot-bodies.ts), and checked against its
 * CRC-32 (each body's and each chunk's are kept in the data region) then:
 * a damaged chunk is an error naming the file, which is removed (the next run loads the
 * fixtures and writes a new one), never a wrong answer. Written to a temporary file and renamed
 * into place, so a reader sees a whole snapshot or none, and two writers of the same snapshot
 * leave one of them whole.
 */
import { createHash, randomBytes } from 'node:crypto';
import { closeSync, fstatSync, fsyncSync, openSync, readSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { arenaRegionBytes, dataRegionBytes, decodeCallTables, SnapshotDamagedError, SnapshotFormatError, type DecodedFeedback, type EncodedSnapshot, type SnapshotLayout } from '../../store/snapshot.ts';
import { crc32 } from '../../store/snapshot-checksum.ts';
import type { Store } from '../../store/store.ts';
import { sameKey, SNAPSHOT_FORMAT, type FileIdentity, type SnapshotKey } from './key.ts';

const MAGIC = Buffer.from('tq-snap\n', 'latin1');
const PREFIX_BYTES = 16;
const SHA_BYTES = 32;
/** A header is a few KB; anything far larger is not one of ours. */
const MAX_HEADER_BYTES = 64 * 1024 * 1024;
/** One read or write call moves at most this much (the OS caps single calls near 2 GiB). */
const IO_STEP = 1 << 30;

interface Header {
  key: SnapshotKey;
  layout: SnapshotLayout;
  dataBytes: number;
  arenaBytes: number;
  dataCrc32: number;
  /** The feedback file whose rows the snapshot holds (null: it holds none). */
  feedbackSource: FileIdentity | null;
}

export const align8 = (n: number) => (n + 7) & ~7;

/**
 * Opens a private temporary file beside `path` (renamed over it once whole) and writes the
 * frame's head: magic, format, the header's length, the header as JSON and its SHA-256. Returns
 * the descriptor, the temporary path and where the head ends.
 */
export function openSnapshotTemp(path: string, header: unknown): { fd: number; temp: string; headerEnd: number } {
  const headerBytes = Buffer.from(JSON.stringify(header), 'utf8');
  const prefix = Buffer.alloc(PREFIX_BYTES);
  MAGIC.copy(prefix, 0);
  prefix.writeUInt32LE(SNAPSHOT_FORMAT, 8);
  prefix.writeUInt32LE(headerBytes.byteLength, 12);
  const temp = `${path}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  const fd = openSync(temp, 'w', 0o600);
  try {
    writeAll(fd, prefix);
    writeAll(fd, headerBytes);
    writeAll(fd, createHash('sha256').update(headerBytes).digest());
  } catch (e) {
    closeSync(fd);
    rmSync(temp, { force: true });
    throw e;
  }
  return { fd, temp, headerEnd: PREFIX_BYTES + headerBytes.byteLength + SHA_BYTES };
}

/** Opens the snapshot at `path` for reading: its descriptor, or why there is none to read. */
export function openSnapshot(path: string): number | { kind: 'missing' } | { kind: 'invalid'; reason: string } {
  try {
    return openSync(path, 'r');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'missing' };
    return { kind: 'invalid', reason: `cannot open: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}` };
  }
}

/**
 * Reads and checks the frame head of the snapshot open as `fd` (openSnapshotTemp's layout): the
 * magic, the format, the header's length (bounded) and SHA-256, and the header's key against
 * `key`. Returns the header, the file's size and where the body starts (8-aligned).
 */
export function readSnapshotHead<H extends { key: unknown }>(
  fd: number,
  key: SnapshotKey,
): { kind: 'head'; header: H; size: number; dataAt: number } | { kind: 'stale' } | { kind: 'invalid'; reason: string } {
  const size = fstatSync(fd).size;
  const prefix = Buffer.alloc(PREFIX_BYTES);
  if (!readExactly(fd, prefix, 0) || !prefix.subarray(0, 8).equals(MAGIC)) return { kind: 'invalid', reason: 'not a tq snapshot (bad magic)' };
  if (prefix.readUInt32LE(8) !== SNAPSHOT_FORMAT) return { kind: 'stale' };
  const headerLength = prefix.readUInt32LE(12);
  if (headerLength > MAX_HEADER_BYTES || PREFIX_BYTES + headerLength + SHA_BYTES > size) return { kind: 'invalid', reason: 'truncated header' };
  const headerAndSum = Buffer.alloc(headerLength + SHA_BYTES);
  if (!readExactly(fd, headerAndSum, PREFIX_BYTES)) return { kind: 'invalid', reason: 'truncated header' };
  const headerBytes = headerAndSum.subarray(0, headerLength);
  if (!createHash('sha256').update(headerBytes).digest().equals(headerAndSum.subarray(headerLength))) return { kind: 'invalid', reason: 'header checksum mismatch' };
  const header = JSON.parse(headerBytes.toString('utf8')) as H;
  if (!sameKey(key, header.key)) return { kind: 'stale' };
  return { kind: 'head', header, size, dataAt: align8(PREFIX_BYTES + headerLength + SHA_BYTES) };
}

export function writeAll(fd: number, bytes: Uint8Array): void {
  for (let at = 0; at < bytes.byteLength; ) at += writeSync(fd, bytes, at, Math.min(IO_STEP, bytes.byteLength - at));
}

export function readExactly(fd: number, into: Uint8Array, position: number): boolean {
  for (let at = 0; at < into.byteLength; ) {
    const n = readSync(fd, into, at, Math.min(IO_STEP, into.byteLength - at), position + at);
    if (n === 0) return false;
    at += n;
  }
  return true;
}

/** Writes the snapshot to `path` atomically; returns its size in bytes. */
export function writeSnapshotFile(path: string, key: SnapshotKey, encoded: EncodedSnapshot, feedbackSource: FileIdentity | null = null): number {
  const pad = new Uint8Array(8);
  let dataCrc = 0;
  for (const block of encoded.data) dataCrc = crc32(pad.subarray(0, align8(block.byteLength) - block.byteLength), crc32(block, dataCrc));
  const header: Header = {
    key,
    layout: encoded.layout,
    dataBytes: dataRegionBytes(encoded.layout),
    arenaBytes: arenaRegionBytes(encoded.layout),
    dataCrc32: dataCrc,
    feedbackSource,
  };
  const { fd, temp, headerEnd } = openSnapshotTemp(path, header);
  try {
    writeAll(fd, pad.subarray(0, align8(headerEnd) - headerEnd));
    for (const block of encoded.data) {
      writeAll(fd, block);
      writeAll(fd, pad.subarray(0, align8(block.byteLength) - block.byteLength));
    }
    for (const chunk of encoded.arena) writeAll(fd, chunk);
    fsyncSync(fd);
    closeSync(fd);
    renameSync(temp, path);
  } catch (e) {
    try {
      closeSync(fd);
    } catch {
      // already closed
    }
    rmSync(temp, { force: true });
    throw e;
  }
  return align8(headerEnd) + header.dataBytes + header.arenaBytes;
}

/** Why a snapshot file was not used. `stale` is the ordinary case (the fixtures changed). */
export type SnapshotMiss = { kind: 'missing' } | { kind: 'stale' } | { kind: 'invalid'; reason: string };

export type SnapshotRead = { kind: 'restored'; bytes: number; feedback: DecodedFeedback; feedbackSource: FileIdentity | null } | SnapshotMiss;

/**
 * Restores the snapshot at `path` into `store` (which must be empty) when it is whole and its
 * key is `key`. Leaves `store` untouched otherwise (a block that fails its checks after some
 * projects were restored is reported as invalid: the caller then loads into a fresh store).
 */
export function readSnapshotFile(path: string, key: SnapshotKey, store: Store): SnapshotRead {
  const opened = openSnapshot(path);
  if (typeof opened !== 'number') return opened;
  let fd = opened;
  try {
    const head = readSnapshotHead<Header>(fd, key);
    if (head.kind !== 'head') return head;
    const { header, size, dataAt } = head;
    if (dataAt + header.dataBytes + header.arenaBytes !== size) return { kind: 'invalid', reason: `length ${size} bytes, header says ${dataAt + header.dataBytes + header.arenaBytes}` };
    const data = new Uint8Array(new ArrayBuffer(header.dataBytes));
    if (!readExactly(fd, data, dataAt)) return { kind: 'invalid', reason: 'truncated data' };
    if (crc32(data) !== header.dataCrc32) return { kind: 'invalid', reason: 'data checksum mismatch' };
    if (arenaRegionBytes(header.layout) !== header.arenaBytes) return { kind: 'invalid', reason: 'arena length does not match the layout' };
    const arena = new ArenaFile(fd, path, fstatSync(fd), dataAt + header.dataBytes, header.layout);
    const feedback = decodeCallTables(
      header.layout,
      data,
      (offset, length) => arena.read(offset, length),
      store,
      (reason) => arena.damaged(reason),
      (into, at, length, offset) => arena.readBody(into, at, length, offset),
    );
    for (const project of store.projects.values()) arena.heldBy(project.calls);
    fd = -1; // the arena file owns it now
    return { kind: 'restored', bytes: size, feedback, feedbackSource: header.feedbackSource };
  } catch (e) {
    if (e instanceof SnapshotFormatError || e instanceof SyntaxError || e instanceof TypeError || e instanceof RangeError) return { kind: 'invalid', reason: e.message };
    throw e;
  } finally {
    if (fd >= 0) closeSync(fd);
  }
}

/**
 * The header of the snapshot at `path` (what `tq cache` lists and eviction checks), or null
 * when the file is not a whole header of this format (checked against its checksum).
 */
export function readSnapshotHeader(path: string): { key: SnapshotKey; feedbackSource: FileIdentity | null } | null {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return null;
  }
  try {
    const prefix = Buffer.alloc(PREFIX_BYTES);
    if (!readExactly(fd, prefix, 0) || !prefix.subarray(0, 8).equals(MAGIC) || prefix.readUInt32LE(8) !== SNAPSHOT_FORMAT) return null;
    const headerLength = prefix.readUInt32LE(12);
    if (headerLength > MAX_HEADER_BYTES) return null;
    const headerAndSum = Buffer.alloc(headerLength + SHA_BYTES);
    if (!readExactly(fd, headerAndSum, PREFIX_BYTES)) return null;
    const headerBytes = headerAndSum.subarray(0, headerLength);
    if (!createHash('sha256').update(headerBytes).digest().equals(headerAndSum.subarray(headerLength))) return null;
    const header = JSON.parse(headerBytes.toString('utf8')) as Header;
    return { key: header.key, feedbackSource: header.feedbackSource };
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

/** Closes an arena file once every table reading from it is garbage. */
const arenaFiles = new FinalizationRegistry<ArenaFile>((file) => file.release());

/**
 * Arena bytes are read into buffers of up to this size, one per stretch of the region, made when
 * a chunk in them is first read: a few large allocations instead of one per 1 MiB chunk (each
 * of which V8 counts as external memory, and hundreds of them set off full collections).
 */
const ARENA_SEGMENT = 256 * 1024 * 1024;

/**
 * The arena region of a restored snapshot, read a chunk at a time as bodies are needed. The
 * file stays open (a snapshot replaced or evicted meanwhile keeps its bytes for this reader)
 * until every chunk was read or every table restored from it is gone.
 */
class ArenaFile {
  private unread: number;
  private holders = 0;
  private readonly total: number;
  private readonly segments: Buffer[] = [];
  constructor(
    private fd: number,
    private readonly path: string,
    /** The file's identity, so that only this file is removed when it is found damaged. */
    private readonly identity: { ino: number; dev: number },
    private readonly start: number,
    layout: SnapshotLayout,
  ) {
    this.unread = layout.projects.reduce((n, p) => n + p.chunkBytes.length, 0);
    this.total = arenaRegionBytes(layout);
    if (this.unread === 0) this.close();
  }

  heldBy(table: object): void {
    this.holders++;
    arenaFiles.register(table, this);
  }

  /** A whole chunk (the file closes once every chunk was read whole). */
  read(offset: number, length: number): Buffer {
    if (this.fd < 0) throw new Error(`load snapshot ${this.path}: read after close`);
    const bytes = this.room(offset, length);
    if (!readExactly(this.fd, bytes, this.start + offset)) throw new Error(`load snapshot ${this.path} was truncated while in use`);
    if (--this.unread === 0) this.close();
    return bytes;
  }

  /** One body, into `into[at, at + length)`: one read call, no buffer of its own. */
  readBody(into: Buffer, at: number, length: number, offset: number): void {
    if (this.fd < 0) throw new Error(`load snapshot ${this.path}: read after close`);
    for (let done = 0; done < length; ) {
      const n = readSync(this.fd, into, at + done, length - done, this.start + offset + done);
      if (n === 0) throw new Error(`load snapshot ${this.path} was truncated while in use`);
      done += n;
    }
  }

  /** Where the bytes [offset, offset + length) of the region go: a view of their segment. */
  private room(offset: number, length: number): Buffer {
    const segment = Math.floor(offset / ARENA_SEGMENT);
    const base = segment * ARENA_SEGMENT;
    if (length === 0 || offset + length > base + ARENA_SEGMENT) return Buffer.allocUnsafeSlow(length);
    const bytes = (this.segments[segment] ??= Buffer.allocUnsafeSlow(Math.min(ARENA_SEGMENT, this.total - base)));
    return bytes.subarray(offset - base, offset - base + length);
  }

  /**
   * A chunk failed its checksum: the snapshot is removed (when the path still names this file;
   * a newer snapshot renamed over it is left alone) and the query fails with the reason.
   */
  damaged(reason: string): never {
    let removed = false;
    try {
      const there = statSync(this.path);
      if (there.ino === this.identity.ino && there.dev === this.identity.dev) {
        rmSync(this.path, { force: true });
        removed = true;
      }
    } catch {
      // Gone already, or not ours to remove.
    }
    throw new SnapshotDamagedError(`load snapshot ${this.path} is damaged (${reason})${removed ? '; it was removed, the next run loads the fixture files' : ''}`);
  }

  release(): void {
    if (--this.holders <= 0) this.close();
  }

  private close(): void {
    if (this.fd < 0) return;
    closeSync(this.fd);
    this.fd = -1;
  }
}
