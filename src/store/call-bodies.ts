/**
 * The JSON bodies of a call table's rows (`{"attributes":…,"inputs":…,"output":…,"summary":…}`),
 * kept as UTF-8 text in a byte arena: a (chunk, offset, length) handle per row, and where each
 * part's value sits in it (the part spans). Two backings, as for the string columns: bodies in
 * memory (a load or a write put them there), or bodies a load snapshot left in its file
 * (SnapshotBodies reads a row's bytes before they are first read, see ready()).
 */
import { mentionsWeaveOrEscape, topLevelValueByteSpans } from '../core/json/byte-spans.ts';
import { parseExact } from '../core/json/exact.ts';
import type { CallBody } from './call-parts.ts';
import { ByteArena, Int32Column } from './columns.ts';
import type { SnapshotBodies } from './snapshot-bodies.ts';
import type { CallTableImage } from './snapshot-image.ts';

/** The JSON parts of a call body, in the order of the part spans. */
export const BODY_PARTS = ['attributes', 'inputs', 'output', 'summary'] as const;
export type BodyPart = (typeof BODY_PARTS)[number];
export const PART_INDEX: Record<BodyPart, number> = { attributes: 0, inputs: 1, output: 2, summary: 3 };
export const PART_KEY_BYTES = BODY_PARTS.map((k) => new TextEncoder().encode(k));
/** Span offsets are kept as uint16: longer bodies are scanned every time instead. */
const SPAN_LIMIT = 0xffff;
const ABSENT = 0xffff;
/** Bits of partSpansKnown: spans remembered; summary checked for `"weave"`; and its answer. */
const SPANS_KNOWN = 1, SUMMARY_CHECKED = 2, SUMMARY_MENTIONS_WEAVE = 4;

/** What a load snapshot holds of the bodies (the body fields of CallTableImage). */
export type BodiesImage = Pick<CallTableImage, 'bodyChunk' | 'bodyOffset' | 'bodyLength' | 'arenaChunks' | 'partSpans' | 'partSpansKnown'>;

export class CallBodies {
  private arena = new ByteArena();
  private readonly chunk = new Int32Column();
  private readonly offset = new Int32Column();
  private readonly length = new Int32Column();
  /** After a restore: reads the restored rows' bodies from the snapshot file as they are needed. */
  private restoredBodies: SnapshotBodies | null = null;
  /**
   * Where each part's value sits in a row's stored UTF-8 body: (start, end) per part in
   * BODY_PARTS order, in bytes from the body's first byte, ABSENT for a part the body lacks.
   * Found by a byte scan on the first read of a row (or handed over at load through
   * setPartByteSpans) and remembered as uint16, 16 bytes per row: rendering a line then copies
   * the parts' bytes without looking at the rest of the body. A body of 64 KiB or more is
   * scanned on every read instead. Allocated on first use.
   */
  private partSpans: Uint16Array = new Uint16Array(0);
  private partSpansKnown: Uint8Array = new Uint8Array(0);
  private readonly spanScratch = new Int32Array(8);

  /** A new row, its body set by the caller next (setText, setBytes or commitRoom). */
  push(): void {
    this.chunk.push(0);
    this.offset.push(0);
    this.length.push(0);
  }

  /** A row's body, from text (the write paths). */
  setText(row: number, text: string): void {
    if (row < this.partSpansKnown.length) this.partSpansKnown[row] = 0;
    const [chunk, offset, length] = this.arena.appendString(text);
    this.setHandle(row, chunk, offset, length);
  }

  /** A new row's body: `bytes[start, end)` as they are. */
  setBytes(row: number, bytes: Uint8Array, start: number, end: number): void {
    const [chunk, offset] = this.arena.append(bytes, start, end);
    this.setHandle(row, chunk, offset, end - start);
  }

  /**
   * Room for a body of up to `length` bytes, written in place: returns the arena chunk to write
   * from roomStart on; commitRoom() then keeps the bytes written (nothing is kept without it).
   */
  room(length: number): Uint8Array {
    return this.arena.reserve(length);
  }

  get roomStart(): number {
    return this.arena.usedBytes;
  }

  /** After room(): the body of `row` is the `length` bytes written from roomStart; `spans` as setPartByteSpans takes them. */
  commitRoom(row: number, length: number, spans: ArrayLike<number>): void {
    const chunk = this.arena.currentChunk, offset = this.arena.usedBytes;
    this.arena.commit(length);
    this.setHandle(row, chunk, offset, length);
    this.setPartByteSpans(row, spans);
  }

  private setHandle(row: number, chunk: number, offset: number, length: number): void {
    this.chunk.data[row] = chunk;
    this.offset.data[row] = offset;
    this.length.data[row] = length;
  }

  /** A restored row's body bytes are in the arena (read from the snapshot on first use). */
  private ready(row: number): void {
    if (this.restoredBodies !== null) this.restoredBodies.ensure(row, this.chunk.data[row], this.offset.data[row], this.length.data[row]);
  }

  text(row: number): string {
    this.ready(row);
    return this.arena.text(this.chunk.data[row], this.offset.data[row], this.length.data[row]);
  }

