/**
 * The member walk of src/core/json/path-extract.ts (MemberSpans.walk), in AssemblyScript
 * compiled to WebAssembly with SIMD, over a batch of rows at once: for each row's JSON value
 * (a call body part copied into this module's memory), the span of the last member named by
 * each wanted key. scripts/build-wasm.mjs (path-walk) compiles it into
 * src/core/json/path-walk-wasm.ts (the bytes as base64; a test rebuilds and compares).
 *
 * It is MemberSpans.walk step for step; what differs: string contents and the insides of
 * skipped containers are crossed 16 bytes at a time (the next quote or backslash; the next
 * quote or bracket), and two cases are handed back to the JavaScript walk instead of being
 * decided here (status 1): a key with an escape (compared after JSON decoding there), and a
 * member whose value would start at or past the row's end (the JavaScript walk then reads a
 * byte outside the span, which is not in this memory). The JavaScript walk stays the
 * reference; path-walk.test.ts holds the two to identical spans.
 *
 * Linear memory (byte offsets):
 *   0      the key count (i32); key lengths i32[8] @16; key offsets i32[8] @48;
 *   128    the key bytes (up to 1024);
 *   4096   per row of the batch: from, to (i32 pairs, absolute offsets into this memory);
 *   12288  per row and key: the value's start, end (i32 pairs, absolute; -1, -1 when absent);
 *   77824  per row: the status (u8: 0 walked here, 1 walk it in JavaScript);
 *   81920  the input (the rows' bytes), followed by at least 16 readable bytes;
 *   past the largest input, where its caller says: a table sort's readings (`readings` below).
 */

const KEY_COUNT: i32 = 0;
const KEY_LEN: i32 = 16;
const KEY_AT: i32 = 48;
const ROWS: i32 = 4096;
const RESULTS: i32 = 12288;
const STATUS: i32 = 77824;

const QUOTE: i32 = 0x22;
const BACKSLASH: i32 = 0x5c;
const COLON: i32 = 0x3a;
const COMMA: i32 = 0x2c;
const OPEN_OBJ: i32 = 0x7b;
const CLOSE_OBJ: i32 = 0x7d;
const CLOSE_ARR: i32 = 0x5d;
const SPACE: i32 = 0x20;

/** Set by skipString when the string it crossed holds a backslash. */
let sawEscape: bool = false;

@inline function byte(i: i32): i32 {
  return <i32>load<u8>(<usize>i);
}

/** The bits of the 16 bytes at `i` that are at or past `end`, cleared. */
@inline function within(bits: i32, i: i32, end: i32): i32 {
  const left = end - i;
  return left < 16 ? bits & ((1 << left) - 1) : bits;
}

/** Index just past the string opening at `i` (skipStringBytes): `end` when it does not close before. */
function skipString(i: i32, end: i32): i32 {
  const quote = i8x16.splat(<i8>QUOTE);
  const backslash = i8x16.splat(<i8>BACKSLASH);
  let j = i + 1;
  while (true) {
    if (j >= end) return end;
    const v = v128.load(<usize>j);
    const bits = within(i8x16.bitmask(v128.or(i8x16.eq(v, quote), i8x16.eq(v, backslash))), j, end);
    if (bits == 0) {
      j += 16;
      continue;
    }
    j += ctz<i32>(bits);
    if (byte(j) == QUOTE) return j + 1;
    sawEscape = true;
    j += 2; // the escaped byte is skipped whatever it is
  }
}

/** Index just past the value starting at `i` (skipValueBytes; `i` < `end`). */
function skipValue(i: i32, end: i32): i32 {
  const c = byte(i);
  if (c == QUOTE) return skipString(i, end);
  if ((c | 0x20) == OPEN_OBJ) return skipContainer(i, end);
  let j = i + 1;
  while (j < end) {
    const d = byte(j);
    if (d == COMMA || d == CLOSE_OBJ || d == CLOSE_ARR || d <= SPACE) break;
    j++;
  }
  return j;
}

/**
 * Index just past the object or array opening at `i` (skipValueBytes' depth count: brackets of
 * both kinds counted alike, strings crossed whole): `end` when it does not close before.
 * Each step takes 16 bytes outside any string. Without a backslash among them, the quotes'
 * running parity marks which bytes are inside strings; the brackets outside are counted at
 * once unless the depth could reach zero among them, then one by one. A string left open at
 * the step's end is crossed by skipString. With a backslash, the step goes quote by quote.
 */
