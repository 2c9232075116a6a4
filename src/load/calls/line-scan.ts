/**
 * A byte-level scanner for one line of calls.jsonl: finds the top-level fields a call record
 * is made of and the spans of its four JSON parts (attributes, inputs, output, summary)
 * without building any object, while validating the whole line as JSON (strings with their
 * escapes and control characters, numbers, literals, nesting).
 *
 * It is the fast path of the fixture load and is allowed to be incomplete: whenever it meets
 * something it does not handle exactly like `JSON.parse` + the record checks would (invalid
 * JSON, a repeated or escaped top-level key, deep nesting, a key escape inside the summary
 * path it reads), it answers false and the caller takes the slow path for that line, which
 * produces the usual `file:line: message`. Only the line's UTF-8 validity is left to the
 * caller (one native check of the whole line).
 *
 * Pure and allocation-free per line: results go into reusable typed arrays, so that the same
 * code can run on a worker thread and ship its results back as-is.
 */
import { BACKSLASH, bytesEqual, bytesEqualAt, bytesEqualRange, CLOSE_ARR, CLOSE_OBJ, COLON, COMMA, DOT, JSON_SPACE as WS, MINUS, NINE, OPEN_ARR, OPEN_OBJ, PLUS, QUOTE, ZERO } from '../../core/json/bytes.ts';

/** The top-level fields a call record reads, in slot order. */
export const CALL_LINE_FIELDS = [
  'id',
  'project_id',
  'op_name',
  'display_name',
  'trace_id',
  'parent_id',
  'thread_id',
  'turn_id',
  'started_at',
  'ended_at',
  'deleted_at',
  'attributes',
  'inputs',
  'output',
  'exception',
  'summary',
  'svc_user_id',
  'svc_run_id',
  'svc_run_step',
  'svc_run_step_end',
  'wb_user_id',
  'wb_run_id',
  'wb_run_step',
  'wb_run_step_end',
] as const;
export type CallLineField = (typeof CALL_LINE_FIELDS)[number];
export const FIELD_COUNT = CALL_LINE_FIELDS.length;
/** Slot of each field. */
export const FIELD = Object.fromEntries(CALL_LINE_FIELDS.map((f, i) => [f, i])) as Record<CallLineField, number>;

/** What a field's value is (`ABSENT`: the key is not in the line). */
export const KIND = {
  ABSENT: 0,
  /** A string without escapes: its text is the bytes between the quotes. */
  STRING: 1,
  /** A string with backslash escapes (decode with JSON.parse). */
  ESCAPED_STRING: 2,
  NULL: 3,
  NUMBER: 4,
  TRUE: 5,
  FALSE: 6,
  OBJECT: 7,
  ARRAY: 8,
} as const;

/** Line flags. */
export const FLAG = {
  /** inputs holds a string that may be a ref (their list needs the parsed part). */
  INPUTS_REFS: 1,
  /** output holds (or is) a string that may be a ref. */
  OUTPUT_REFS: 2,
} as const;

/**
 * Nesting handled by the fast path. Deeper lines take the slow path, which applies the real
 * bound (MAX_BODY_DEPTH) with its own message.
 */
const MAX_DEPTH = 200;


/** Bytes that end the fast run through a string: quote, backslash, control characters. */
const STRING_STOP = new Uint8Array(256);
for (let c = 0; c < 0x20; c++) STRING_STOP[c] = 1;
STRING_STOP[QUOTE] = STRING_STOP[BACKSLASH] = 1;
/** What may follow a backslash (besides `u`). */
const SIMPLE_ESCAPE = new Uint8Array(256);
for (const c of '"\\/bfnrt') SIMPLE_ESCAPE[c.charCodeAt(0)] = 1;
const HEX = new Uint8Array(256);
for (const c of '0123456789abcdefABCDEF') HEX[c.charCodeAt(0)] = 1;

const ascii = (s: string) => Uint8Array.from(s, (c) => c.charCodeAt(0));
const FIELD_BYTES = CALL_LINE_FIELDS.map(ascii);
/** Prefixes of the strings extractRefs may keep (every ref scheme). */
export const REF_PREFIXES = ['weave:///', 'weave-trace-internal:///', 'wandb-artifact:///'].map(ascii);
export const STATUS_COUNTS = ascii('status_counts');
export const ERROR = ascii('error');

/** Scanning mode of a container: what, besides validation, is looked for inside it. */
const PLAIN = 0, REFS = 1, SUMMARY = 2;