  /** The stored JSON text of attributes, inputs, output and summary (null when absent), as they are. */
  partTexts(row: number): Array<string | null> {
    this.ready(row);
    const spans = this.spanScratch;
    this.partByteSpans(row, spans);
    const chunk = this.chunk.data[row];
    const out: Array<string | null> = [null, null, null, null];
    for (let k = 0; k < 4; k++) if (spans[2 * k] >= 0) out[k] = this.arena.text(chunk, spans[2 * k], spans[2 * k + 1] - spans[2 * k]);
    return out;
  }

  /** A row's body parsed (big integers keep their digits), a part absent as its default. */
  parsed(row: number): CallBody {
    const obj = parseExact(this.text(row)) as Partial<CallBody>;
    return {
      attributes: (obj.attributes as Record<string, unknown>) ?? {},
      inputs: (obj.inputs as Record<string, unknown>) ?? {},
      output: obj.output ?? null,
      summary: (obj.summary as Record<string, unknown> | null) ?? null,
    };
  }

  /**
   * One JSON part of a row, parsed alone: the part's text is located without parsing the rest
   * (a call body is mostly inputs and output; a query reading `inputs.x` need not parse output).
   * Defaults as in parsed(): `{}` for attributes/inputs, null for output/summary.
   */
  parsedPart(row: number, part: BodyPart): unknown {
    const text = this.partTexts(row)[PART_INDEX[part]];
    const value = text === null ? null : parseExact(text);
    return value === null && (part === 'attributes' || part === 'inputs') ? {} : value;
  }

  /**
   * Part `k` (BODY_PARTS order) of a row alone: its (start, end) in chunkBytes(row) into
   * `out[0..2)` and that chunk, or null when the body lacks the part. What partByteSpans gives
   * for that part, without the other three (a first-use walk reads one part of every row).
   */
  partBytes(row: number, k: number, out: Int32Array): Uint8Array | null {
    if (row < this.partSpansKnown.length && (this.partSpansKnown[row] & SPANS_KNOWN) !== 0) {
      const s = this.partSpans, at = row * 8 + 2 * k;
      if (s[at] === ABSENT) return null;
      const base = this.offset.data[row];
      out[0] = base + s[at];
      out[1] = base + s[at + 1];
      return this.chunkBytes(row);
    }
    const spans = this.spanScratch;
    this.partByteSpans(row, spans);
    if (spans[2 * k] < 0) return null;
    out[0] = spans[2 * k];
    out[1] = spans[2 * k + 1];
    return this.chunkBytes(row);
  }

  /** The arena chunk holding a row's body (read-only by contract). */
  chunkBytes(row: number): Uint8Array {
    this.ready(row);
    return this.arena.chunkBytes(this.chunk.data[row]);
  }

  start(row: number): number {
    return this.offset.data[row];
  }

  byteLength(row: number): number {
    return this.length.data[row];
  }

  /** One value from each place a rendered row's body comes from (see CallTable.touchRows). */
  touch(row: number): number {
    // A restored table's bodies are read from the snapshot when rendered (ready), not here.
    let sum = this.restoredBodies === null ? this.arena.chunkBytes(this.chunk.data[row])[this.offset.data[row]] : 0;
    if (row < this.partSpansKnown.length) sum += this.partSpansKnown[row] + this.partSpans[row * 8];
    return sum;
  }

  /**
   * Where attributes, inputs, output and summary sit in chunkBytes(row): writes (start, end) per
   * part, BODY_PARTS order, into `out[0..8)`, as offsets into the chunk; -1, -1 for a part the
   * body lacks. Scans the body on the first call for a row and remembers.
   */
  partByteSpans(row: number, out: Int32Array): void {
    const base = this.offset.data[row];
    if (row < this.partSpansKnown.length && (this.partSpansKnown[row] & SPANS_KNOWN) !== 0) {
      const s = this.partSpans;
      for (let k = 0, at = row * 8; k < 8; k += 2, at += 2) {
        if (s[at] === ABSENT) out[k] = out[k + 1] = -1;
        else {
          out[k] = base + s[at];
          out[k + 1] = base + s[at + 1];
        }
      }
      return;
    }
    const length = this.length.data[row];
    this.ready(row);
    topLevelValueByteSpans(this.arena.chunkBytes(this.chunk.data[row]), base, base + length, PART_KEY_BYTES, out);
    if (length < SPAN_LIMIT) this.setPartByteSpans(row, out);
    for (let k = 0; k < 8; k++) if (out[k] >= 0) out[k] += base;
  }

