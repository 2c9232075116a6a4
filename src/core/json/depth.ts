/**
 * The nesting-depth bound of request bodies. Everything downstream of a body (validation,
 * the 422 echo, digests, writers, expression parsing, ref walking) recurses or allocates per
 * level, so the depth is checked once, up front, with loops only. 1000 is far beyond any
 * real client and matches what Python's json (CPython's recursion limit), and so Weave's
 * server, can take at all.
 */
import { BACKSLASH, CLOSE_ARR, CLOSE_OBJ, OPEN_ARR, OPEN_OBJ, QUOTE } from './bytes.ts';

export const MAX_BODY_DEPTH = 1000;

/**
 * The offset of the bracket that opens level `max + 1` of a JSON text, or -1 when the text
 * nests no deeper than `max`. Brackets inside strings do not count; the text need not be
 * valid JSON (the parser reports that afterwards).
 */
export function textDepthExceeded(text: string, max = MAX_BODY_DEPTH): number {
  let depth = 0;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      // Jump to the closing quote (indexOf is far faster than a loop over the string's text):
      // a quote preceded by an odd run of backslashes is escaped.
      let close = i;
      for (;;) {
        close = text.indexOf('"', close + 1);
        if (close < 0) return -1; // an unterminated string: no bracket after it counts
        let k = close - 1;
        while (text.charCodeAt(k) === BACKSLASH) k--;
        if ((close - 1 - k) % 2 === 0) break;
      }
      i = close;
    } else if (c === OPEN_ARR || c === OPEN_OBJ) {
      if (++depth > max) return i;
    } else if (c === CLOSE_ARR || c === CLOSE_OBJ) {
      if (depth > 0) depth--;
    }
  }
  return -1;
}

/** True when a JS value nests arrays/objects deeper than `max` (explicit stack, no recursion). */
export function valueDepthExceeded(value: unknown, max = MAX_BODY_DEPTH): boolean {
  const stack: Array<{ v: unknown; d: number }> = [{ v: value, d: 0 }];
  while (stack.length > 0) {
    const { v, d } = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (d + 1 > max) return true;
    const children = Array.isArray(v) ? v : Object.values(v as Record<string, unknown>);
    for (const child of children) if (child !== null && typeof child === 'object') stack.push({ v: child, d: d + 1 });
  }
  return false;
}