/** What the scans of a run of lines found, one slot per line, in typed arrays. */
export interface CallLineScanArrays {
  /** Per slot and field (`slot * FIELD_COUNT + field`): a KIND. */
  kinds: Uint8Array;
  /** Per slot and field: where the value starts and ends (byte offsets into the scanned buffer). */
  starts: Int32Array;
  ends: Int32Array;
  /** Per slot: FLAG bits. */
  flags: Uint8Array;
  /** Per slot: `summary.status_counts.error` when a number (as errorCount reads it), else NaN. */
  errorCounts: Float64Array;
}

/** Scans of lines into slots of typed arrays (one slot: a line at a time). */
export class CallLineScan implements CallLineScanArrays {
  kinds: Uint8Array;
  starts: Int32Array;
  ends: Int32Array;
  flags: Uint8Array;
  errorCounts: Float64Array;

  /** Room for `capacity` slots, or views of arrays filled elsewhere (a worker's). */
  constructor(capacity = 1, arrays?: CallLineScanArrays) {
    this.kinds = arrays?.kinds ?? new Uint8Array(capacity * FIELD_COUNT);
    this.starts = arrays?.starts ?? new Int32Array(capacity * FIELD_COUNT);
    this.ends = arrays?.ends ?? new Int32Array(capacity * FIELD_COUNT);
    this.flags = arrays?.flags ?? new Uint8Array(capacity);
    this.errorCounts = arrays?.errorCounts ?? new Float64Array(capacity);
  }

  get capacity(): number {
    return this.flags.length;
  }

  /** Room for at least `capacity` slots, keeping the first `keep`. */
  reserve(capacity: number, keep: number): void {
    if (capacity <= this.capacity) return;
    const grow = <T extends Uint8Array | Int32Array | Float64Array>(a: T, per: number): T => {
      const next = new (a.constructor as new (n: number) => T)(capacity * per);
      next.set(a.subarray(0, keep * per));
      return next;
    };
    this.kinds = grow(this.kinds, FIELD_COUNT);
    this.starts = grow(this.starts, FIELD_COUNT);
    this.ends = grow(this.ends, FIELD_COUNT);
    this.flags = grow(this.flags, 1);
    this.errorCounts = grow(this.errorCounts, 1);
  }

  /** The arrays with their first `count` slots (what a worker sends). */
  arrays(count: number): CallLineScanArrays {
    return {
      kinds: this.kinds.slice(0, count * FIELD_COUNT),
      starts: this.starts.slice(0, count * FIELD_COUNT),
      ends: this.ends.slice(0, count * FIELD_COUNT),
      flags: this.flags.slice(0, count),
      errorCounts: this.errorCounts.slice(0, count),
    };
  }

  private buf: Uint8Array = new Uint8Array(0);
  private end = 0;
  private lineFlags = 0;
  private errorCount = NaN;
  /** Set by scanString: whether the string just scanned held an escape. */
  private escaped = false;
  private readonly stack = new Uint8Array(MAX_DEPTH + 1);
  /**
   * nextField[f + 1]: the field that followed field f (or opened the line, f = -1) on an
   * earlier line. Lines of a file spell their fields in one order, so the guess nearly always
   * holds; it is checked byte for byte, and a miss searches every field.
   */
  private readonly nextField = new Int8Array(FIELD_COUNT + 1).fill(-1);

  // REFS mode: the ref-like strings of inputs (0) and output (1). When a part holds exactly one
  // (unescaped) and no key on its path is repeated later in its object (JSON.parse would drop
  // the value), its refs are that string's: the caller need not parse the part.
  /** Per part: ref-like strings seen (2 means two or more), and whether the one seen is unsure. */
  readonly refCount = new Uint8Array(2);
  readonly refUnsure = new Uint8Array(2);
  /** Per part: the bytes of the one ref-like string (without its quotes). */
  readonly refFrom = new Int32Array(2);
  readonly refTo = new Int32Array(2);
  /** Per depth: the key being read (its bytes, whether escaped) and the watched key of a ref's path. */
  private readonly keyFrom = new Int32Array(MAX_DEPTH + 2);
  private readonly keyTo = new Int32Array(MAX_DEPTH + 2);
  private readonly keyEscaped = new Uint8Array(MAX_DEPTH + 2);
  private readonly watchFrom = new Int32Array(MAX_DEPTH + 2);
  private readonly watchTo = new Int32Array(MAX_DEPTH + 2);
  private readonly watched = new Uint8Array(MAX_DEPTH + 2);
  private anyWatched = false;

