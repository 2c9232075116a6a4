/**
 * Per-row memos of dynamic call fields (`inputs.n`, `summary.usage...`): reading one parses a
 * call body, so the readings a query makes are kept for the next query. They live in the
 * store's derived caches (per engine, counted), per call table and path, a few paths per table
 * (least recently used goes first); a memo is dropped when a row changes in place
 * (CallTable.version). Appended rows start unknown.
 *
 * Each reading (text, float cast, int cast, existence) has its own arrays, allocated when a
 * query first asks for that reading: a numeric filter keeps 9 bytes per row, not the text.
 */
import type { CallTable } from '../../store/call-table.ts';
import { stringBytes, type DerivedCache } from '../../store/derived.ts';
import type { Store } from '../../store/store.ts';
import { jsonValueString, toFloat64OrNull, toInt64OrNull } from '../../core/ch/values.ts';
import type { FieldAccessor } from './expr/fields.ts';
import { MISSING } from './json-path.ts';
import { readJsonSpanBytes, readPlainStringSpan, readSpanFloat, SPAN_FLOAT_NULL, SPAN_FLOAT_VALUE } from '../../core/json/path-extract.ts';
import { BACKSLASH, QUOTE, bytesEqualRange, isNullLiteral } from '../../core/json/bytes.ts';

type JsonAccessor = Extract<FieldAccessor, { kind: 'json' }>;

/** Reads the raw value at a row, or MISSING. */
export type RawReader = (row: number) => unknown;

/**
 * Where a row's value sits in stored UTF-8 bytes: returns the bytes and writes the value's
 * `[start, end)` into `span[0..2)`, or returns null when the row has no value at the path. The
 * value there is what the accessor's RawReader gives decoded (readJsonSpanBytes).
 */
export type SpanLocator = (row: number, span: Int32Array) => Uint8Array | null;

const UNKNOWN = 0, VALUE = 1, NULL = 2;
const utf8 = new TextEncoder();
const utf8Decoder = new TextDecoder();
const ABSENT = 1, PRESENT = 2;

/** The memo of one dynamic path over one table. */
export class PathMemo {
  /** The texts, or null until a query reads texts. */
  str: Array<string | undefined> | null = null;
  strBytes = 0;
  float: Float64Array | null = null;
  /** UNKNOWN, VALUE or NULL per row. */
  floatState: Uint8Array | null = null;
  int: Float64Array | null = null;
  intState: Uint8Array | null = null;
  /** 0 unknown, ABSENT (missing or JSON null), PRESENT. */
  exists: Uint8Array | null = null;
  /** Per string literal an `$eq` compared the text with: UNKNOWN, VALUE (equal) or NULL (not), per row. */
  readonly equal = new Map<string, Uint8Array>();
  private capacity = 0;

  constructor(readonly version: number) {}

  /** Room for `size` rows in every allocated reading. */
  ensure(size: number): void {
    if (this.capacity >= size) return;
    const cap = Math.max(size, Math.ceil(this.capacity * 1.5), 1024);
    const grow = <T extends Float64Array | Uint8Array>(a: T | null, make: (n: number) => T): T | null => {
      if (a === null) return null;
      const b = make(cap);
      b.set(a);
      return b;
    };
    this.float = grow(this.float, (n) => new Float64Array(n));
    this.floatState = grow(this.floatState, (n) => new Uint8Array(n));
    this.int = grow(this.int, (n) => new Float64Array(n));
    this.intState = grow(this.intState, (n) => new Uint8Array(n));
    this.exists = grow(this.exists, (n) => new Uint8Array(n));
    for (const [literal, known] of this.equal) this.equal.set(literal, grow(known, (n) => new Uint8Array(n))!);
    this.capacity = cap;
  }

  floats(): [Float64Array, Uint8Array] {
    if (this.float === null) [this.float, this.floatState] = [new Float64Array(this.capacity), new Uint8Array(this.capacity)];
    return [this.float, this.floatState!];
  }

  ints(): [Float64Array, Uint8Array] {
    if (this.int === null) [this.int, this.intState] = [new Float64Array(this.capacity), new Uint8Array(this.capacity)];
    return [this.int, this.intState!];
  }

  existence(): Uint8Array {
    return (this.exists ??= new Uint8Array(this.capacity));
  }

  texts(): Array<string | undefined> {
    return (this.str ??= []);
  }

  /** The equality readings against `literal` (the oldest literal's go past EQUAL_LITERALS_PER_PATH). */
  equality(literal: string): Uint8Array {
    let known = this.equal.get(literal);
    if (known === undefined) {
      if (this.equal.size >= EQUAL_LITERALS_PER_PATH) this.equal.delete(this.equal.keys().next().value as string);
      this.equal.set(literal, (known = new Uint8Array(this.capacity)));
    }
    return known;
  }

  bytes(): number {
    let n = this.strBytes + (this.str === null ? 0 : 8 * this.str.length);
    for (const a of [this.float, this.floatState, this.int, this.intState, this.exists]) if (a !== null) n += a.byteLength;
    for (const [literal, known] of this.equal) n += stringBytes(literal) + known.byteLength;
    return n;
  }
}

