/**
 * Whether JSON text keeps its spelling through the native parser and writer
 * (semantics.md#writes-number-spelling): every number an integer of at most 15 digits (not
 * `-0`), or a float that is not a whole number and lies in [1e-4, 1e16) in size, where JS's
 * shortest form and Python's `repr` are the same text (`0.7`; not `1.0`, which JS writes `1`, nor
 * `1e-05`); no NaN or Infinity; and no object key that a JS object would move (an index-like key
 * such as `"1"`, which JS orders first). For such text `JSON.parse` gives the
 * values the exact (lossless) reading gives, and `JSON.stringify` of any part of it is the text
 * tq stores for that part, so a write route may skip the lossless parse. The scan is one pass
 * over the text; a false "no" only costs the exact path.
 */
import { BACKSLASH, COLON, DOT, isJsonSpace, MINUS, NINE, PLUS, QUOTE, ZERO } from './bytes.ts';

const LOWER_E = 0x65, UPPER_E = 0x45, UPPER_N = 0x4e, UPPER_I = 0x49;
/** Integers of up to 15 digits are exact doubles, whatever the digits. */
const MAX_PLAIN_DIGITS = 15;

const isDigit = (c: number) => c >= ZERO && c <= NINE;
const isNumberChar = (c: number) => isDigit(c) || c === DOT || c === LOWER_E || c === UPPER_E || c === MINUS || c === PLUS;

/** A float JS prints as Python's `repr` does: not whole (JS drops `.0`), positional in both. */
function samePrintedFloat(x: number): boolean {
  const size = Math.abs(x);
  return Number.isFinite(x) && !Number.isInteger(x) && size >= 1e-4 && size < 1e16;
}

/** Whether `text[from, to)` is all digits: a key JS would treat as an array index (conservatively). */
function indexLike(text: string, from: number, to: number): boolean {
  if (from === to) return false;
  for (let k = from; k < to; k++) if (!isDigit(text.charCodeAt(k))) return false;
  return true;
}

/** Whether `text[from, to)` holds a backslash (a scan of the key only: linear over the text). */
function holdsBackslash(text: string, from: number, to: number): boolean {
  for (let k = from; k < to; k++) if (text.charCodeAt(k) === BACKSLASH) return true;
  return false;
}

export function keepsSpellingNatively(text: string): boolean {
  const n = text.length;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const from = i + 1;
      let end = from;
      // The closing quote: the next quote not preceded by an odd run of backslashes.
      for (;;) {
        const q = text.indexOf('"', end);
        if (q < 0) return false; // not JSON: the exact path says why
        let b = q - 1;
        while (b >= from && text.charCodeAt(b) === BACKSLASH) b--;
        end = q + 1;
        if ((q - 1 - b) % 2 === 0) break;
      }
      let j = end;
      while (j < n && isJsonSpace(text.charCodeAt(j))) j++;
      if (j < n && text.charCodeAt(j) === COLON) {
        // A key with escapes may decode to an index (`"\u0031"`): the exact path decides.
        if (holdsBackslash(text, from, end - 1) || indexLike(text, from, end - 1)) return false;
      }
      i = end;
      continue;
    }
    if (c === MINUS || isDigit(c)) {
      const from = i;
      const digitsFrom = c === MINUS ? i + 1 : i;
      i = digitsFrom;
      while (i < n && isDigit(text.charCodeAt(i))) i++;
      const digits = i - digitsFrom;
      if (digits === 0) return false;
      const next = i < n ? text.charCodeAt(i) : 0;
      if (next === DOT || next === LOWER_E || next === UPPER_E) {
        while (i < n && isNumberChar(text.charCodeAt(i))) i++;
        if (!samePrintedFloat(Number(text.slice(from, i)))) return false;
        continue;
      }
      if (digits > MAX_PLAIN_DIGITS) return false;
      if (c === MINUS && digits === 1 && text.charCodeAt(digitsFrom) === ZERO) return false; // -0
      continue;
    }
    if (c === UPPER_N || c === UPPER_I) return false; // NaN, Infinity (Python's json reads them)
    i++;
  }
  return true;
}