  /**
   * Scans `buf[start, end)` (no byte order mark, no line ending). True when the line is one
   * valid JSON object whose fields were all read; false means "take the slow path".
   */
  scan(buf: Uint8Array, start: number, end: number, slot = 0): boolean {
    this.buf = buf;
    this.end = end;
    const base = slot * FIELD_COUNT;
    this.kinds.fill(0, base, base + FIELD_COUNT);
    this.lineFlags = 0;
    this.errorCount = NaN;
    this.refCount[0] = this.refCount[1] = this.refUnsure[0] = this.refUnsure[1] = 0;
    if (this.anyWatched) {
      this.watched.fill(0); // left by a container that failed to scan
      this.anyWatched = false;
    }
    const ok = this.scanLine(start, base);
    this.flags[slot] = this.lineFlags;
    this.errorCounts[slot] = this.errorCount;
    return ok;
  }

  private scanLine(start: number, base: number): boolean {
    const buf = this.buf, end = this.end;
    let i = this.ws(start);
    if (i >= end || buf[i] !== OPEN_OBJ) return false;
    i = this.ws(i + 1);
    if (i < end && buf[i] === CLOSE_OBJ) return this.ws(i + 1) === end;
    let previous = -1;
    for (;;) {
      if (i >= end || buf[i] !== QUOTE) return false;
      const keyStart = i + 1;
      i = this.scanString(i);
      if (i < 0 || this.escaped) return false; // an escaped top-level key: slow path
      const field = this.fieldAfter(previous, keyStart, i - 1);
      if (field >= 0) previous = field;
      i = this.ws(i);
      if (i >= end || buf[i] !== COLON) return false;
      i = this.ws(i + 1);
      if (i >= end) return false;
      const valueStart = i;
      let kind: number;
      const c = buf[i];
      if (c === QUOTE) {
        const mayBeRef = field === FIELD.output && this.mayStartRef(i + 1);
        i = this.scanString(i);
        if (i < 0) return false;
        kind = this.escaped ? KIND.ESCAPED_STRING : KIND.STRING;
        if (mayBeRef && (this.escaped || this.hasRefPrefix(valueStart + 1, i - 1))) {
          this.lineFlags |= FLAG.OUTPUT_REFS;
          this.noteRef(1, valueStart + 1, i - 1, 0);
        }
      } else if (c === OPEN_OBJ || c === OPEN_ARR) {
        kind = c === OPEN_OBJ ? KIND.OBJECT : KIND.ARRAY;
        const mode = field === FIELD.inputs || field === FIELD.output ? REFS : field === FIELD.summary ? SUMMARY : PLAIN;
        i = this.skipContainer(i, mode, field === FIELD.output ? FLAG.OUTPUT_REFS : FLAG.INPUTS_REFS);
        if (i < 0) return false;
      } else {
        i = this.scanScalar(i);
        if (i < 0) return false;
        kind = c === 0x6e ? KIND.NULL : c === 0x74 ? KIND.TRUE : c === 0x66 ? KIND.FALSE : KIND.NUMBER;
      }
      if (field >= 0) {
        const at = base + field;
        if (this.kinds[at] !== KIND.ABSENT) return false; // a repeated field: slow path
        this.kinds[at] = kind;
        this.starts[at] = valueStart;
        this.ends[at] = i;
      }
      i = this.ws(i);
      if (i >= end) return false;
      if (buf[i] === COMMA) {
        i = this.ws(i + 1);
        continue;
      }
      if (buf[i] !== CLOSE_OBJ) return false;
      return this.ws(i + 1) === end;
    }
  }

  /** The field of the key `buf[from, to)` read after field `previous` (-1: the first key). */
  private fieldAfter(previous: number, from: number, to: number): number {
    const guess = this.nextField[previous + 1];
    if (guess >= 0) {
      const b = FIELD_BYTES[guess];
      if (b.length === to - from && bytesEqual(this.buf, from, b)) return guess;
    }
    const field = fieldOf(this.buf, from, to);
    if (field >= 0) this.nextField[previous + 1] = field;
    return field;
  }

