/**
 * Where the value at a dot path sits in stored JSON, found without parsing the document: the
 * first query on a new path (a sort or filter on `inputs.model.name`) reads one value per row,
 * and parsing each row's whole part to walk three keys was most of its time.
 *
 * The walk goes down one member per path step. At each level it scans the container's members,
 * skipping every value it does not descend into as the load scanner does (strings by their
 * quotes, containers by their depth), without building anything; a repeated key is resolved to
 * its last occurrence, as JSON.parse keeps the last value. Only the value found is then decoded
 * (readJsonSpan*), so a sort on a short string decodes that string and nothing else.
 *
 * Two twins: over UTF-8 bytes (stored call parts) and over JS strings (stored table rows). The
 * input is known-valid JSON (it was parsed when stored), so only strings, nesting and
 * whitespace are tracked; every byte or code unit below 0x80 is a real structural one (UTF-8
 * continuation bytes and UTF-16 surrogates are all ≥ 0x80).
 */
import { exactPlain, parseExact } from './exact.ts';
import { parseLossless } from './lossless.ts';
import { BACKSLASH, CLOSE_ARR, CLOSE_OBJ, COLON, COMMA, isJsonSpace as isSpace, OPEN_ARR, OPEN_OBJ, QUOTE, SPACE } from './bytes.ts';


/**
 * One step of a path: the object key it names (null when the step never reads an object key)
 * and the array element it names (-1 when it never indexes an array).
 */