function skipContainer(i: i32, end: i32): i32 {
  const quote = i8x16.splat(<i8>QUOTE);
  const backslash = i8x16.splat(<i8>BACKSLASH);
  const open = i8x16.splat(<i8>OPEN_OBJ);
  const close = i8x16.splat(<i8>CLOSE_OBJ);
  const lower = i8x16.splat(0x20);
  let depth = 0;
  let j = i;
  while (true) {
    if (j >= end) return end;
    const v = v128.load(<usize>j);
    const folded = v128.or(v, lower); // '[' → '{', ']' → '}'
    const quotes = within(i8x16.bitmask(i8x16.eq(v, quote)), j, end);
    const opens = within(i8x16.bitmask(i8x16.eq(folded, open)), j, end);
    const closes = within(i8x16.bitmask(i8x16.eq(folded, close)), j, end);
    if (within(i8x16.bitmask(i8x16.eq(v, backslash)), j, end) == 0) {
      let inside = quotes ^ (quotes << 1);
      inside ^= inside << 2;
      inside ^= inside << 4;
      inside ^= inside << 8;
      const outOpens = opens & ~inside, outCloses = closes & ~inside;
      const nCloses = <i32>popcnt<u32>(outCloses);
      if (depth > nCloses) depth += <i32>popcnt<u32>(outOpens) - nCloses;
      else {
        let bits = outOpens | outCloses;
        while (bits != 0) {
          const p = ctz<i32>(bits);
          if (((outOpens >> p) & 1) != 0) depth++;
          else if (--depth == 0) return j + p + 1;
          bits &= bits - 1;
        }
      }
      // An odd count of quotes: the last one opens a string that goes on past these 16 bytes.
      j = (popcnt<u32>(quotes) & 1) != 0 ? skipString(j + 31 - clz<i32>(quotes), end) : j + 16;
      continue;
    }
    let bits = quotes | opens | closes;
    let next = j + 16;
    while (bits != 0) {
      const p = j + ctz<i32>(bits);
      const d = byte(p);
      if (d == QUOTE) {
        next = skipString(p, end);
        break;
      }
      if ((d | 0x20) == OPEN_OBJ) depth++;
      else if (--depth == 0) return p + 1;
      bits &= bits - 1;
    }
    j = next;
  }
  return end; // (not reached: the loop returns)
}

/** Whether the key `[from, from + n)` is wanted key k's bytes. */
@inline function keyIs(k: i32, from: i32, n: i32): bool {
  if (load<i32>(<usize>(KEY_LEN + 4 * k)) != n) return false;
  const at = load<i32>(<usize>(KEY_AT + 4 * k));
  for (let q = 0; q < n; q++) if (byte(from + q) != byte(at + q)) return false;
  return true;
}

/** The member walk of one row's value `[from, to)` (MemberSpans.walk): 0, or 1 to walk it in JavaScript. */
function walkRow(from: i32, to: i32, out: i32, keys: i32): i32 {
  for (let k = 0; k < keys; k++) {
    store<i32>(<usize>(out + 8 * k), -1);
    store<i32>(<usize>(out + 8 * k + 4), -1);
  }
  let i = from;
  while (i < to && byte(i) <= SPACE) i++;
  // At `to` the JavaScript walk reads the next byte; whatever it is, it finds no member.
  if (i >= to || byte(i) != OPEN_OBJ) return 0;
  i++;
  while (true) {
    while (i < to && byte(i) <= SPACE) i++;
    if (i >= to || byte(i) != QUOTE) break;
    sawEscape = false;
    const keyStart = i;
    const keyEnd = skipString(i, to);
    if (sawEscape) return 1;
    i = keyEnd;
    while (i < to && byte(i) != COLON) i++;
    i++;
    while (i < to && byte(i) <= SPACE) i++;
    if (i >= to) return 1;
    const valueEnd = skipValue(i, to);
    const n = keyEnd - keyStart - 2;
    for (let k = 0; k < keys; k++) {
      if (keyIs(k, keyStart + 1, n)) {
        store<i32>(<usize>(out + 8 * k), i);
        store<i32>(<usize>(out + 8 * k + 4), valueEnd);
      }
    }
    i = valueEnd;
    while (i < to && byte(i) <= SPACE) i++;
    if (i < to && byte(i) == COMMA) i++;
  }
  return 0;
}

/** Walks rows 0..rows-1 of the batch (their spans at ROWS), writing RESULTS and STATUS. */
export function walk(rows: i32): void {
  const keys = load<i32>(<usize>KEY_COUNT);
  for (let r = 0; r < rows; r++) {
    const from = load<i32>(<usize>(ROWS + 8 * r));
    const to = load<i32>(<usize>(ROWS + 8 * r + 4));
    store<u8>(<usize>(STATUS + r), <u8>walkRow(from, to, RESULTS + 8 * keys * r, keys));
  }
}

