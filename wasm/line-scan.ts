/**
 * The calls-line scanner of src/load/calls/line-scan.ts (CallLineScan.scan), in AssemblyScript
 * compiled to WebAssembly with SIMD (scripts/build-wasm.mjs writes
 * src/io/load-calls/line-scan.wasm; a test rebuilds it and compares the bytes). It is the same
 * algorithm, step for step: the JavaScript scanner stays the reference, and the differential
 * tests (src/io/load-calls/wasm-line-scan.test.ts) hold the two to identical results. What
 * differs: the runs through string contents test 16 bytes at a time (v128), and the results go
 * to fixed places in linear memory, which the JavaScript side (wasm-line-scan.ts) reads through
 * typed-array views.
 *
 * Linear memory (byte offsets; everything below INPUT is this module's, the JavaScript side
 * writes only the words and the input):
 *   0    results of the last scan: kinds u8[24], starts i32[24] @32, ends i32[24] @128 (byte
 *        offsets from INPUT), line flags u8 @224, summary.status_counts.error's number span
 *        i32 @228, @232 (-1: none), ref count u8[2] @236, ref unsure u8[2] @238, ref from
 *        i32[2] @240, ref to i32[2] @248;
 *   256  per depth: the container (u8) @256, key escaped @512, watched @768, key from/to and
 *        watched key from/to (i32) @1024, @2048, @3072, @4096;
 *   5120 the field that followed each field on an earlier line (i8[25], -1: none yet);
 *   6144 the words (written by init's caller): their lengths u8[32] @6144, their offsets u16[32]
 *        @6208, their bytes from 6400: the 24 field names in slot order, then the three ref
 *        prefixes, `status_counts`, `error`; the slots of inputs, output, summary @6136..6138;
 *   7168 byte classes: JSON whitespace @7168, simple escapes @7424, hex digits @7680;
 *   65536 the input (a block of lines), followed by at least 16 readable bytes.
 */

const INPUT: i32 = 65536;

const R_KINDS: i32 = 0;
const R_STARTS: i32 = 32;
const R_ENDS: i32 = 128;
const R_FLAGS: i32 = 224;
const R_ERROR_FROM: i32 = 228;
const R_ERROR_TO: i32 = 232;
const R_REF_COUNT: i32 = 236;
const R_REF_UNSURE: i32 = 238;
const R_REF_FROM: i32 = 240;
const R_REF_TO: i32 = 248;

const STACK: i32 = 256;
const KEY_ESCAPED: i32 = 512;
const WATCHED: i32 = 768;
const KEY_FROM: i32 = 1024;
const KEY_TO: i32 = 2048;
const WATCH_FROM: i32 = 3072;
const WATCH_TO: i32 = 4096;
const NEXT_FIELD: i32 = 5120;

const SLOT_INPUTS: i32 = 6136;
const SLOT_OUTPUT: i32 = 6137;
const SLOT_SUMMARY: i32 = 6138;
const WORD_LEN: i32 = 6144;
const WORD_AT: i32 = 6208;
const WORD_REF_PREFIXES: i32 = 24;
const WORD_STATUS_COUNTS: i32 = 27;
const WORD_ERROR: i32 = 28;

const WS: i32 = 7168;
const SIMPLE_ESCAPE: i32 = 7424;
const HEX: i32 = 7680;

// The field count, kinds and flags of line-scan.ts (FIELD_COUNT, KIND, FLAG).
const FIELD_COUNT: i32 = 24;
const KIND_STRING: u8 = 1;
const KIND_ESCAPED_STRING: u8 = 2;
const KIND_NULL: u8 = 3;
const KIND_NUMBER: u8 = 4;
const KIND_TRUE: u8 = 5;
const KIND_FALSE: u8 = 6;
const KIND_OBJECT: u8 = 7;
const KIND_ARRAY: u8 = 8;
const FLAG_INPUTS_REFS: i32 = 1;
const FLAG_OUTPUT_REFS: i32 = 2;

const MAX_DEPTH: i32 = 200;
const PLAIN: i32 = 0;
const REFS: i32 = 1;
const SUMMARY: i32 = 2;

