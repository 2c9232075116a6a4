/**
 * JSON Lines written as UTF-8 bytes into a reusable output buffer, handed over in chunks of
 * whole lines.
 *
 * Streams render their rows here: stored JSON is copied as bytes, computed pieces (ids,
 * numbers, datetimes) are written straight into the buffer, and only what has no byte form
 * yet (a value that had to be parsed and re-serialised) goes through a string. A chunk is cut
 * after the line that brings it to `chunkTarget` bytes, so every chunk ends with a newline and
 * holds whole lines; a line larger than the buffer grows it for that chunk alone. A taken
 * chunk belongs to the taker (the writer continues in a fresh buffer), so a front end may
 * queue it on a socket without copying.
 */

/** Default chunk size: large enough that per-chunk costs vanish, small enough to stream. */
export const CHUNK_TARGET = 64 * 1024;

const QUOTE = 0x22, BACKSLASH = 0x5c, NEWLINE = 0x0a;
const encoder = new TextEncoder();

/**
 * The UTF-8 bytes of a constant piece of JSON (keys, separators), encoded once. Every byte
 * array the writer reads or writes is a plain Uint8Array (no Buffer): copies between arrays of
 * one kind stay monomorphic, several times faster per byte.
 */
export const utf8 = (text: string): Uint8Array => encoder.encode(text);

const NULL = utf8('null');

export class JsonLineWriter {
  private buf: Uint8Array;
  private pos = 0;
  /** Lines completed in the current chunk. */
  private lines = 0;

  constructor(readonly chunkTarget = CHUNK_TARGET) {
    this.buf = allocate(this.capacity());
  }

  /** Room for a chunk and the slack of its last line, so growing is rare. */
  private capacity(): number {
    return this.chunkTarget + (this.chunkTarget >> 2) + 64;
  }

  /** Makes room for `n` more bytes, keeping what is written. */
  private ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    const grown = allocate(Math.max(this.buf.length * 2, this.pos + n));
    grown.set(this.buf.subarray(0, this.pos));
    this.buf = grown;
  }

  /** Bytes written since the last take(). */
  get size(): number {
    return this.pos;
  }

  /** Copies `src[start, end)` (stored JSON, pre-encoded constants). */
  bytes(src: Uint8Array, start = 0, end = src.length): void {
    const n = end - start;
    this.ensure(n);
    const buf = this.buf;
    let pos = this.pos;
    if (n < 64) for (let i = start; i < end; i++) buf[pos++] = src[i];
    else {
      buf.set(src.subarray(start, end), pos);
      pos += n;
    }
    this.pos = pos;
  }

  /** Text whose UTF-8 bytes go out as they are (JSON already serialised elsewhere). */
  text(s: string): void {
    const n = s.length;
    this.ensure(n * 3);
    const buf = this.buf;
    let pos = this.pos;
    let i = 0;
    // ASCII goes byte by byte (most text); the first other character hands the rest to the encoder.
    for (; i < n; i++) {
      const c = s.charCodeAt(i);
      if (c >= 0x80) break;
      buf[pos++] = c;
    }
    if (i < n) pos += encoder.encodeInto(i === 0 ? s : s.slice(i), buf.subarray(pos)).written;
    this.pos = pos;
  }

  /** A string as JSON, exactly as JSON.stringify spells it; null as `null`. */
  str(s: string | null): void {
    if (s === null) return this.bytes(NULL);
    const n = s.length;
    this.ensure(n + 2);
    const buf = this.buf;
    let pos = this.pos;
    buf[pos++] = QUOTE;
    for (let i = 0; i < n; i++) {
      const c = s.charCodeAt(i);
      // Printable ASCII needs no escape; anything else is JSON.stringify's to spell.
      if (c < 0x20 || c >= 0x7f || c === QUOTE || c === BACKSLASH) return this.text(JSON.stringify(s));
      buf[pos++] = c;
    }
    buf[pos++] = QUOTE;
    this.pos = pos;
  }

  /** A number as JSON.stringify spells it (digits written directly for safe integers); null as `null`. */
  num(v: number | null): void {
    if (v === null) return this.bytes(NULL);
    if (!Number.isSafeInteger(v) || Object.is(v, -0)) return this.text(JSON.stringify(v));
    this.ensure(17);
    const buf = this.buf;
    if (v < 0) {
      buf[this.pos++] = 0x2d;
      v = -v;
    }
    let digits = 1;
    for (let x = v; x >= 10; x = Math.floor(x / 10)) digits++;
    let at = this.pos + digits;
    this.pos = at;
    do {
      const q = Math.floor(v / 10);
      buf[--at] = 0x30 + (v - q * 10);
      v = q;
    } while (v > 0);
  }

  /**
   * For writers of fixed-size pieces (datetime digits): makes room for `n` bytes and returns the
   * buffer; write at `position`, then advance(). Valid until the next call on the writer.
   */
  room(n: number): Uint8Array {
    this.ensure(n);
    return this.buf;
  }

  get position(): number {
    return this.pos;
  }

  /** Moves past `n` bytes written through room(). */
  advance(n: number): void {
    this.pos += n;
  }

  /** Ends the line; true when the chunk is due (take() it). */
  endLine(): boolean {
    this.ensure(1);
    this.buf[this.pos++] = NEWLINE;
    this.lines++;
    return this.pos >= this.chunkTarget;
  }

  /** Lines in the chunk so far. */
  get lineCount(): number {
    return this.lines;
  }

  /** Hands over the written bytes (whole lines when taken after endLine) and starts afresh. */
  take(): Uint8Array {
    const chunk = this.buf.subarray(0, this.pos);
    this.buf = allocate(this.capacity());
    this.pos = 0;
    this.lines = 0;
    return chunk;
  }
}

/**
 * A plain Uint8Array (see utf8()), uninitialised where the platform can (every byte is written
 * before it is handed over; zeroing a chunk costs as much as filling it).
 */
function allocate(n: number): Uint8Array {
  return typeof Buffer === 'function' ? new Uint8Array(Buffer.allocUnsafeSlow(n).buffer, 0, n) : new Uint8Array(n);
}
