/**
 * Rendered response lines of a call table's rows, kept as bytes so that a row rendered once is
 * one copy the next time it is rendered the same way (issue #25 goal 5: rendering a line from
 * its columns costs 5–8 µs, copying it well under one).
 *
 * A line is kept per "shape" (what the renderer's output depends on besides the row: the
 * selected columns and the field prefix, as a key the renderer makes; at most MAX_SHAPES at a
 * time, the least recently used dropped), and per row: the table forgets a row's lines whenever
 * the row changes in place (CallTable: an end, a display-name update, a delete, a repeated
 * start), so a line is never older than its row.
 *
 * Memory: lines (each with its newline) go into 1 MiB chunks, one after the other in render
 * order, so that a repeated answer reads them sequentially and consecutive rows' lines are one
 * stretch of bytes (pageChunks hands such a stretch on as it is). Under a byte budget: when the
 * next chunk would pass it, the oldest chunk is dropped (first in, first out) and every line in
 * it counts as absent. Bytes are never overwritten once written, so a view of a chunk handed
 * on stays what it was. Per shape and row a float64 says where the row's line starts and a
 * uint16 how long it is, in pages of PAGE_ROWS rows made when a row of theirs is first kept: a
 * few scattered rows (an id lookup in a 3M-call table) cost a few pages, not two arrays as long
 * as the table (allocating and filling those took 67 ms of a 10-row answer at 3M rows).
 */

/** Bytes per chunk; a line of more than MAX_LINE bytes is not kept (it is rendered each time). */
const CHUNK = 1024 * 1024;
const MAX_LINE = 0xffff;
/** Shapes kept at a time. */
export const MAX_SHAPES = 4;
const NONE = -1;
/** Rows per page of a shape's positions (40 KiB a page). */
const PAGE_BITS = 12;
const PAGE_ROWS = 1 << PAGE_BITS;
const PAGE_MASK = PAGE_ROWS - 1;

/** The lines of one shape: where each row's line starts (a global byte position, or NONE), and its length. */
export class LineShape {
  /** Page `row >>> PAGE_BITS` of the positions, or undefined while no row of it was kept. */
  offsets: Array<Float64Array | undefined> = [];
  lengths: Array<Uint16Array | undefined> = [];
  lastUse = 0;
  /** How often shape() handed it out: a renderer keeps lines from the second render of a shape on. */
  uses = 0;
  constructor(readonly key: string) {}
}

export class RenderedLines {
  /** Live chunks, oldest first; chunks[i] is chunk number firstChunk + i. */
  private chunks: Uint8Array[] = [];
  private firstChunk = 0;
  /** Bytes used in the newest chunk. */
  private used = CHUNK;
  private readonly shapes = new Map<string, LineShape>();
  private uses = 0;
  /** Set by find(): the found line is chunk[foundStart, foundEnd) of the chunk it returned. */
  foundStart = 0;
  foundEnd = 0;

  /**
   * `budget` says how many bytes of chunks may be held (asked each time a chunk is added; less
   * than one chunk keeps nothing).
   */
  constructor(private readonly budget: () => number) {}

  /** The lines of the shape named `key`, made on first use (dropping the least recently used beyond MAX_SHAPES). */
  shape(key: string): LineShape {
    let s = this.shapes.get(key);
    if (s === undefined) {
      if (this.shapes.size >= MAX_SHAPES) {
        let oldest: LineShape | null = null;
        for (const x of this.shapes.values()) if (oldest === null || x.lastUse < oldest.lastUse) oldest = x;
        this.drop(oldest!);
      }
      this.shapes.set(key, (s = new LineShape(key)));
    }
    s.lastUse = ++this.uses;
    s.uses++;
    return s;
  }

  /**
   * The chunk holding `row`'s line of `shape`, its bytes at [foundStart, foundEnd); null when
   * none is kept (never rendered this way, changed since, or dropped with its chunk).
   */
  find(shape: LineShape, row: number): Uint8Array | null {
    const page = row >>> PAGE_BITS;
    const offsets = shape.offsets[page];
    if (offsets === undefined) return null;
    const at = offsets[row & PAGE_MASK];
    if (at < 0) return null;
    const n = Math.floor(at / CHUNK) - this.firstChunk;
    if (n < 0) return null;
    this.foundStart = at - (n + this.firstChunk) * CHUNK;
    this.foundEnd = this.foundStart + shape.lengths[page]![row & PAGE_MASK];
    return this.chunks[n];
  }

  /**
   * Keeps `bytes[start, end)` (a line and its newline) as `row`'s line of `shape` (a copy; too
   * long a line is not kept).
   */
  keep(shape: LineShape, row: number, bytes: Uint8Array, start: number, end: number): void {
    const length = end - start;
    if (length > MAX_LINE || this.shapes.get(shape.key) !== shape) return;
    if (this.used + length > CHUNK && !this.addChunk()) return;
    const at = this.used;
    this.chunks[this.chunks.length - 1].set(bytes.subarray(start, end), at);
    this.used = at + length;
    const page = row >>> PAGE_BITS;
    // Pages up to this one are listed (undefined until kept into), so the lists stay dense arrays.
    while (shape.offsets.length <= page) {
      shape.offsets.push(undefined);
      shape.lengths.push(undefined);
    }
    let offsets = shape.offsets[page];
    if (offsets === undefined) {
      offsets = shape.offsets[page] = new Float64Array(PAGE_ROWS).fill(NONE);
      shape.lengths[page] = new Uint16Array(PAGE_ROWS);
    }
    offsets[row & PAGE_MASK] = (this.firstChunk + this.chunks.length - 1) * CHUNK + at;
    shape.lengths[page]![row & PAGE_MASK] = length;
  }

  /** A new chunk within the budget, dropping the oldest ones to make room; false when the budget holds none. */
  private addChunk(): boolean {
    const most = Math.floor(this.budget() / CHUNK);
    if (most < 1) return false;
    while (this.chunks.length >= most) {
      this.chunks.shift();
      this.firstChunk++;
    }
    this.chunks.push(new Uint8Array(CHUNK));
    this.used = 0;
    return true;
  }

  /** Forgets `row`'s lines of every shape (the row changed in place). */
  forget(row: number): void {
    for (const s of this.shapes.values()) {
      const offsets = s.offsets[row >>> PAGE_BITS];
      if (offsets !== undefined) offsets[row & PAGE_MASK] = NONE;
    }
  }

  /** Forgets every line. */
  clear(): void {
    this.firstChunk += this.chunks.length;
    this.chunks = [];
    this.used = CHUNK;
    for (const s of [...this.shapes.values()]) this.drop(s);
  }

  /**
   * Drops a shape. A render still under way may hold it: emptied, it finds nothing (forget()
   * no longer reaches it) and keeps nothing (keep() checks that it is still kept).
   */
  private drop(shape: LineShape): void {
    this.shapes.delete(shape.key);
    shape.offsets = [];
    shape.lengths = [];
  }

  /** Bytes held: the chunks and the per-row positions. */
  get byteSize(): number {
    let n = this.chunks.length * CHUNK;
    for (const s of this.shapes.values()) for (const page of s.offsets) if (page !== undefined) n += page.byteLength + PAGE_ROWS * 2;
    return n;
  }
}