const QUOTE: i32 = 0x22;
const BACKSLASH: i32 = 0x5c;
const COMMA: i32 = 0x2c;
const COLON: i32 = 0x3a;
const OPEN_OBJ: i32 = 0x7b;
const CLOSE_OBJ: i32 = 0x7d;
const OPEN_ARR: i32 = 0x5b;
const CLOSE_ARR: i32 = 0x5d;
const MINUS: i32 = 0x2d;
const PLUS: i32 = 0x2b;
const DOT: i32 = 0x2e;
const ZERO: i32 = 0x30;
const NINE: i32 = 0x39;

let end: i32 = 0;
let lineFlags: i32 = 0;
let escaped: bool = false;
let anyWatched: bool = false;

@inline function byte(i: i32): i32 {
  return <i32>load<u8>(<usize>i);
}

/** Fills the byte classes and forgets the field order learnt so far. */
export function init(): void {
  memory.fill(<usize>WS, 0, 3 * 256);
  store<u8>(<usize>(WS + 0x20), 1);
  store<u8>(<usize>(WS + 0x09), 1);
  store<u8>(<usize>(WS + 0x0a), 1);
  store<u8>(<usize>(WS + 0x0d), 1);
  store<u8>(<usize>(SIMPLE_ESCAPE + 0x22), 1); // "
  store<u8>(<usize>(SIMPLE_ESCAPE + 0x5c), 1); // \
  store<u8>(<usize>(SIMPLE_ESCAPE + 0x2f), 1); // /
  store<u8>(<usize>(SIMPLE_ESCAPE + 0x62), 1); // b
  store<u8>(<usize>(SIMPLE_ESCAPE + 0x66), 1); // f
  store<u8>(<usize>(SIMPLE_ESCAPE + 0x6e), 1); // n
  store<u8>(<usize>(SIMPLE_ESCAPE + 0x72), 1); // r
  store<u8>(<usize>(SIMPLE_ESCAPE + 0x74), 1); // t
  for (let c = 0x30; c <= 0x39; c++) store<u8>(<usize>(HEX + c), 1);
  for (let c = 0x41; c <= 0x46; c++) store<u8>(<usize>(HEX + c), 1);
  for (let c = 0x61; c <= 0x66; c++) store<u8>(<usize>(HEX + c), 1);
  memory.fill(<usize>NEXT_FIELD, 0xff, FIELD_COUNT + 1);
  memory.fill(<usize>WATCHED, 0, MAX_DEPTH + 2);
  anyWatched = false;
}

/**
 * Scans the line at [INPUT + start, INPUT + end). 1 when it is one valid JSON object whose
 * fields were all read, 0 for "take the slow path"; the results are in memory (see above).
 */
export function scan(start: i32, stop: i32): i32 {
  end = INPUT + stop;
  memory.fill(<usize>R_KINDS, 0, FIELD_COUNT);
  lineFlags = 0;
  store<i32>(<usize>R_ERROR_FROM, -1);
  store<i32>(<usize>R_ERROR_TO, -1);
  store<u32>(<usize>R_REF_COUNT, 0); // the counts and the unsure flags of both parts
  if (anyWatched) {
    memory.fill(<usize>WATCHED, 0, MAX_DEPTH + 2); // left by a container that failed to scan
    anyWatched = false;
  }
  const ok = scanLine(INPUT + start);
  store<u8>(<usize>R_FLAGS, <u8>lineFlags);
  return ok ? 1 : 0;
}