/** String literals whose `$eq` readings a path keeps (a byte per row each). */
export const EQUAL_LITERALS_PER_PATH = 4;

/** Paths memoised per table; at a million calls a numeric path costs about 9 MB. */
export const MEMO_PATHS_PER_TABLE = 8;

/** Every path memo of one store, per call table. */
export class PathMemos implements DerivedCache {
  private readonly tables = new Map<CallTable, Map<string, PathMemo>>();

  /** The memo of `path` over `table`, current for the table's version (LRU refreshed). */
  memo(table: CallTable, path: string): PathMemo {
    let cache = this.tables.get(table);
    if (!cache) this.tables.set(table, (cache = new Map()));
    let memo = cache.get(path);
    if (memo && memo.version !== table.version) memo = undefined;
    if (memo) {
      cache.delete(path); // refresh its LRU position
    } else {
      memo = new PathMemo(table.version);
      if (cache.size >= MEMO_PATHS_PER_TABLE) cache.delete(cache.keys().next().value as string);
    }
    cache.set(path, memo);
    return memo;
  }

  /** Paths memoised for `table` (tests and reports). */
  paths(table: CallTable): string[] {
    return [...(this.tables.get(table)?.keys() ?? [])];
  }

  clear(): void {
    this.tables.clear();
  }

  bytes(): number {
    let n = 0;
    for (const cache of this.tables.values()) for (const [path, memo] of cache) n += stringBytes(path) + memo.bytes();
    return n;
  }
}

export const pathMemos = (store: Store): PathMemos => store.derived.get('calls.path_memos', () => new PathMemos());

/**
 * A dynamic field's accessor over `memo`. Existence ("present and not JSON null", the first
 * sort key) is read from the value unless `readExists` is given: production reads it with
 * JSONType hops, which differ from the value's JSON_VALUE path when the path has index parts.
 *
 * With `locate` (the value's place in the stored bytes), readings are taken from the bytes
 * where they can be: the float reading of a plain number and existence without any string,
 * a string's text decoded once per distinct short value (core/json/path-extract.ts); what
 * the bytes cannot decide is read through `read` as before, with the same answer.
 */