  /**
   * A ref-like string `buf[from, to)` of part `part` (0 inputs, 1 output), in a container at
   * `depth` (0: the part itself): the keys leading to it are watched from now on.
   */
  private noteRef(part: number, from: number, to: number, depth: number): void {
    if (this.refCount[part] !== 0 || this.escaped) {
      this.refCount[part] = 2;
      return;
    }
    this.refCount[part] = 1;
    this.refFrom[part] = from;
    this.refTo[part] = to;
    for (let d = 1; d <= depth; d++) {
      if (this.stack[d] !== OPEN_OBJ) continue;
      if (this.keyEscaped[d] === 1) this.refUnsure[part] = 1;
      this.watchFrom[d] = this.keyFrom[d];
      this.watchTo[d] = this.keyTo[d];
      this.watched[d] = 1;
      this.anyWatched = true;
    }
  }

  private ws(i: number): number {
    const buf = this.buf, end = this.end;
    while (i < end && WS[buf[i]] === 1) i++;
    return i;
  }

  /** Index past the string opening at `i` (a quote), or -1 when it is not a valid JSON string. */
  private scanString(i: number): number {
    const buf = this.buf, end = this.end;
    this.escaped = false;
    i++;
    for (;;) {
      while (i < end && STRING_STOP[buf[i]] === 0) i++;
      if (i >= end) return -1;
      const c = buf[i];
      if (c === QUOTE) return i + 1;
      if (c !== BACKSLASH) return -1; // a raw control character
      this.escaped = true;
      const e = buf[i + 1];
      if (i + 1 < end && SIMPLE_ESCAPE[e] === 1) i += 2;
      else if (e === 0x75 && i + 5 < end && HEX[buf[i + 2]] & HEX[buf[i + 3]] & HEX[buf[i + 4]] & HEX[buf[i + 5]]) i += 6;
      else return -1;
    }
  }

  /** Index past the number or literal at `i`, or -1. */
  private scanScalar(i: number): number {
    const buf = this.buf, end = this.end;
    const c = buf[i];
    if (c === 0x6e) return this.literal(i, 0x75, 0x6c, 0x6c, -1); // null
    if (c === 0x74) return this.literal(i, 0x72, 0x75, 0x65, -1); // true
    if (c === 0x66) return this.literal(i, 0x61, 0x6c, 0x73, 0x65); // false
    if (c === MINUS) i++;
    if (i >= end) return -1;
    if (buf[i] === ZERO) i++;
    else if (buf[i] > ZERO && buf[i] <= NINE) while (++i < end && buf[i] >= ZERO && buf[i] <= NINE);
    else return -1;
    if (i < end && buf[i] === DOT) {
      const from = ++i;
      while (i < end && buf[i] >= ZERO && buf[i] <= NINE) i++;
      if (i === from) return -1;
    }
    if (i < end && (buf[i] | 0x20) === 0x65) {
      i++;
      if (i < end && (buf[i] === PLUS || buf[i] === MINUS)) i++;
      const from = i;
      while (i < end && buf[i] >= ZERO && buf[i] <= NINE) i++;
      if (i === from) return -1;
    }
    return i;
  }

  private literal(i: number, a: number, b: number, c: number, d: number): number {
    const buf = this.buf;
    const n = d < 0 ? 4 : 5;
    if (i + n > this.end || buf[i + 1] !== a || buf[i + 2] !== b || buf[i + 3] !== c || (d >= 0 && buf[i + 4] !== d)) return -1;
    return i + n;
  }

  /** Whether the string whose text starts at `i` may be a ref: `w`, or an escape that may spell one. */
  private mayStartRef(i: number): boolean {
    const c = this.buf[i];
    return c === 0x77 || c === BACKSLASH;
  }

  private hasRefPrefix(from: number, to: number): boolean {
    for (const p of REF_PREFIXES) if (to - from >= p.length && bytesEqual(this.buf, from, p)) return true;
    return false;
  }

