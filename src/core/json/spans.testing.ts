/**
 * For tests: where the values of chosen top-level keys sit in a JSON object's text, without
 * parsing it. This is how the former text renderer found a call's parts; the byte renderer
 * uses byte-spans.ts, and the text renderer kept as its oracle (response-text.testing.ts) and
 * the byte scanner's tests use this one.
 *
 * The text is known-valid JSON (it was parsed when stored), so this only tracks strings and
 * nesting depth.
 */
import { BACKSLASH, CLOSE_ARR, CLOSE_OBJ, COMMA, OPEN_ARR, OPEN_OBJ, QUOTE } from './bytes.ts';


/** Index just past the string starting at `i` (the opening quote): the next unescaped quote. */
function skipString(text: string, i: number): number {
  let j = text.indexOf('"', i + 1);
  while (j > 0) {
    let backslashes = 0;
    while (text.charCodeAt(j - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return j + 1;
    j = text.indexOf('"', j + 1);
  }
  return text.length;
}


/**
 * For each of `keys`, the `[start, end)` of its value in the top-level object `text`, or
 * `[-1, -1]` when absent. A repeated key reports its last occurrence, as JSON.parse keeps the
 * last value. Values keep their text exactly (whitespace inside them included).
 */
export function topLevelValueSpans(text: string, keys: readonly string[]): Int32Array {
  const spans = new Int32Array(keys.length * 2).fill(-1);
  let i = text.indexOf('{');
  if (i < 0) return spans;
  i++;
  const n = text.length;
  while (i < n) {
    // The next key (or the end of the object).
    let c = text.charCodeAt(i);
    while (c !== QUOTE && c !== CLOSE_OBJ && i < n) c = text.charCodeAt(++i);
    if (c !== QUOTE) break;
    const keyEnd = skipString(text, i);
    const raw = text.slice(i + 1, keyEnd - 1);
    const key = raw.includes('\\') ? (JSON.parse(text.slice(i, keyEnd)) as string) : raw;
    i = text.indexOf(':', keyEnd) + 1;
    while (text.charCodeAt(i) <= 0x20) i++;
    // The value: up to the comma or brace that closes it at this depth.
    const start = i;
    let depth = 0;
    for (; i < n; i++) {
      c = text.charCodeAt(i);
      if (c === QUOTE) {
        i = skipString(text, i) - 1;
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
    while (end > start && text.charCodeAt(end - 1) <= 0x20) end--;
    const k = keys.indexOf(key);
    if (k >= 0) {
      spans[2 * k] = start;
      spans[2 * k + 1] = end;
    }
    if (text.charCodeAt(i) === CLOSE_OBJ) break;
    i++; // past the comma
  }
  return spans;
}
