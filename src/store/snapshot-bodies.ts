/**
 * The call bodies of a table restored from a load snapshot, read from the file as they are
 * needed. A query that renders a few rows of a chunk reads just those rows' bodies (each
 * checked against its CRC-32) into the chunk's place; once a chunk has had many rows read one
 * by one, or when a body is needed without its row (a snapshot of the table, a scan), the whole
 * chunk is read and checked against the chunk's CRC-32. So a filter returning 86k rows spread
 * over 626 chunks reads 56 MB, not 656 MB, and a damaged byte is never served.
 *
 * CallTable calls ensure(row) before it reads a row's body bytes (bodyText, bodyPartTexts,
 * bodyChunkBytes, partByteSpans): a chunk's bytes outside the rows read are not the file's.
 */
import type { ByteArena } from './columns.ts';
import { crc32 } from './snapshot-checksum.ts';

/**
 * Rows read one by one from a chunk before the rest of it is read at once: measured on the
 * bench's snapshot (656-byte bodies, 1 MiB chunks), a chunk read and its checksum cost about
 * as much as 300 single-body reads with theirs (a read call each).
 */
const SINGLE_READS_PER_CHUNK = 384;

/** Rooms for chunks are cut from buffers this large (a few allocations, not one per chunk). */
const ROOM_BLOCK = 64 * 1024 * 1024;

export interface BodyReads {
  /** A whole chunk: bytes [offset, offset + length) of the arena region. */
  chunk(offset: number, length: number): Buffer;
  /** One body: bytes [offset, offset + length) of the region into `into[at, at + length)`. */
  body(into: Buffer, at: number, length: number, offset: number): void;
  /** Called with the reason when bytes fail their checksum; throws. */
  damaged(reason: string): never;
}

export class SnapshotBodies {
  private readonly whole: Uint8Array;
  private readonly singles: Int32Array;
  private readonly rooms: Array<Buffer | undefined>;
  private readonly loaded: Uint8Array;
  private block: Buffer | null = null;
  private blockUsed = 0;

  constructor(
    private readonly arena: ByteArena,
    /** Where each chunk starts in the arena region, and its length. */
    private readonly starts: readonly number[],
    private readonly lengths: readonly number[],
    private readonly chunkChecksums: Int32Array,
    /** CRC-32 of each restored row's body. */
    private readonly bodyChecksums: Int32Array,
    private readonly reads: BodyReads,
    private readonly label: string,
  ) {
    this.whole = new Uint8Array(lengths.length);
    this.singles = new Int32Array(lengths.length);
    this.rooms = new Array<Buffer | undefined>(lengths.length);
    this.loaded = new Uint8Array(bodyChecksums.length);
  }

  /** Makes row `row`'s body (at `chunk`, `offset`, `length`) readable in the arena. */
  ensure(row: number, chunk: number, offset: number, length: number): void {
    // Rows appended since, and bodies rewritten since, live in chunks after the restored ones.
    if (chunk >= this.whole.length || this.whole[chunk] !== 0 || row >= this.loaded.length || this.loaded[row] !== 0) return;
    if (++this.singles[chunk] > SINGLE_READS_PER_CHUNK) {
      this.arena.provide(chunk, this.wholeChunk(chunk));
      return;
    }
    let room = this.rooms[chunk];
    if (room === undefined) {
      room = this.rooms[chunk] = this.room(this.lengths[chunk]);
      this.arena.provide(chunk, room);
    }
    // Straight into the chunk's place; served only once it passed its checksum.
    this.reads.body(room, offset, length, this.starts[chunk] + offset);
    if ((crc32(room.subarray(offset, offset + length)) | 0) !== this.bodyChecksums[row]) this.reads.damaged(`the body of row ${row} of ${this.label} fails its checksum`);
    this.loaded[row] = 1;
  }

  /** Reads and checks a whole chunk (the arena's reader for chunks it does not hold). */
  wholeChunk(chunk: number): Buffer {
    const bytes = this.reads.chunk(this.starts[chunk], this.lengths[chunk]);
    if ((crc32(bytes) | 0) !== this.chunkChecksums[chunk]) this.reads.damaged(`arena chunk ${chunk} of ${this.label} fails its checksum`);
    this.whole[chunk] = 1;
    this.rooms[chunk] = undefined;
    return bytes;
  }

  /** Every chunk read whole (before the arena's bytes are used without their rows). */
  readAll(): void {
    for (let c = 0; c < this.whole.length; c++) if (this.whole[c] === 0) this.arena.provide(c, this.wholeChunk(c));
  }

  private room(length: number): Buffer {
    if (length > ROOM_BLOCK / 4) return Buffer.allocUnsafeSlow(length);
    if (this.block === null || this.blockUsed + length > this.block.length) {
      this.block = Buffer.allocUnsafeSlow(ROOM_BLOCK);
      this.blockUsed = 0;
    }
    const room = this.block.subarray(this.blockUsed, this.blockUsed + length);
    this.blockUsed += length;
    return room;
  }
}