function scanLine(start: i32): bool {
  let i = ws(start);
  if (i >= end || byte(i) != OPEN_OBJ) return false;
  i = ws(i + 1);
  if (i < end && byte(i) == CLOSE_OBJ) return ws(i + 1) == end;
  let previous = -1;
  const inputs = byte(SLOT_INPUTS), output = byte(SLOT_OUTPUT), summary = byte(SLOT_SUMMARY);
  while (true) {
    if (i >= end || byte(i) != QUOTE) return false;
    const keyStart = i + 1;
    i = scanString(i);
    if (i < 0 || escaped) return false; // an escaped top-level key: slow path
    const field = fieldAfter(previous, keyStart, i - 1);
    if (field >= 0) previous = field;
    i = ws(i);
    if (i >= end || byte(i) != COLON) return false;
    i = ws(i + 1);
    if (i >= end) return false;
    const valueStart = i;
    let kind: u8;
    const c = byte(i);
    if (c == QUOTE) {
      const mayBeRef = field == output && mayStartRef(i + 1);
      i = scanString(i);
      if (i < 0) return false;
      kind = escaped ? KIND_ESCAPED_STRING : KIND_STRING;
      if (mayBeRef && (escaped || hasRefPrefix(valueStart + 1, i - 1))) {
        lineFlags |= FLAG_OUTPUT_REFS;
        noteRef(1, valueStart + 1, i - 1, 0);
      }
    } else if (c == OPEN_OBJ || c == OPEN_ARR) {
      kind = c == OPEN_OBJ ? KIND_OBJECT : KIND_ARRAY;
      const mode = field == inputs || field == output ? REFS : field == summary ? SUMMARY : PLAIN;
      i = skipContainer(i, mode, field == output ? FLAG_OUTPUT_REFS : FLAG_INPUTS_REFS);
      if (i < 0) return false;
    } else {
      i = scanScalar(i);
      if (i < 0) return false;
      kind = c == 0x6e ? KIND_NULL : c == 0x74 ? KIND_TRUE : c == 0x66 ? KIND_FALSE : KIND_NUMBER;
    }
    if (field >= 0) {
      if (byte(R_KINDS + field) != 0) return false; // a repeated field: slow path
      store<u8>(<usize>(R_KINDS + field), kind);
      store<i32>(<usize>(R_STARTS + 4 * field), valueStart - INPUT);
      store<i32>(<usize>(R_ENDS + 4 * field), i - INPUT);
    }
    i = ws(i);
    if (i >= end) return false;
    if (byte(i) == COMMA) {
      i = ws(i + 1);
      continue;
    }
    if (byte(i) != CLOSE_OBJ) return false;
    return ws(i + 1) == end;
  }
}

/** Whether the word `w` is exactly the bytes [from, to). */
function isWord(w: i32, from: i32, to: i32): bool {
  const n = byte(WORD_LEN + w);
  if (n != to - from) return false;
  const at = <i32>load<u16>(<usize>(WORD_AT + 2 * w));
  for (let k = 0; k < n; k++) if (byte(from + k) != byte(at + k)) return false;
  return true;
}

/** Whether the word `w` opens the bytes [from, to). */
function startsWithWord(w: i32, from: i32, to: i32): bool {
  const n = byte(WORD_LEN + w);
  if (to - from < n) return false;
  const at = <i32>load<u16>(<usize>(WORD_AT + 2 * w));
  for (let k = 0; k < n; k++) if (byte(from + k) != byte(at + k)) return false;
  return true;
}

/** The field of the key [from, to) read after field `previous` (-1: the first key), or -1. */
function fieldAfter(previous: i32, from: i32, to: i32): i32 {
  const guess = <i32>load<i8>(<usize>(NEXT_FIELD + previous + 1));
  if (guess >= 0 && isWord(guess, from, to)) return guess;
  for (let f = 0; f < FIELD_COUNT; f++) {
    if (isWord(f, from, to)) {
      store<i8>(<usize>(NEXT_FIELD + previous + 1), <i8>f);
      return f;
    }
  }
  return -1;
}

function hasRefPrefix(from: i32, to: i32): bool {
  for (let w = WORD_REF_PREFIXES; w < WORD_REF_PREFIXES + 3; w++) if (startsWithWord(w, from, to)) return true;
  return false;
}

/** Whether the string whose text starts at `i` may be a ref: `w`, or an escape that may spell one. */
@inline function mayStartRef(i: i32): bool {
  const c = byte(i);
  return c == 0x77 || c == BACKSLASH;
}

