/**
 * The JSON byte vocabulary, stated once: the character codes the byte scanners and writers
 * compare against, JSON whitespace, and byte comparisons. Every module that reads or writes
 * JSON as UTF-8 bytes takes them from here.
 */

export const QUOTE = 0x22, BACKSLASH = 0x5c, COMMA = 0x2c, COLON = 0x3a;
export const OPEN_OBJ = 0x7b, CLOSE_OBJ = 0x7d, OPEN_ARR = 0x5b, CLOSE_ARR = 0x5d;
export const MINUS = 0x2d, PLUS = 0x2b, DOT = 0x2e, ZERO = 0x30, ONE = 0x31, NINE = 0x39;
export const SPACE = 0x20, TAB = 0x09, LF = 0x0a, CR = 0x0d;

/** JSON whitespace (space, tab, line feed, carriage return), by code. */
export const isJsonSpace = (c: number): boolean => c === SPACE || c === TAB || c === LF || c === CR;

/** JSON whitespace as a 256-entry table (1: whitespace), for scanners' inner loops. */
export const JSON_SPACE = new Uint8Array(256);
JSON_SPACE[SPACE] = JSON_SPACE[TAB] = JSON_SPACE[LF] = JSON_SPACE[CR] = 1;

/** Whether `buf[at, at + bytes.length)` holds exactly `bytes`. */
export function bytesEqual(buf: Uint8Array, at: number, bytes: Uint8Array): boolean {
  for (let k = 0; k < bytes.length; k++) if (buf[at + k] !== bytes[k]) return false;
  return true;
}

/** Whether `buf[from, to)` is exactly `bytes` (same length, same bytes). */
export function bytesEqualRange(buf: Uint8Array, from: number, to: number, bytes: Uint8Array): boolean {
  return to - from === bytes.length && bytesEqual(buf, from, bytes);
}

/** Whether the `n` bytes at `a` and at `b` of one buffer are the same. */
export function bytesEqualAt(buf: Uint8Array, a: number, b: number, n: number): boolean {
  for (let k = 0; k < n; k++) if (buf[a + k] !== buf[b + k]) return false;
  return true;
}

/** Whether `b[start, end)` is the literal `null`. */
export function isNullLiteral(b: Uint8Array, start: number, end: number): boolean {
  return end - start === 4 && b[start] === 0x6e && b[start + 1] === 0x75 && b[start + 2] === 0x6c && b[start + 3] === 0x6c;
}
