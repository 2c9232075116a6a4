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
import { BACKSLASH, LF, QUOTE } from './bytes.ts';

/** Default chunk size: large enough that per-chunk costs vanish, small enough to stream. */
export const CHUNK_TARGET = 64 * 1024;

const NEWLINE = LF;
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
  /** End of the room the last room() made (-1: none since the last other write). */
  private roomEnd = -1;

  constructor(readonly chunkTarget = CHUNK_TARGET) {
    this.buf = allocate(this.capacity());
  }

  /** Room for a chunk and the slack of its last line, so growing is rare. */
  private capacity(): number {
    return this.chunkTarget + (this.chunkTarget >> 2) + 64;
  }

  /** Makes room for `n` more bytes, keeping what is written. */
  private ensure(n: number): void {
    this.roomEnd = -1;
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
    this.ensure(end - start);
    this.pos = putBytes(this.buf, this.pos, src, start, end);
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
    this.ensure(jsonStringRoom(s));
    this.pos = putJsonString(this.buf, this.pos, s);
  }

  /** A number as JSON.stringify spells it (digits written directly for safe integers); null as `null`. */
  num(v: number | null): void {
    if (v === null) return this.bytes(NULL);
    this.ensure(NUMBER_ROOM);
    this.pos = putJsonNumber(this.buf, this.pos, v);
  }

  /**
   * For writers of fixed-size pieces (datetime digits): makes room for `n` bytes and returns the
   * buffer; write at `position`, then advance(). Valid until the next call on the writer.
   */
  room(n: number): Uint8Array {
    this.ensure(n);
    this.roomEnd = this.pos + n;
    return this.buf;
  }

  get position(): number {
    return this.pos;
  }

  /**
   * Moves past `n` bytes written through room(). More than the room made is an error, never a
   * silent loss: a byte written past the buffer's end is dropped by the typed array, and one
   * past the room may be overwritten by the next grow.
   */
  advance(n: number): void {
    if (n < 0 || this.pos + n > this.roomEnd) {
      throw new RangeError(`JsonLineWriter: ${n} bytes written where room() made ${this.roomEnd < 0 ? 'none' : `${this.roomEnd - this.pos}`}`);
    }
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

// Positional primitives: each writes at `b[at]`, which the caller made room for, and returns
// the next index. The writer's methods use them after ensure(); a row writer that reserves room
// for a whole line once (room()/advance()) calls them directly, without a method call per piece.

/**
 * Copies `src[start, end)` to `b[at]`. Short pieces byte by byte (a view and a native call cost
 * more than the loop), long ones with set().
 */
export function putBytes(b: Uint8Array, at: number, src: Uint8Array, start = 0, end = src.length): number {
  const n = end - start;
  if (n < 32) {
    for (let i = start; i < end; i++) b[at++] = src[i];
    return at;
  }
  // A whole array (a constant piece) is set as it is: no view to make.
  b.set(n === src.length ? src : src.subarray(start, end), at);
  return at + n;
}

/** Room a string may take as JSON: six bytes per UTF-16 unit (`\u00XX`), and the quotes. */
export function jsonStringRoom(s: string): number {
  return s.length * 6 + 2;
}

/** `s` as JSON, exactly as JSON.stringify spells it (room: jsonStringRoom). */
export function putJsonString(b: Uint8Array, at: number, s: string): number {
  const n = s.length;
  let i = at;
  b[i++] = QUOTE;
  for (let k = 0; k < n; k++) {
    const c = s.charCodeAt(k);
    // Printable ASCII needs no escape; anything else is JSON.stringify's to spell.
    if (c < 0x20 || c >= 0x7f || c === QUOTE || c === BACKSLASH) return at + encoder.encodeInto(JSON.stringify(s), b.subarray(at)).written;
    b[i++] = c;
  }
  b[i++] = QUOTE;
  return i;
}

/** Room a number takes as JSON.stringify spells it (`-1.2345678901234567e-308` and shorter). */
export const NUMBER_ROOM = 24;

/** A number as JSON.stringify spells it; digits written directly for safe integers (room: NUMBER_ROOM). */
export function putJsonNumber(b: Uint8Array, at: number, v: number): number {
  if (!Number.isSafeInteger(v) || Object.is(v, -0)) {
    const text = JSON.stringify(v);
    for (let k = 0; k < text.length; k++) b[at++] = text.charCodeAt(k);
    return at;
  }
  if (v < 0) {
    b[at++] = 0x2d;
    v = -v;
  }
  let digits = 1;
  for (let x = v; x >= 10; x = Math.floor(x / 10)) digits++;
  let end = at + digits;
  const next = end;
  do {
    const q = Math.floor(v / 10);
    b[--end] = 0x30 + (v - q * 10);
    v = q;
  } while (v > 0);
  return next;
}

/**
 * A plain Uint8Array (see utf8()), uninitialised where the platform can (every byte is written
 * before it is handed over; zeroing a chunk costs as much as filling it).
 */
function allocate(n: number): Uint8Array {
  return typeof Buffer === 'function' ? new Uint8Array(Buffer.allocUnsafeSlow(n).buffer, 0, n) : new Uint8Array(n);
}