export function jsonAccessor(read: RawReader, memo: PathMemo, size: number, readExists?: RawReader, locate?: SpanLocator): JsonAccessor {
  memo.ensure(size);
  const present = (v: unknown) => (v === MISSING || v === null ? ABSENT : PRESENT);
  const span = new Int32Array(2);
  const floatOut = new Float64Array(1);
  /** The JSON_VALUE text of a row from its located bytes (existence noted on the way). */
  const readLocatedText = (row: number): string => {
    const b = locate!(row, span);
    if (b === null) {
      if (readExists === undefined) memo.existence()[row] = ABSENT;
      return '';
    }
    const start = span[0], end = span[1];
    if (readExists === undefined) memo.existence()[row] = isNullLiteral(b, start, end) ? ABSENT : PRESENT;
    const v = (b[start] === QUOTE ? readPlainStringSpan(b, start, end) : undefined) ?? readJsonSpanBytes(b, start, end);
    const s = jsonValueString(v);
    return s === 'null' ? '' : s;
  };
  /** The text reading, computed: coalesce(nullIf(JSON_VALUE(..), 'null'), '') (semantics.md#calls-json-read). */
  const readText = (row: number): string => {
    if (locate !== undefined) return readLocatedText(row);
    const v = read(row);
    if (readExists === undefined) memo.existence()[row] = present(v);
    const s = v === MISSING ? '' : jsonValueString(v);
    return s === 'null' ? '' : s;
  };
  const str = (row: number): string => {
    const texts = memo.texts();
    let s = texts[row];
    if (s === undefined) {
      s = texts[row] = readText(row);
      memo.strBytes += stringBytes(s);
    }
    return s;
  };
  /** The text for a cast: memoised when texts are, else read again (the cast is what is kept). */
  const textForCast = (row: number): string => (memo.str !== null ? str(row) : readText(row));
  /**
   * The float reading of `row` decided from its bytes into the memo (existence too): VALUE or
   * NULL, or UNKNOWN when only the text can tell.
   */
  const floatOfBytes = (row: number, values: Float64Array, state: Uint8Array): number => {
    const b = locate!(row, span);
    if (b === null) {
      if (readExists === undefined) memo.existence()[row] = ABSENT;
      return (state[row] = NULL);
    }
    const code = readSpanFloat(b, span[0], span[1], floatOut);
    if (code === SPAN_FLOAT_NULL) state[row] = NULL;
    else if (code === SPAN_FLOAT_VALUE) {
      values[row] = floatOut[0];
      state[row] = VALUE;
    } else return UNKNOWN;
    if (readExists === undefined) memo.existence()[row] = isNullLiteral(b, span[0], span[1]) ? ABSENT : PRESENT;
    return state[row];
  };
  /**
   * `str(row) === literal` for each row, read from the located bytes where they decide it (no
   * string made): a plain JSON string (no backslash) whose bytes are the literal's UTF-8 is
   * equal; one that differs and is all ASCII is not (ASCII bytes decode one to one). Anything
   * else (an escape, other bytes, a number, an object) is decided by the text. Not for '' or
   * 'null', which a missing value or JSON null also reads as.
   */
  const textEquals = (literal: string): ((row: number) => boolean) => {
    const want = utf8.encode(literal);
    const known = memo.equality(literal);
    const byText = (row: number): boolean => {
      const equal = str(row) === literal;
      known[row] = equal ? VALUE : NULL;
      return equal;
    };
    // (A literal that is not well-formed UTF-16 encodes as U+FFFD: its bytes would match that.)
    if (literal === '' || literal === 'null' || want.includes(BACKSLASH) || utf8Decoder.decode(want) !== literal) return (row) => (known[row] === UNKNOWN ? byText(row) : known[row] === VALUE);
    return (row) => {
      const k = known[row];
      if (k !== UNKNOWN) return k === VALUE;
      const texts = memo.str;
      if (texts !== null && texts[row] !== undefined) return byText(row);
      const b = locate!(row, span);
      if (b === null) {
        if (readExists === undefined) memo.existence()[row] = ABSENT;
        known[row] = NULL;
        return false;
      }
      const start = span[0], end = span[1];
      if (b[start] !== QUOTE) return byText(row);
      const from = start + 1, to = end - 1;
      const equal = bytesEqualRange(b, from, to, want);
      if (!equal) {
        // Unequal bytes are an unequal text only when they decode one to one.
        for (let i = from; i < to; i++) if (b[i] >= 0x80 || b[i] === BACKSLASH) return byText(row);
      }
      if (readExists === undefined) memo.existence()[row] = PRESENT;
      known[row] = equal ? VALUE : NULL;
      return equal;
    };
  };
  const accessor: JsonAccessor = {
    kind: 'json',
    str,
    textEquals: locate !== undefined ? textEquals : undefined,
    presenceAndNumbers: locate !== undefined && readExists === undefined ? (rows, worst, out) => presenceAndNumbers(rows, worst, out) : undefined,
    floatFromBytes: locate !== undefined,
    float(row) {
      const [values, state] = memo.floats();
      if (state[row] === VALUE) return values[row];
      if (state[row] === NULL) return null;
      if (locate !== undefined) {
        const known = floatOfBytes(row, values, state);
        if (known === VALUE) return values[row];
        if (known === NULL) return null;
      }
      const f = toFloat64OrNull(textForCast(row));
      if (f === null) state[row] = NULL;
      else {
        values[row] = f;
        state[row] = VALUE;
      }
      return f;
    },
    int(row) {
      const [values, state] = memo.ints();
      if (state[row] === VALUE) return values[row];
      if (state[row] === NULL) return null;
      const n = toInt64OrNull(textForCast(row));
      if (n === null) state[row] = NULL;
      else if (typeof n === 'bigint') return n; // beyond 2^53: rare, read again next time
      else {
        values[row] = n;
        state[row] = VALUE;
      }
      return n;
    },
    exists(row) {
      const known = memo.existence();
      if (known[row] === UNKNOWN) {
        if (readExists !== undefined) known[row] = present(readExists(row));
        else if (locate !== undefined) {
          const b = locate(row, span);
          known[row] = b === null || isNullLiteral(b, span[0], span[1]) ? ABSENT : PRESENT;
        } else textForCast(row);
      }
      return known[row] === PRESENT;
    },
  };
  /**
   * The sort's first key of each row in one loop (order.ts presenceAndNumber): the float and
   * existence readings from the memo, decided from the bytes when unknown (both at once: the
   * value is located once), through the accessor's own readings when the bytes cannot tell.
   */
  const presenceAndNumbers = (rows: ArrayLike<number>, worst: number, out: Float64Array): Float64Array => {
    const [values, state] = memo.floats();
    const known = memo.existence();
    for (let i = 0; i < rows.length; i++) {
      const r = rows[i];
      let s = state[r];
      if (s === UNKNOWN) {
        s = floatOfBytes(r, values, state);
        if (s === UNKNOWN) {
          accessor.float(r);
          s = state[r];
        }
      }
      // Existence is known now: the bytes' reading or the text's noted it.
      if (known[r] !== PRESENT) out[i] = NaN;
      else if (s === VALUE) {
        const f = values[r];
        out[i] = f !== f ? worst : f;
      } else out[i] = worst;
    }
    return out;
  };
  return accessor;
}

/**
 * A JSON accessor that reads afresh every time: for values that depend on more than the row
 * (a typed feedback field under the feedback join, semantics.md#calls-feedback-join).
 */
export function unmemoizedJsonAccessor(read: RawReader): JsonAccessor {
  const text = (row: number): string => {
    const v = read(row);
    const s = v === MISSING ? '' : jsonValueString(v);
    return s === 'null' ? '' : s;
  };
  return {
    kind: 'json',
    str: text,
    float: (row) => toFloat64OrNull(text(row)),
    int: (row) => toInt64OrNull(text(row)),
    exists(row) {
      const v = read(row);
      return v !== MISSING && v !== null;
    },
  };
}