export interface PathStep {
  key: string | null;
  /** `key` in UTF-8, for the byte walk. */
  keyBytes: Uint8Array | null;
  index: number;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** A lone surrogate has no UTF-8 spelling: a byte comparison could not tell it from U+FFFD. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Steps for `parts`: `asIndex(part)` says whether a part indexes arrays (then it is no object
 * key); a part that is not an index is always a key. Null when a part cannot be walked here
 * (a lone surrogate, a negative index): the caller parses instead.
 */
export function pathSteps(parts: readonly string[], asIndex: (part: string) => boolean): PathStep[] | null {
  const steps: PathStep[] = [];
  for (const part of parts) {
    if (LONE_SURROGATE.test(part)) return null;
    if (asIndex(part)) {
      const index = Number(part);
      if (!(index >= 0)) return null; // counting from the end: not walked here
      steps.push({ key: null, keyBytes: null, index });
    }
    else steps.push({ key: part, keyBytes: encoder.encode(part), index: -1 });
  }
  return steps;
}


// ---------------------------------------------------------------------------------------------
// Over UTF-8 bytes.

/** Set by skipStringBytes when the string it skipped holds an escape. */
let sawEscape = false;

function skipStringBytes(b: Uint8Array, i: number, end: number): number {
  for (let j = i + 1; j < end; j++) {
    const c = b[j];
    if (c === QUOTE) return j + 1;
    if (c === BACKSLASH) {
      sawEscape = true;
      j++;
    }
  }
  return end;
}

// Outside strings, valid JSON holds no byte at or below 0x20 but its four whitespace bytes:
// the walks below test `<= SPACE`, one comparison instead of four.

/** Index just past the value starting at `i` (no leading whitespace). */
function skipValueBytes(b: Uint8Array, i: number, end: number): number {
  const c = b[i];
  if (c === QUOTE) return skipStringBytes(b, i, end);
  if (c === OPEN_OBJ || c === OPEN_ARR) {
    let depth = 0;
    for (let j = i; j < end; j++) {
      const d = b[j];
      if (d === QUOTE) j = skipStringBytes(b, j, end) - 1;
      else if (d === OPEN_OBJ || d === OPEN_ARR) depth++;
      else if ((d === CLOSE_OBJ || d === CLOSE_ARR) && --depth === 0) return j + 1;
    }
    return end;
  }
  let j = i + 1;
  while (j < end) {
    const d = b[j];
    if (d === COMMA || d === CLOSE_OBJ || d === CLOSE_ARR || d <= SPACE) break;
    j++;
  }
  return j;
}

/**
 * The value at `steps` in the JSON value `b[from, to)`: writes its `[start, end)` into
 * `out[0..2)` and returns true, or returns false when the path does not resolve (a key absent,
 * an index past the end, a step into a scalar, a key step on an array or an index step on an
 * object). Runs once per row on a path's first use: plain indexed loops, nothing allocated.
 */
export function locatePathBytes(b: Uint8Array, from: number, to: number, steps: readonly PathStep[], out: Int32Array): boolean {
  let s = from;
  while (s < to && b[s] <= SPACE) s++;
  let e = to;
  for (let k = 0; k < steps.length; k++) {
    const step = steps[k];
    const c = b[s];
    let found = -1, foundEnd = -1;
    if (c === OPEN_OBJ) {
      const want = step.keyBytes;
      if (want === null) return false;
      const wl = want.length;
      let i = s + 1;
      for (;;) {
        while (i < e && b[i] <= SPACE) i++;
        if (i >= e || b[i] !== QUOTE) break;
        sawEscape = false;
        const keyEnd = skipStringBytes(b, i, e);
        let match = false;
        // An escaped key is decoded to compare; a plain one is compared byte for byte.
        if (sawEscape) match = JSON.parse(decoder.decode(b.subarray(i, keyEnd))) === step.key;
        else if (keyEnd - i - 2 === wl) {
          match = true;
          for (let q = 0; q < wl; q++) {
            if (b[i + 1 + q] !== want[q]) {
              match = false;
              break;
            }
          }
        }
        i = keyEnd;
        while (i < e && b[i] !== COLON) i++;
        i++;
        while (i < e && b[i] <= SPACE) i++;
        const valueEnd = skipValueBytes(b, i, e);
        // A repeated key: the last one wins, as JSON.parse keeps the last value.
        if (match) {
          found = i;
          foundEnd = valueEnd;
        }
        i = valueEnd;
        while (i < e && b[i] <= SPACE) i++;
        if (b[i] === COMMA) i++;
      }
    } else if (c === OPEN_ARR) {
      const index = step.index;
      if (index < 0) return false;
      let i = s + 1;
      for (let n = 0; ; n++) {
        while (i < e && b[i] <= SPACE) i++;
        if (i >= e || b[i] === CLOSE_ARR) break;
        const valueEnd = skipValueBytes(b, i, e);
        if (n === index) {
          found = i;
          foundEnd = valueEnd;
          break;
        }
        i = valueEnd;
        while (i < e && b[i] <= SPACE) i++;
        if (b[i] === COMMA) i++;
      }
    } else {
      return false;
    }
    if (found < 0) return false;
    s = found;
    e = foundEnd;
  }
  while (e > s && b[e - 1] <= SPACE) e--;
  out[0] = s;
  out[1] = e;
  return true;
}

/**
 * One walk of an object's members for several keys at once: a query reading two paths below one
 * part (`inputs.model` and `inputs.max_tokens` in one `$expr`) walks each row's part once, not
 * once per path. After `walk`, `start[k]`/`end[k]` span the value of the last member named by
 * key k (JSON.parse keeps the last), or `start[k]` is -1: what locatePathBytes gives for that
 * key as a one-step path. The span of the last walk is remembered (`walked`), so a second path
 * on the same row reads it without walking again.
 */
export class MemberSpans {
  private readonly keys: PathStep[] = [];
  start = new Int32Array(4);
  end = new Int32Array(4);
  /** What was walked last: the bytes and the span (a new key forgets it). */
  private lastBytes: Uint8Array | null = null;
  private lastFrom = -1;
  private lastTo = -1;

  /** The index of `step`'s key (a key step), added if new. */
  add(step: PathStep): number {
    if (step.keyBytes === null) throw new Error('MemberSpans.add: a key step');
    const known = this.keys.findIndex((k) => k.key === step.key);
    if (known >= 0) return known;
    this.keys.push(step);
    if (this.keys.length > this.start.length) {
      this.start = new Int32Array(2 * this.keys.length);
      this.end = new Int32Array(2 * this.keys.length);
    }
    this.lastBytes = null;
    return this.keys.length - 1;
  }