  /**
   * Index past the object or array opening at `i`, validating everything inside, or -1.
   * REFS mode sets `refFlag` on meeting a string value that may be a ref. SUMMARY mode reads `status_counts.error` of the summary object, last key wins as
   * in JSON.parse.
   */
  private skipContainer(i: number, mode: number, refFlag: number): number {
    const buf = this.buf, end = this.end, stack = this.stack;
    let depth = 0;
    // SUMMARY: the depth-1 key just read was status_counts / the depth-2 key was error, and
    // whether the depth-2 object being read is status_counts' value.
    let keyIsStatusCounts = false, keyIsError = false, inStatusCounts = false;
    let isKey = false;
    for (;;) {
      // A value starts at i (or, after `{`, a key).
      let c = buf[i];
      if (isKey && c !== QUOTE) return -1;
      if (c === OPEN_OBJ || c === OPEN_ARR) {
        if (depth === MAX_DEPTH) return -1;
        if (mode === SUMMARY) {
          if (depth === 1) inStatusCounts = c === OPEN_OBJ && keyIsStatusCounts;
        }
        stack[++depth] = c;
        i = this.ws(i + 1);
        if (i >= end) return -1;
        if (buf[i] === (c === OPEN_OBJ ? CLOSE_OBJ : CLOSE_ARR)) {
          i++;
          depth--;
        } else {
          isKey = c === OPEN_OBJ;
          continue; // the first key, or the first element
        }
      } else if (c === QUOTE) {
        const mayBeRef = mode === REFS && !isKey && this.mayStartRef(i + 1);
        const from = i + 1;
        i = this.scanString(i);
        if (i < 0) return -1;
        if (isKey) {
          isKey = false;
          if (mode === REFS) {
            if (this.watched[depth] === 1) {
              // The key of a ref's path again (or one that may spell it): JSON.parse keeps the later value.
              const wFrom = this.watchFrom[depth], n = this.watchTo[depth] - wFrom;
              if (this.escaped || (n === i - 1 - from && bytesEqualAt(buf, from, wFrom, n))) this.refUnsure[refFlag === FLAG.OUTPUT_REFS ? 1 : 0] = 1;
            }
            this.keyFrom[depth] = from;
            this.keyTo[depth] = i - 1;
            this.keyEscaped[depth] = this.escaped ? 1 : 0;
          }
          if (mode === SUMMARY && depth <= 2) {
            if (this.escaped) return -1; // a key the summary path might spell with escapes
            if (depth === 1) {
              keyIsStatusCounts = bytesEqualRange(buf, from, i - 1, STATUS_COUNTS);
              if (keyIsStatusCounts) this.errorCount = NaN; // a later status_counts replaces the earlier
              inStatusCounts = false;
            } else {
              keyIsError = inStatusCounts && bytesEqualRange(buf, from, i - 1, ERROR);
              if (keyIsError) this.errorCount = NaN;
            }
          }
          i = this.ws(i);
          if (i >= end || buf[i] !== COLON) return -1;
          i = this.ws(i + 1);
          if (i >= end) return -1;
          continue; // the value
        }
        if (mayBeRef && (this.escaped || this.hasRefPrefix(from, i - 1))) {
          this.lineFlags |= refFlag;
          this.noteRef(refFlag === FLAG.OUTPUT_REFS ? 1 : 0, from, i - 1, depth);
        }
      } else {
        const from = i;
        i = this.scanScalar(i);
        if (i < 0) return -1;
        // Only a number directly under status_counts.error (not one inside a later array of the summary).
        if (mode === SUMMARY && depth === 2 && keyIsError && inStatusCounts && c !== 0x6e && c !== 0x74 && c !== 0x66) {
          this.errorCount = Number(latin1(buf, from, i));
        }
      }
      // After a value: a comma or the closing bracket(s).
      for (;;) {
        if (depth === 0) return i;
        i = this.ws(i);
        if (i >= end) return -1;
        c = buf[i];
        const open = stack[depth];
        if (c === COMMA) {
          i = this.ws(i + 1);
          if (i >= end) return -1;
          if (open === OPEN_OBJ) {
            if (buf[i] !== QUOTE) return -1;
            isKey = true;
          }
          break;
        }
        if (c !== (open === OPEN_OBJ ? CLOSE_OBJ : CLOSE_ARR)) return -1;
        i++;
        if (mode === SUMMARY && depth === 2) inStatusCounts = keyIsError = false;
        this.watched[depth] = 0;
        depth--;
      }
    }
  }
}

/** The text of `buf[from, to)`, a byte a character (the ASCII digits of an error count). */
export function latin1(buf: Uint8Array, from: number, to: number): string {
  let s = '';
  for (let k = from; k < to; k++) s += String.fromCharCode(buf[k]);
  return s;
}

/** The slot of the key `buf[from, to)`, or -1 for a key no call record reads. */
function fieldOf(buf: Uint8Array, from: number, to: number): number {
  const n = to - from;
  const c0 = buf[from];
  for (let f = 0; f < FIELD_COUNT; f++) {
    const b = FIELD_BYTES[f];
    if (b.length === n && b[0] === c0 && bytesEqual(buf, from, b)) return f;
  }
  return -1;
}