/*
 * A table's first sort (src/query/table/row-sort.ts setSortColumnsOfSpan): after a batch of rows
 * is walked for one key, the readings that need no JavaScript, per row, into the area at `out`
 * (arrays of 1024 rows each; src/core/json/path-walk.ts RowTextWalk.readBatch copies them out):
 *   out + 0      the text's prefix key (f64);
 *   out + 8192   where the text starts and ends in the row (i32, -1 and 0: the text is made);
 *   out + 16384  present (u8), out + 17408 the float tier (u8);
 *   out + 18432  1 where the row was read here, else 0 (every other reading then left at 0,
 *                from at -1: JavaScript reads the row);
 *   out + 19456  input: 1 where the row is all ASCII (its byte offsets are code-unit offsets).
 * Read here: a key that is absent, an object or array, a literal, and a string with no escape
 * that casts to no float, of an all-ASCII row the module walked itself.
 */
const READ_FROM: i32 = 8192;
const READ_TO: i32 = 12288;
const READ_PRESENT: i32 = 16384;
const READ_TIER: i32 = 17408;
const READ_KIND: i32 = 18432;
const READ_ASCII: i32 = 19456;
/** row-sort.ts FLOAT_NULL: no float reading. */
const FLOAT_NULL: i32 = 2;

/** row-sort.ts textPrefixKey of the ASCII text `[from, to)`: 7 units of 7 bits, 0x7f or above ends it. */
function prefixKey(from: i32, to: i32): f64 {
  let key: f64 = 0;
  let j = 0;
  for (; j < 7 && from + j < to; j++) {
    const u = byte(from + j);
    if (u >= 0x7f) {
      key = key * 128 + 0x7f;
      j++;
      break;
    }
    key = key * 128 + <f64>u;
  }
  for (; j < 7; j++) key *= 128;
  return key;
}

/** row-sort.ts startsNoFloat: the string opening at `s` certainly casts to no float. */
function startsNoFloat(s: i32): bool {
  const first = byte(s + 1);
  if (first == 0x69 || first == 0x49) return (byte(s + 2) | 0x20) != 0x6e || (byte(s + 3) | 0x20) != 0x66;
  if (first == 0x6e || first == 0x4e) return (byte(s + 2) | 0x20) != 0x61 || (byte(s + 3) | 0x20) != 0x6e;
  // path-extract.ts readSpanFloat of a string: undecided from these first bytes, else no float.
  if (first >= 0x80 || first == BACKSLASH || first <= SPACE) return false;
  return !((first >= 0x30 && first <= 0x39) || first == 0x2b || first == 0x2d || first == 0x2e);
}

/** Whether `[s, e)` is exactly the 4 or 5 bytes of `word` (little-endian in an i64). */
@inline function spells(s: i32, e: i32, word: i64, n: i32): bool {
  if (e - s != n) return false;
  for (let q = 0; q < n; q++) if (byte(s + q) != <i32>((word >> (8 * q)) & 0xff)) return false;
  return true;
}

export function readings(rows: i32, out: i32): void {
  const keys = load<i32>(<usize>KEY_COUNT);
  for (let r = 0; r < rows; r++) {
    let kind = 0, present = 0, tier = 0, from = -1, to = 0;
    let prefix: f64 = 0;
    const rowFrom = load<i32>(<usize>(ROWS + 8 * r));
    if (load<u8>(<usize>(STATUS + r)) == 0 && load<u8>(<usize>(out + READ_ASCII + r)) != 0) {
      const s = load<i32>(<usize>(RESULTS + 8 * keys * r));
      const e = load<i32>(<usize>(RESULTS + 8 * keys * r + 4));
      if (s < 0) {
        kind = 1;
        tier = FLOAT_NULL;
      } else {
        const c = byte(s);
        if (c == QUOTE) {
          let escaped = false;
          for (let q = s + 1; q < e - 1; q++) {
            if (byte(q) == BACKSLASH) {
              escaped = true;
              break;
            }
          }
          if (!escaped && startsNoFloat(s)) {
            kind = 1;
            present = 1;
            tier = FLOAT_NULL;
            from = s + 1 - rowFrom;
            to = e - 1 - rowFrom;
            prefix = prefixKey(s + 1, e - 1);
          }
        } else if ((c | 0x20) == OPEN_OBJ) {
          kind = 1;
          present = 1;
          tier = FLOAT_NULL;
        } else if (spells(s, e, 0x65757274, 4) || spells(s, e, 0x65736c6166, 5) || spells(s, e, 0x6c6c756e, 4)) {
          // true, false, null: the text is the row's own bytes; null is not present.
          kind = 1;
          present = c == 0x6e ? 0 : 1;
          tier = FLOAT_NULL;
          from = s - rowFrom;
          to = e - rowFrom;
          prefix = prefixKey(s, e);
        }
      }
    }
    store<f64>(<usize>(out + 8 * r), prefix);
    store<i32>(<usize>(out + READ_FROM + 4 * r), from);
    store<i32>(<usize>(out + READ_TO + 4 * r), to);
    store<u8>(<usize>(out + READ_PRESENT + r), <u8>present);
    store<u8>(<usize>(out + READ_TIER + r), <u8>tier);
    store<u8>(<usize>(out + READ_KIND + r), <u8>kind);
  }
}
