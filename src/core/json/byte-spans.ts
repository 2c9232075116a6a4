/**
 * Where the values of chosen top-level keys sit in a JSON object's UTF-8 bytes, without
 * decoding or parsing it: the byte twin of spans.testing.ts (the former text scanner).
 *
 * The calls query writes each returned call by copying the stored bytes of its parts
 * (attributes, inputs, output, summary) into the output buffer; this finds those parts. The
 * bytes are known-valid JSON (they were parsed when stored), so this only tracks strings and
 * nesting depth. Multi-byte UTF-8 sequences never contain bytes below 0x80, so every structural
 * byte found here is a real one.
 */
import { BACKSLASH, bytesEqualRange as sameBytes, CLOSE_ARR, CLOSE_OBJ, COLON, COMMA, OPEN_ARR, OPEN_OBJ, QUOTE } from './bytes.ts';


/** Index just past the string opening at `i` (its quote), or `end` when it does not close. */
function skipString(b: Uint8Array, i: number, end: number): number {
  for (let j = i + 1; j < end; j++) {
    const c = b[j];
    if (c === QUOTE) return j + 1;
    if (c === BACKSLASH) j++; // the escaped byte (a quote or backslash included) is content
  }
  return end;
}


const decoder = new TextDecoder();

/** Which of `keys` the key string `b[quote, keyEnd)` (quotes included) spells, or -1. */
function keyIndex(b: Uint8Array, quote: number, keyEnd: number, keys: readonly Uint8Array[]): number {
  for (let i = quote + 1; i < keyEnd - 1; i++) {
    if (b[i] === BACKSLASH) {
      // An escaped spelling (`"\u0069nputs"`) names the same key once decoded, as for JSON.parse.
      const name = JSON.parse(decoder.decode(b.subarray(quote, keyEnd))) as string;
      const bytes = new TextEncoder().encode(name);
      return keys.findIndex((k) => sameBytes(bytes, 0, bytes.length, k));
    }
  }
  for (let k = 0; k < keys.length; k++) if (sameBytes(b, quote + 1, keyEnd - 1, keys[k])) return k;
  return -1;
}

/**
 * For each of `keys` (UTF-8), the `[start, end)` of its value in the top-level object held in
 * `b[from, to)`, relative to `from`, written into `out` (2 entries per key); `[-1, -1]` when
 * absent. A repeated key reports its last occurrence, as JSON.parse keeps the last value.
 * Values keep their bytes exactly (whitespace inside them included, around them trimmed).
 */
export function topLevelValueByteSpans(b: Uint8Array, from: number, to: number, keys: readonly Uint8Array[], out: Int32Array): void {
  out.fill(-1, 0, keys.length * 2);
  let i = from;
  while (i < to && b[i] !== OPEN_OBJ) i++;
  i++;
  while (i < to) {
    // The next key (or the end of the object).
    let c = b[i];
    while (c !== QUOTE && c !== CLOSE_OBJ && i < to) c = b[++i];
    if (c !== QUOTE || i >= to) break;
    const keyEnd = skipString(b, i, to);
    const k = keyIndex(b, i, keyEnd, keys);
    i = keyEnd;
    while (i < to && b[i] !== COLON) i++;
    i++;
    while (i < to && b[i] <= 0x20) i++;
    // The value: up to the comma or brace that closes it at this depth.
    const start = i;
    let depth = 0;
    for (; i < to; i++) {
      c = b[i];
      if (c === QUOTE) {
        i = skipString(b, i, to) - 1;
      } else if (c === OPEN_OBJ || c === OPEN_ARR) {
        depth++;
      } else if (c === CLOSE_OBJ || c === CLOSE_ARR) {
        if (depth === 0) break;
        depth--;
      } else if (c === COMMA && depth === 0) {
        break;
      }
    }
    let end = i;
    while (end > start && b[end - 1] <= 0x20) end--;
    if (k >= 0) {
      out[2 * k] = start - from;
      out[2 * k + 1] = end - from;
    }
    if (i >= to || b[i] === CLOSE_OBJ) break;
    i++; // past the comma
  }
}

const WEAVE = [0x22, 0x77, 0x65, 0x61, 0x76, 0x65, 0x22]; // "weave"

/**
 * Whether `b[start, end)` holds the bytes `"weave"` or a `\u` escape anywhere: the stored
 * summaries a renderer may not splice its computed `weave` block into without parsing (the key
 * may be there, or spelled with escapes).
 */
export function mentionsWeaveOrEscape(b: Uint8Array, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const c = b[i];
    if (c === BACKSLASH && i + 1 < end && b[i + 1] === 0x75 /* u */) return true;
    if (c === QUOTE && i + 7 <= end && b[i + 6] === QUOTE) {
      let k = 1;
      while (k < 6 && b[i + k] === WEAVE[k]) k++;
      if (k === 6) return true;
    }
  }
  return false;
}