  /**
   * Hands over the part spans of a row's body, found elsewhere (a loader that scans each line
   * anyway): (start, end) per part in BODY_PARTS order, in bytes from the body's first byte, -1
   * for an absent part; values without surrounding whitespace, a repeated key's last
   * occurrence, exactly what topLevelValueByteSpans reports. Ignored for bodies of 64 KiB or
   * more (scanned per read).
   */
  setPartByteSpans(row: number, spans: ArrayLike<number>): void {
    if (this.length.data[row] >= SPAN_LIMIT) return;
    if (row >= this.partSpansKnown.length) {
      const cap = Math.max(1024, Math.ceil(this.chunk.length * 1.25), row + 1);
      const known = new Uint8Array(cap);
      known.set(this.partSpansKnown);
      const s = new Uint16Array(cap * 8);
      s.set(this.partSpans);
      this.partSpansKnown = known;
      this.partSpans = s;
    }
    for (let k = 0; k < 8; k++) this.partSpans[row * 8 + k] = spans[k] < 0 ? ABSENT : spans[k];
    this.partSpansKnown[row] = SPANS_KNOWN;
  }

  /**
   * Whether the stored summary's bytes hold `"weave"` or a `\u` escape anywhere
   * (mentionsWeaveOrEscape; false without a summary): checked once per row body and remembered
   * beside the part spans.
   */
  summaryMentionsWeave(row: number): boolean {
    const known = row < this.partSpansKnown.length ? this.partSpansKnown[row] : 0;
    if ((known & SUMMARY_CHECKED) !== 0) return (known & SUMMARY_MENTIONS_WEAVE) !== 0;
    const spans = this.spanScratch;
    this.partByteSpans(row, spans);
    const mentions = spans[6] >= 0 && mentionsWeaveOrEscape(this.chunkBytes(row), spans[6], spans[7]);
    if (row < this.partSpansKnown.length && (this.partSpansKnown[row] & SPANS_KNOWN) !== 0) {
      this.partSpansKnown[row] |= SUMMARY_CHECKED | (mentions ? SUMMARY_MENTIONS_WEAVE : 0);
    }
    return mentions;
  }

  /** Bytes of body text held (memory reports). */
  get arenaBytes(): number {
    return this.arena.byteSize;
  }

  /** Reads and checks every body a snapshot restore left in the file (a no-op otherwise). */
  readRestored(): void {
    this.restoredBodies?.readAll();
  }

  /** The bodies of the first `n` rows for a load snapshot: views, not copies. */
  image(n: number): BodiesImage {
    this.restoredBodies?.readAll(); // the chunks go out whole
    const extents: number[] = new Array(this.arena.chunkCount).fill(0);
    const chunk = this.chunk.data.subarray(0, n), offset = this.offset.data.subarray(0, n), length = this.length.data.subarray(0, n);
    for (let r = 0; r < n; r++) extents[chunk[r]] = Math.max(extents[chunk[r]], offset[r] + length[r]);
    return {
      bodyChunk: chunk,
      bodyOffset: offset,
      bodyLength: length,
      arenaChunks: extents.map((end, i) => this.arena.usedChunkBytes(i, end)),
      partSpans: spansOf(this.partSpans, 8 * n),
      partSpansKnown: spansOf(this.partSpansKnown, n),
    };
  }

  /**
   * Fills these empty bodies with a snapshot's: the handles are views of its bytes, the bodies
   * stay in `arena` (read by `bodies` on first use). Part spans come as the image has them.
   */
  restore(n: number, image: BodiesImage, arena: ByteArena, bodies: SnapshotBodies | null): void {
    if (this.chunk.length !== 0) throw new Error('a snapshot restores into empty bodies only');
    this.arena = arena;
    this.restoredBodies = bodies;
    this.chunk.restore(image.bodyChunk, n);
    this.offset.restore(image.bodyOffset, n);
    this.length.restore(image.bodyLength, n);
    if (image.partSpansKnown.length > 0) {
      checkPartSpans(n, image);
      this.partSpansKnown = image.partSpansKnown;
      this.partSpans = image.partSpans;
    }
  }
}

/**
 * Restored part spans must describe the restored bodies: per known row, each part absent or
 * (start, end) inside the body (the renderer copies those bytes as they are).
 */
function checkPartSpans(n: number, image: BodiesImage): void {
  const spans = image.partSpans, known = image.partSpansKnown, lengths = image.bodyLength;
  if (known.length !== n || spans.length !== 8 * n) throw new RangeError(`snapshot: part spans for ${known.length} rows, not ${n}`);
  for (let r = 0; r < n; r++) {
    const flags = known[r];
    if (flags === 0) continue;
    if ((flags & ~(SPANS_KNOWN | SUMMARY_CHECKED | SUMMARY_MENTIONS_WEAVE)) !== 0 || (flags & SPANS_KNOWN) === 0) throw new RangeError(`snapshot: row ${r}: bad part span flags`);
    for (let at = 8 * r, end = at + 8; at < end; at += 2) {
      const from = spans[at], to = spans[at + 1];
      if (from === ABSENT && to === ABSENT) continue;
      if (to < from || to > lengths[r]) throw new RangeError(`snapshot: row ${r}: part span outside its body`);
    }
  }
}

/** The first `length` entries of a part-span array (zeros past what was allocated: not known). */
function spansOf<T extends Uint8Array | Uint16Array>(a: T, length: number): T {
  if (a.length >= length) return a.subarray(0, length) as T;
  const out = new (a.constructor as new (n: number) => T)(length);
  out.set(a);
  return out;
}
