/**
 * Strict UTF-8 for fixture lines: Python's json (which wrote the real data) refuses invalid
 * UTF-8, so tq reports it (`file:line: invalid UTF-8 at byte offset N`) instead of letting
 * Buffer.toString replace it with U+FFFD.
 */
import { isUtf8 } from 'node:buffer';

/** Bytes of a UTF-8 byte order mark. */
export const hasBom = (buf: Uint8Array, start: number, end: number): boolean =>
  end - start >= 3 && buf[start] === 0xef && buf[start + 1] === 0xbb && buf[start + 2] === 0xbf;

/** The length of the sequence a lead byte starts, or 0 when it cannot start one. */
function sequenceLength(b: number): number {
  if (b < 0x80) return 1;
  if (b >= 0xc2 && b <= 0xdf) return 2;
  if (b >= 0xe0 && b <= 0xef) return 3;
  if (b >= 0xf0 && b <= 0xf4) return 4;
  return 0;
}

/** The offset (from `start`) of the first byte that is not valid UTF-8, or -1 (fast when valid). */
export function invalidUtf8Offset(buf: Uint8Array, start: number, end: number): number {
  if (isUtf8(buf.subarray(start, end))) return -1;
  let i = start;
  while (i < end) {
    const n = sequenceLength(buf[i]);
    if (n === 0 || i + n > end) return i - start;
    const b1 = buf[i + 1];
    // The second byte's range excludes overlongs, surrogates and code points past U+10FFFF.
    if (n >= 2) {
      const lo = buf[i] === 0xe0 ? 0xa0 : buf[i] === 0xf0 ? 0x90 : 0x80;
      const hi = buf[i] === 0xed ? 0x9f : buf[i] === 0xf4 ? 0x8f : 0xbf;
      if (b1 < lo || b1 > hi) return i - start;
    }
    for (let k = 2; k < n; k++) if ((buf[i + k] & 0xc0) !== 0x80) return i - start;
    i += n;
  }
  return -1;
}