  /** The keys added, in index order. */
  get wanted(): readonly PathStep[] {
    return this.keys;
  }

  /** Forgets the last walk: `start`/`end` were written from elsewhere (a batched walk, path-walk.ts). */
  forget(): void {
    this.lastBytes = null;
  }

  /**
   * The members of the JSON value `b[from, to)` (none unless an object), unless that was the last
   * walk. The last walk is known by its bytes and span alone: a caller that writes other bytes
   * into the same memory (a scratch, a module's memory) calls forget() first.
   */
  walk(b: Uint8Array, from: number, to: number): void {
    if (b === this.lastBytes && from === this.lastFrom && to === this.lastTo) return;
    this.lastBytes = null; // remembered once walked (an escaped key's decoding may throw)
    this.walkMembers(b, from, to);
    this.lastBytes = b;
    this.lastFrom = from;
    this.lastTo = to;
  }

  private walkMembers(b: Uint8Array, from: number, to: number): void {
    const keys = this.keys, n = keys.length, start = this.start, end = this.end;
    for (let k = 0; k < n; k++) start[k] = -1;
    let i = from;
    while (i < to && b[i] <= SPACE) i++;
    if (b[i] !== OPEN_OBJ) return;
    i++;
    for (;;) {
      while (i < to && b[i] <= SPACE) i++;
      if (i >= to || b[i] !== QUOTE) break;
      sawEscape = false;
      const keyEnd = skipStringBytes(b, i, to);
      const escaped = sawEscape;
      const keyStart = i;
      i = keyEnd;
      while (i < to && b[i] !== COLON) i++;
      i++;
      while (i < to && b[i] <= SPACE) i++;
      const valueEnd = skipValueBytes(b, i, to);
      if (escaped) {
        const key = JSON.parse(decoder.decode(b.subarray(keyStart, keyEnd))) as string;
        for (let k = 0; k < n; k++) {
          if (keys[k].key === key) {
            start[k] = i;
            end[k] = valueEnd;
          }
        }
      } else {
        const len = keyEnd - keyStart - 2;
        for (let k = 0; k < n; k++) {
          const want = keys[k].keyBytes!;
          if (want.length !== len) continue;
          let q = 0;
          while (q < len && b[keyStart + 1 + q] === want[q]) q++;
          if (q === len) {
            start[k] = i;
            end[k] = valueEnd;
          }
        }
      }
      i = valueEnd;
      while (i < to && b[i] <= SPACE) i++;
      if (b[i] === COMMA) i++;
    }
  }
}

/** Node's native Latin-1 slice (ASCII is Latin-1), where there is one: no view allocated. */
const latin1Slice = typeof Buffer === 'function' ? (Buffer.prototype.latin1Slice as ((this: Uint8Array, start: number, end: number) => string) | undefined) : undefined;

/** Text of `b[start, end)`: ASCII spelled out directly (short values), else UTF-8 decoded. */
function textOfBytes(b: Uint8Array, start: number, end: number): string {
  if (end - start <= 64) {
    let ascii = true;
    for (let i = start; i < end; i++) if (b[i] >= 0x80) ascii = false;
    if (ascii) return latin1Slice !== undefined ? latin1Slice.call(b, start, end) : String.fromCharCode.apply(null, b.subarray(start, end) as unknown as number[]);
  }
  return decoder.decode(b.subarray(start, end));
}

/**
 * The JSON value `b[start, end)` as parseExact gives it (core/json/exact.ts: strings decoded,
 * numbers as doubles unless an integer a double would round). Scalars skip JSON.parse.
 */
export function readJsonSpanBytes(b: Uint8Array, start: number, end: number): unknown {
  const c = b[start];
  if (c === QUOTE) {
    let plain = true;
    for (let i = start + 1; i < end - 1; i++) if (b[i] === BACKSLASH) plain = false;
    return plain ? textOfBytes(b, start + 1, end - 1) : JSON.parse(textOfBytes(b, start, end));
  }
  if (c === 0x74) return true; // true
  if (c === 0x66) return false; // false
  if (c === 0x6e) return null; // null
  const text = textOfBytes(b, start, end);
  // A number shorter than 16 characters cannot hold a 16-digit run (exact.ts): Number() is JSON.parse's double.
  if (c !== OPEN_OBJ && c !== OPEN_ARR && text.length < 16) return Number(text);
  return parseExact(text);
}

/** What readSpanFloat decided about a span: its float reading is NULL, a value, or it cannot tell. */
export const SPAN_FLOAT_NULL = 0, SPAN_FLOAT_VALUE = 1, SPAN_FLOAT_UNDECIDED = 2;

/** Exact powers of ten: a double holds 10^0 … 10^22 exactly. */
const EXACT_POW10 = Float64Array.from({ length: 23 }, (_, k) => 10 ** k);

/**
 * The float reading (toFloat64OrNull of the JSON_VALUE text, semantics.md#calls-json-read) of
 * the JSON value `b[start, end)`, decided from its bytes where that is certain, so a numeric
 * sort or filter on a new path makes no string per row:
 *   - a number of at most 15 significant digits and a decimal exponent within ±22 is the
 *     integer of its digits times or over an exact power of ten, one correctly rounded
 *     operation: the double Number() reads from its text, which the JSON_VALUE text (Python's
 *     repr, exact for every double) reads back as. Written to `out[0]`; returns SPAN_FLOAT_VALUE.
 *   - true, false, null, an object, an array, an empty string, or a string whose first
 *     character can start no float text (a letter but i/n, say): SPAN_FLOAT_NULL.
 *   - anything else (longer numbers, -0, strings that may hold a number): SPAN_FLOAT_UNDECIDED,
 *     and the caller reads the text.
 */
export function readSpanFloat(b: Uint8Array, start: number, end: number, out: Float64Array): number {
  let i = start;
  let c = b[i];
  if (c === QUOTE) {
    const first = b[i + 1];
    if (first === QUOTE) return SPAN_FLOAT_NULL; // '' casts to NULL
    // Python's float() text starts with a sign, a digit, '.', inf or nan after stripped spaces;
    // non-ASCII and escapes may be spaces or digits in disguise: undecided.
    if (first >= 0x80 || first === BACKSLASH || first <= SPACE) return SPAN_FLOAT_UNDECIDED;
    if ((first >= 0x30 && first <= 0x39) || first === 0x2b || first === 0x2d || first === 0x2e) return SPAN_FLOAT_UNDECIDED;
    if (first === 0x69 || first === 0x49 || first === 0x6e || first === 0x4e) return SPAN_FLOAT_UNDECIDED; // i I n N
    return SPAN_FLOAT_NULL;
  }
  if (c === 0x74 || c === 0x66 || c === 0x6e || c === OPEN_OBJ || c === OPEN_ARR) return SPAN_FLOAT_NULL;
  const negative = c === 0x2d;
  if (negative) c = b[++i];
  if (!(c >= 0x30 && c <= 0x39)) return SPAN_FLOAT_UNDECIDED;
  let mantissa = 0;
  let digits = 0;
  let scale = 0;
  // Leading zeros count for nothing; every other digit is significant.
  for (; i < end; i++) {
    c = b[i];
    if (c < 0x30 || c > 0x39) break;
    if (digits > 0 || c !== 0x30) digits++;
    mantissa = mantissa * 10 + (c - 0x30);
  }
  if (c === 0x2e) {
    for (i++; i < end; i++) {
      c = b[i];
      if (c < 0x30 || c > 0x39) break;
      if (digits > 0 || c !== 0x30) digits++;
      mantissa = mantissa * 10 + (c - 0x30);
      scale--;
    }
  }
  if (i < end && (c === 0x65 || c === 0x45)) {
    c = b[++i];
    const expNegative = c === 0x2d;
    if (c === 0x2d || c === 0x2b) i++;
    let exp = 0;
    for (; i < end; i++) {
      c = b[i];
      if (c < 0x30 || c > 0x39 || exp > 1000) break;
      exp = exp * 10 + (c - 0x30);
    }
    scale += expNegative ? -exp : exp;
  }
  if (i !== end || digits > 15 || scale > 22 || scale < -22) return SPAN_FLOAT_UNDECIDED;
  if (mantissa === 0 && negative) return SPAN_FLOAT_UNDECIDED; // -0 reads as '0'
  const v = scale >= 0 ? mantissa * EXACT_POW10[scale] : mantissa / EXACT_POW10[-scale];
  out[0] = negative ? -v : v;
  return SPAN_FLOAT_VALUE;
}

/**
 * Short strings decoded before, by a hash of their bytes: a path's distinct values (a model
 * name, a label) are decoded once. The bytes sit in one pool (slot × INTERN_MAX_BYTES), so a
 * miss allocates only its string: about 5 MiB in all, shared by every engine.
 */
const INTERN_SLOTS = 1 << 16;
const INTERN_MAX_BYTES = 48;
const INTERN_PROBES = 4;
const internPool = new Uint8Array(INTERN_SLOTS * INTERN_MAX_BYTES);
/** Byte length + 1 of the string in each slot (0: empty). */
const internLength = new Uint8Array(INTERN_SLOTS);
const internText: string[] = new Array<string>(INTERN_SLOTS).fill('');

/**
 * The decoded content of the JSON string `b[start, end)` (quotes included) when it holds no
 * escape, else undefined (the caller parses it). Short strings come from a cache of recent
 * ones, compared byte for byte, so a path of few distinct values allocates few strings.
 */
export function readPlainStringSpan(b: Uint8Array, start: number, end: number): string | undefined {
  const from = start + 1, to = end - 1;
  const len = to - from;
  if (len > INTERN_MAX_BYTES) {
    for (let i = from; i < to; i++) if (b[i] === BACKSLASH) return undefined;
    return textOfBytes(b, from, to);
  }
  let h = 0x811c9dc5;
  for (let i = from; i < to; i++) {
    const c = b[i];
    if (c === BACKSLASH) return undefined;
    h = Math.imul(h ^ c, 0x01000193);
  }
  // Up to INTERN_PROBES slots from the hash's: a value found there is reused; a new one takes
  // the first empty slot, or the hash's own one when all are taken (the older value is dropped).
  const home = (h ^ (h >>> 16)) & (INTERN_SLOTS - 1);
  let free = -1;
  for (let p = 0; p < INTERN_PROBES; p++) {
    const slot = (home + p) & (INTERN_SLOTS - 1);
    const held = internLength[slot];
    if (held === 0) {
      if (free < 0) free = slot;
      continue;
    }
    if (held !== len + 1) continue;
    const at = slot * INTERN_MAX_BYTES;
    let same = true;
    for (let k = 0; k < len; k++) {
      if (internPool[at + k] !== b[from + k]) {
        same = false;
        break;
      }
    }
    if (same) return internText[slot];
  }
  const slot = free >= 0 ? free : home;
  const text = textOfBytes(b, from, to);
  internPool.set(b.subarray(from, to), slot * INTERN_MAX_BYTES);
  internLength[slot] = len + 1;
  internText[slot] = text;
  return text;
}

// ---------------------------------------------------------------------------------------------
// Over JS strings (the same walk; code units instead of bytes).

function skipStringText(s: string, i: number, end: number): number {
  for (let j = i + 1; j < end; j++) {
    const c = s.charCodeAt(j);
    if (c === QUOTE) return j + 1;
    if (c === BACKSLASH) j++;
  }
  return end;
}

function skipValueText(s: string, i: number, end: number): number {
  const c = s.charCodeAt(i);
  if (c === QUOTE) return skipStringText(s, i, end);
  if (c === OPEN_OBJ || c === OPEN_ARR) {
    let depth = 0;
    for (let j = i; j < end; j++) {
      const d = s.charCodeAt(j);
      if (d === QUOTE) j = skipStringText(s, j, end) - 1;
      else if (d === OPEN_OBJ || d === OPEN_ARR) depth++;
      else if ((d === CLOSE_OBJ || d === CLOSE_ARR) && --depth === 0) return j + 1;
    }
    return end;
  }
  let j = i + 1;
  while (j < end) {
    const d = s.charCodeAt(j);
    if (d === COMMA || d === CLOSE_OBJ || d === CLOSE_ARR || isSpace(d)) break;
    j++;
  }
  return j;
}

function keyMatchesText(s: string, quote: number, keyEnd: number, step: PathStep): boolean {
  const want = step.key!;
  for (let i = quote + 1; i < keyEnd - 1; i++) {
    if (s.charCodeAt(i) === BACKSLASH) return JSON.parse(s.slice(quote, keyEnd)) === want;
  }
  return keyEnd - quote - 2 === want.length && s.startsWith(want, quote + 1);
}

/** locatePathBytes over a JS string. */
export function locatePathText(t: string, from: number, to: number, steps: readonly PathStep[], out: Int32Array): boolean {
  let s = from;
  while (s < to && isSpace(t.charCodeAt(s))) s++;
  let e = to;
  for (const step of steps) {
    const c = t.charCodeAt(s);
    let found = -1, foundEnd = -1;
    if (c === OPEN_OBJ) {
      if (step.key === null) return false;
      let i = s + 1;
      for (;;) {
        while (i < e && isSpace(t.charCodeAt(i))) i++;
        if (i >= e || t.charCodeAt(i) !== QUOTE) break;
        const keyEnd = skipStringText(t, i, e);
        const match = keyMatchesText(t, i, keyEnd, step);
        i = keyEnd;
        while (i < e && t.charCodeAt(i) !== COLON) i++;
        i++;
        while (i < e && isSpace(t.charCodeAt(i))) i++;
        const valueEnd = skipValueText(t, i, e);
        if (match) [found, foundEnd] = [i, valueEnd];
        i = valueEnd;
        while (i < e && isSpace(t.charCodeAt(i))) i++;
        if (t.charCodeAt(i) === COMMA) i++;
      }
    } else if (c === OPEN_ARR) {
      if (step.index < 0) return false;
      let i = s + 1;
      for (let n = 0; ; n++) {
        while (i < e && isSpace(t.charCodeAt(i))) i++;
        if (i >= e || t.charCodeAt(i) === CLOSE_ARR) break;
        const valueEnd = skipValueText(t, i, e);
        if (n === step.index) {
          [found, foundEnd] = [i, valueEnd];
          break;
        }
        i = valueEnd;
        while (i < e && isSpace(t.charCodeAt(i))) i++;
        if (t.charCodeAt(i) === COMMA) i++;
      }
    } else {
      return false;
    }
    if (found < 0) return false;
    s = found;
    e = foundEnd;
  }
  while (e > s && isSpace(t.charCodeAt(e - 1))) e--;
  out[0] = s;
  out[1] = e;
  return true;
}

/**
 * The JSON value `t[start, end)` as a stored table row parses (parseExact, or the lossless
 * parser for Python's NaN/Infinity, which JSON.parse refuses).
 */
export function readJsonSpanText(t: string, start: number, end: number): unknown {
  const c = t.charCodeAt(start);
  if (c === QUOTE) {
    const body = t.slice(start + 1, end - 1);
    return body.includes('\\') ? JSON.parse(t.slice(start, end)) : body;
  }
  if (c === 0x74) return true;
  if (c === 0x66) return false;
  if (c === 0x6e) return null;
  const text = t.slice(start, end);
  try {
    return parseExact(text);
  } catch {
    return exactPlain(parseLossless(text));
  }
}