/** See CallLineScan.noteRef. */
function noteRef(part: i32, from: i32, to: i32, depth: i32): void {
  if (byte(R_REF_COUNT + part) != 0 || escaped) {
    store<u8>(<usize>(R_REF_COUNT + part), 2);
    return;
  }
  store<u8>(<usize>(R_REF_COUNT + part), 1);
  store<i32>(<usize>(R_REF_FROM + 4 * part), from - INPUT);
  store<i32>(<usize>(R_REF_TO + 4 * part), to - INPUT);
  for (let d = 1; d <= depth; d++) {
    if (byte(STACK + d) != OPEN_OBJ) continue;
    if (byte(KEY_ESCAPED + d) == 1) store<u8>(<usize>(R_REF_UNSURE + part), 1);
    store<i32>(<usize>(WATCH_FROM + 4 * d), load<i32>(<usize>(KEY_FROM + 4 * d)));
    store<i32>(<usize>(WATCH_TO + 4 * d), load<i32>(<usize>(KEY_TO + 4 * d)));
    store<u8>(<usize>(WATCHED + d), 1);
    anyWatched = true;
  }
}

@inline function ws(i: i32): i32 {
  while (i < end && byte(WS + byte(i)) == 1) i++;
  return i;
}

/**
 * Index past the string opening at `i` (a quote), or -1 when it is not a valid JSON string.
 * The plain run is found 16 bytes at a time: the first quote, backslash or control character
 * (bytes past the line's end may be read, never taken: the input has 16 readable bytes more).
 */
function scanString(i: i32): i32 {
  escaped = false;
  i++;
  const quote = i8x16.splat(<i8>QUOTE);
  const backslash = i8x16.splat(<i8>BACKSLASH);
  const space = i8x16.splat(0x20);
  while (true) {
    while (true) {
      const v = v128.load(<usize>i);
      const stop = v128.or(v128.or(i8x16.eq(v, quote), i8x16.eq(v, backslash)), i8x16.lt_u(v, space));
      const bits = i8x16.bitmask(stop);
      if (bits != 0) {
        i += ctz<i32>(bits);
        break;
      }
      i += 16;
      if (i >= end) break;
    }
    if (i >= end) return -1;
    const c = byte(i);
    if (c == QUOTE) return i + 1;
    if (c != BACKSLASH) return -1; // a raw control character
    escaped = true;
    const e = byte(i + 1);
    if (i + 1 < end && byte(SIMPLE_ESCAPE + e) == 1) i += 2;
    else if (e == 0x75 && i + 5 < end && (byte(HEX + byte(i + 2)) & byte(HEX + byte(i + 3)) & byte(HEX + byte(i + 4)) & byte(HEX + byte(i + 5))) != 0) i += 6;
    else return -1;
  }
}

@inline function isDigit(c: i32): bool {
  return c >= ZERO && c <= NINE;
}

/** Index past the number or literal at `i`, or -1. */
function scanScalar(i: i32): i32 {
  const c = byte(i);
  if (c == 0x6e) return literal(i, 0x75, 0x6c, 0x6c, -1); // null
  if (c == 0x74) return literal(i, 0x72, 0x75, 0x65, -1); // true
  if (c == 0x66) return literal(i, 0x61, 0x6c, 0x73, 0x65); // false
  if (c == MINUS) i++;
  if (i >= end) return -1;
  const first = byte(i);
  if (first == ZERO) i++;
  else if (first > ZERO && first <= NINE) {
    i++;
    while (i < end && isDigit(byte(i))) i++;
  } else return -1;
  if (i < end && byte(i) == DOT) {
    const from = ++i;
    while (i < end && isDigit(byte(i))) i++;
    if (i == from) return -1;
  }
  if (i < end && (byte(i) | 0x20) == 0x65) {
    i++;
    if (i < end && (byte(i) == PLUS || byte(i) == MINUS)) i++;
    const from = i;
    while (i < end && isDigit(byte(i))) i++;
    if (i == from) return -1;
  }
  return i;
}

function literal(i: i32, a: i32, b: i32, c: i32, d: i32): i32 {
  const n = d < 0 ? 4 : 5;
  if (i + n > end || byte(i + 1) != a || byte(i + 2) != b || byte(i + 3) != c || (d >= 0 && byte(i + 4) != d)) return -1;
  return i + n;
}

@inline function sameBytes(a: i32, b: i32, n: i32): bool {
  for (let k = 0; k < n; k++) if (byte(a + k) != byte(b + k)) return false;
  return true;
}

/** See CallLineScan.skipContainer: index past the object or array opening at `i`, or -1. */
function skipContainer(i: i32, mode: i32, refFlag: i32): i32 {
  let depth = 0;
  let keyIsStatusCounts = false, keyIsError = false, inStatusCounts = false;
  let isKey = false;
  const part = refFlag == FLAG_OUTPUT_REFS ? 1 : 0;
  while (true) {
    // A value starts at i (or, after `{`, a key).
    let c = byte(i);
    if (isKey && c != QUOTE) return -1;
    if (c == OPEN_OBJ || c == OPEN_ARR) {
      if (depth == MAX_DEPTH) return -1;
      if (mode == SUMMARY) {
        if (depth == 1) inStatusCounts = c == OPEN_OBJ && keyIsStatusCounts;
      }
      depth++;
      store<u8>(<usize>(STACK + depth), <u8>c);
      i = ws(i + 1);
      if (i >= end) return -1;
      if (byte(i) == (c == OPEN_OBJ ? CLOSE_OBJ : CLOSE_ARR)) {
        i++;
        depth--;
      } else {
        isKey = c == OPEN_OBJ;
        continue; // the first key, or the first element
      }
    } else if (c == QUOTE) {
      const mayBeRef = mode == REFS && !isKey && mayStartRef(i + 1);
      const from = i + 1;
      i = scanString(i);
      if (i < 0) return -1;
      if (isKey) {
        isKey = false;
        if (mode == REFS) {
          if (byte(WATCHED + depth) == 1) {
            // The key of a ref's path again (or one that may spell it): JSON.parse keeps the later value.
            const wFrom = load<i32>(<usize>(WATCH_FROM + 4 * depth)), n = load<i32>(<usize>(WATCH_TO + 4 * depth)) - wFrom;
            if (escaped || (n == i - 1 - from && sameBytes(from, wFrom, n))) store<u8>(<usize>(R_REF_UNSURE + part), 1);
          }
          store<i32>(<usize>(KEY_FROM + 4 * depth), from);
          store<i32>(<usize>(KEY_TO + 4 * depth), i - 1);
          store<u8>(<usize>(KEY_ESCAPED + depth), escaped ? 1 : 0);
        }
        if (mode == SUMMARY && depth <= 2) {
          if (escaped) return -1; // a key the summary path might spell with escapes
          if (depth == 1) {
            keyIsStatusCounts = isWord(WORD_STATUS_COUNTS, from, i - 1);
            if (keyIsStatusCounts) store<i32>(<usize>R_ERROR_FROM, -1); // a later status_counts replaces the earlier
            inStatusCounts = false;
          } else {
            keyIsError = inStatusCounts && isWord(WORD_ERROR, from, i - 1);
            if (keyIsError) store<i32>(<usize>R_ERROR_FROM, -1);
          }
        }
        i = ws(i);
        if (i >= end || byte(i) != COLON) return -1;
        i = ws(i + 1);
        if (i >= end) return -1;
        continue; // the value
      }
      if (mayBeRef && (escaped || hasRefPrefix(from, i - 1))) {
        lineFlags |= refFlag;
        noteRef(part, from, i - 1, depth);
      }
    } else {
      const from = i;
      i = scanScalar(i);
      if (i < 0) return -1;
      // Only a number directly under status_counts.error (not one inside a later array of the summary).
      if (mode == SUMMARY && depth == 2 && keyIsError && inStatusCounts && c != 0x6e && c != 0x74 && c != 0x66) {
        store<i32>(<usize>R_ERROR_FROM, from - INPUT);
        store<i32>(<usize>R_ERROR_TO, i - INPUT);
      }
    }
    // After a value: a comma or the closing bracket(s).
    while (true) {
      if (depth == 0) return i;
      i = ws(i);
      if (i >= end) return -1;
      c = byte(i);
      const open = byte(STACK + depth);
      if (c == COMMA) {
        i = ws(i + 1);
        if (i >= end) return -1;
        if (open == OPEN_OBJ) {
          if (byte(i) != QUOTE) return -1;
          isKey = true;
        }
        break;
      }
      if (c != (open == OPEN_OBJ ? CLOSE_OBJ : CLOSE_ARR)) return -1;
      i++;
      if (mode == SUMMARY && depth == 2) inStatusCounts = keyIsError = false;
      store<u8>(<usize>(WATCHED + depth), 0);
      depth--;
    }
  }
}
