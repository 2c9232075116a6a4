/**
 * Ordering of table rows by dot paths into their values, the way production (ClickHouse)
 * orders them (semantics.md#table-sort-keys, semantics.md#table-sort-float-text;
 * semantics.md#table-sort-missing-last, semantics.md#table-sort-numeric-first). Each requested key
 * expands into three successive keys:
 *
 *  1. presence, present-and-not-null first, in BOTH directions. Production tests it with
 *     `JSONType(val, k1, k2, ...)`, every path part a string key: a numeric part does not
 *     index into an array, so a path through an array counts as missing here;
 *  2. `toFloat64OrNull(JSON_VALUE(val, path))` in the requested direction: JSON numbers and
 *     strings that parse as numbers (ch/values.ts: Python float() syntax, inf/nan included,
 *     surrounding whitespace ignored) compare numerically; ClickHouse puts NaN after the
 *     numbers and NULL (no float reading) after NaN, in both directions;
 *  3. `JSON_VALUE(val, path)` as a string in the requested direction, byte-wise (UTF-8).
 *     JSON_VALUE yields a string unquoted, `true`/`false`, a number's text, `null` for JSON
 *     null, and '' for objects, arrays and paths that do not resolve (where a purely numeric
 *     path part indexes arrays, `$."a"[0]`). The '' for objects and arrays follows
 *     semantics.md#table-sort-keys; note that Weave's ClickHouse client sets
 *     `function_json_value_return_type_allow_complex=1`, under which JSON_VALUE returns their JSON
 *     text instead (only `default` below changes).
 *
 * Rows equal on every key keep table order (`original_index` ascending, semantics.md#order-ties).
 * Keys 2 and 3 also order the rows inside the "missing" group, as they do in production.
 */
import { LosslessNumber } from '../../core/json/lossless.ts';
import { isPlainObject } from '../../core/plain-object.ts';
import { pyNumber } from '../../core/json/pyjson.ts';
import { compareStrings, toFloat64OrNull } from '../../core/ch/values.ts';
import { combine, type PositionComparator } from '../sort.ts';
import { locatePathBytes, locatePathText, pathSteps, readJsonSpanText, readPlainStringSpan, readSpanFloat, SPAN_FLOAT_NULL, SPAN_FLOAT_VALUE, type PathStep } from '../../core/json/path-extract.ts';
import { BACKSLASH, isNullLiteral, OPEN_ARR, OPEN_OBJ, QUOTE } from '../../core/json/bytes.ts';
import type { SortOrder } from './request.ts';

/** What one sort path reads from one row. */
export interface RowSortValue {
  /** JSONType semantics: the path resolves through objects only and is not JSON null. */
  present: boolean;
  /** JSON_VALUE semantics: the scalar's text, '' for objects/arrays/unresolved paths. */
  text: string;
  /** toFloat64OrNull of the value: a number (possibly NaN) or null. */
  float: number | null;
}

const ARRAY_INDEX = /^\d+$/;

/** Presence as `JSONType(json, k1, k2, ...)` sees it: every part is an object key. */
function isPresent(root: unknown, path: readonly string[]): boolean {
  let v: unknown = root;
  for (const key of path) {
    if (!isPlainObject(v) || !Object.prototype.hasOwnProperty.call(v, key)) return false;
    v = v[key];
  }
  return v !== null && v !== undefined;
}

/** The value `JSON_VALUE` reaches: numeric parts index arrays, the others are object keys. */
function jsonPathValue(root: unknown, path: readonly string[]): unknown {
  let v: unknown = root;
  for (const key of path) {
    if (ARRAY_INDEX.test(key)) {
      const i = Number(key);
      if (!Array.isArray(v) || i >= v.length) return undefined;
      v = v[i];
    } else {
      if (!isPlainObject(v) || !Object.prototype.hasOwnProperty.call(v, key)) return undefined;
      v = v[key];
    }
  }
  return v;
}

/**
 * The three sort readings of `path` in a parsed row value. Number texts only matter between
 * numbers equal as float64 (key 2 decides everything else); `String(n)` gives equal texts for
 * `1` and `1.0`, as ClickHouse does.
 */
export function rowSortValue(root: unknown, path: readonly string[]): RowSortValue {
  return sortReadings(isPresent(root, path), jsonPathValue(root, path));
}

/** The readings of value `v` (undefined: the path does not resolve). */
function sortReadings(present: boolean, v: unknown): RowSortValue {
  // An integer beyond 2^53 (core/json/exact.ts): its text keeps every digit.
  if (v instanceof LosslessNumber) return { present, text: pyNumber(v), float: Number(v.lexeme) };
  switch (typeof v) {
    case 'string':
      return { present, text: v, float: toFloat64OrNull(v) };
    case 'number':
      return { present, text: String(v), float: v };
    case 'boolean':
      return { present, text: v ? 'true' : 'false', float: null };
    default:
      return { present, text: v === null ? 'null' : '', float: null };
  }
}

/** The walks rowSortValueOfText takes: presence (every part a key) and JSON_VALUE's. */
export interface RowSortSteps {
  presence: PathStep[];
  value: PathStep[];
  /** No part is numeric: both walks are the same, and one is taken. */
  sameWalk: boolean;
  /**
   * The walks can be taken over the row's UTF-8 bytes: no part holds U+FFFD, which a key's
   * lone surrogate also encodes as (setSortColumnsOfText).
   */
  bytesWalk: boolean;
}

/** Steps for `path`, or null when it cannot be walked over text (core/json/path-extract.ts). */
export function rowSortSteps(path: readonly string[]): RowSortSteps | null {
  const presence = pathSteps(path, () => false);
  const value = pathSteps(path, (part) => ARRAY_INDEX.test(part));
  return presence === null || value === null ? null : { presence, value, sameWalk: !path.some((part) => ARRAY_INDEX.test(part)), bytesWalk: !path.some((part) => part.includes('\uFFFD')) };
}

const spanScratch = new Int32Array(2);

/**
 * rowSortValue of the row stored as `text`, read without parsing the row: the path is walked
 * over the text and only the value it reaches is parsed. The same readings as rowSortValue of
 * the parsed row.
 */
export function rowSortValueOfText(text: string, steps: RowSortSteps): RowSortValue {
  const span = spanScratch;
  let present = false;
  if (locatePathText(text, 0, text.length, steps.presence, span)) {
    // Present unless JSON null (the walk went through objects only).
    present = !(span[1] - span[0] === 4 && text.startsWith('null', span[0]));
  }
  const v = locatePathText(text, 0, text.length, steps.value, span) ? readJsonSpanText(text, span[0], span[1]) : undefined;
  return sortReadings(present, v);
}

const utf8 = new TextEncoder();
let rowBytes = new Uint8Array(1 << 16);
const valueSpan = new Int32Array(2);
const presenceSpan = new Int32Array(2);
const floatScratch = new Float64Array(1);

/**
 * What rowSortValueOfText reads from the row stored as `text`, written straight into position
 * `i` of `cols`: the text is encoded to UTF-8 into a scratch (native) and walked as bytes, and
 * the common values (plain strings, numbers of up to 15 digits, literals, containers) are read
 * from the bytes with no object per row; anything else (escapes, long numbers, NaN/Infinity, a
 * U+FFFD that could stand for a lone surrogate, in the path or the value) is read through
 * rowSortValueOfText.
 */
export function setSortColumnsOfText(cols: SortColumns, i: number, text: string, steps: RowSortSteps): void {
  if (!steps.bytesWalk) {
    setSortColumns(cols, i, rowSortValueOfText(text, steps));
    return;
  }
  // UTF-8 takes at most 3 bytes per UTF-16 unit.
  if (rowBytes.length <= 3 * text.length) rowBytes = new Uint8Array(3 * text.length + 1024);
  const b = rowBytes;
  const len = utf8.encodeInto(text, b).written;
  const found = locatePathBytes(b, 0, len, steps.value, valueSpan);
  const start = valueSpan[0], end = valueSpan[1];
  let present: boolean;
  if (steps.sameWalk) present = found && !isNullLiteral(b, start, end);
  else present = locatePathBytes(b, 0, len, steps.presence, presenceSpan) && !isNullLiteral(b, presenceSpan[0], presenceSpan[1]);
  setSortColumnsOfSpan(cols, i, text, steps, b, found, start, end, present, len === text.length ? 0 : -1);
}

/**
 * setSortColumnsOfText, the path walked already: `found` and `b[start, end)` are where the
 * value's walk (steps.value) ended in the row's UTF-8 bytes `b`, `present` the presence walk's
 * answer. (A table's first sort walks its rows' first key in batches, core/json/path-walk.ts.)
 * `asciiAt` is where the row's bytes begin in `b` when the row is all ASCII (as many bytes as
 * code units), else -1: a plain string value is then the row text's own slice, neither decoded
 * nor hashed.
 */
export function setSortColumnsOfSpan(cols: SortColumns, i: number, text: string, steps: RowSortSteps, b: Uint8Array, found: boolean, start: number, end: number, present: boolean, asciiAt = -1): void {
  let value: string | undefined;
  let float: number | null = null;
  if (!found) value = '';
  else {
    const c = b[start];
    if (c === QUOTE) {
      // A string that starts no float text, of an all-ASCII row, with no escape: its text is the
      // row text's slice [start + 1, end - 1) (less asciiAt), made when a comparison needs it.
      const from = cols.textFrom;
      if (from !== undefined && asciiAt >= 0 && startsNoFloat(b, start, end) && !hasBackslash(b, start + 1, end - 1)) {
        cols.present[i] = present ? 1 : 0;
        cols.tier[i] = FLOAT_NULL;
        cols.float[i] = 0;
        from[i] = start + 1 - asciiAt;
        cols.textTo![i] = end - 1 - asciiAt;
        cols.prefix![i] = bytesPrefixKey(b, start + 1, end - 1);
        return;
      }
      value = asciiAt >= 0 ? plainStringOfAsciiRow(text, b, start, end, asciiAt) : readPlainStringSpan(b, start, end);
      // A string whose first character starts no float text casts to NULL without a look.
      if (value !== undefined && readSpanFloat(b, start, end, floatScratch) !== SPAN_FLOAT_NULL) float = toFloat64OrNull(value);
    } else if (c === OPEN_OBJ || c === OPEN_ARR) value = '';
    else if (c === 0x74) value = 'true';
    else if (c === 0x66) value = 'false';
    else if (c === 0x6e) value = 'null';
    else if (readSpanFloat(b, start, end, floatScratch) === SPAN_FLOAT_VALUE) {
      float = floatScratch[0];
      if (cols.textFrom !== undefined) {
        // A finite number: its text is String(float), made when a comparison needs it, and its
        // prefix key is never read (a number's group is decided by the float).
        cols.present[i] = present ? 1 : 0;
        cols.tier[i] = FLOAT_NUMBER;
        cols.float[i] = float;
        cols.textFrom[i] = TEXT_OF_FLOAT;
        cols.prefix![i] = 0;
        return;
      }
      value = String(float);
    }
  }
  // A lone surrogate encodes as U+FFFD: a decoded value holding one may not be the text's
  // (an ASCII row holds neither).
  if (value === undefined || (asciiAt < 0 && value.length > 0 && value.includes('\uFFFD'))) {
    setSortColumns(cols, i, rowSortValueOfText(text, steps));
    return;
  }
  cols.present[i] = present ? 1 : 0;
  cols.tier[i] = float === null ? FLOAT_NULL : float !== float ? FLOAT_NAN : FLOAT_NUMBER;
  cols.float[i] = float ?? 0;
  setText(cols, i, value);
}

/**
 * Whether the JSON string at `b[start]` certainly casts to no float (readSpanFloat's NULL), or
 * starts with i/n but not as inf/infinity/nan, the only float texts that start with a letter
 * (words such as "invoice" or "need").
 */
function startsNoFloat(b: Uint8Array, start: number, end: number): boolean {
  const first = b[start + 1];
  if (first === 0x69 || first === 0x49) return (b[start + 2] | 0x20) !== 0x6e || (b[start + 3] | 0x20) !== 0x66;
  if (first === 0x6e || first === 0x4e) return (b[start + 2] | 0x20) !== 0x61 || (b[start + 3] | 0x20) !== 0x6e;
  return readSpanFloat(b, start, end, floatScratch) === SPAN_FLOAT_NULL;
}

function hasBackslash(b: Uint8Array, from: number, to: number): boolean {
  for (let k = from; k < to; k++) if (b[k] === BACKSLASH) return true;
  return false;
}

/** `text` as row i's text reading (and its prefix key). */
function setText(cols: SortColumns, i: number, text: string): void {
  cols.text[i] = text;
  if (cols.textFrom !== undefined) cols.textFrom[i] = TEXT_MADE;
  if (cols.prefix !== undefined) cols.prefix[i] = textPrefixKey(text);
}

/** Code units a prefix key reads (7 bits each: 49 bits, an exact double). */
const PREFIX_UNITS = 7;

/**
 * A number that orders texts as compareStrings does, weakly: compareStrings(a, b) < 0 implies
 * textPrefixKey(a) <= textPrefixKey(b), so keys that differ order their texts (equal keys tell
 * nothing). It reads the first 7 code units, each below 0x7f as itself; the first unit of 0x7f
 * or above (every non-ASCII unit, surrogates included, orders after every ASCII one) reads as
 * 0x7f and ends the key; a text that ends reads as 0 from there. (Of `text[from, to)` when
 * given.)
 */
export function textPrefixKey(text: string, from = 0, to = text.length): number {
  let key = 0, j = 0;
  for (; j < PREFIX_UNITS && from + j < to; j++) {
    const u = text.charCodeAt(from + j);
    if (u >= 0x7f) {
      key = key * 128 + 0x7f;
      j++;
      break;
    }
    key = key * 128 + u;
  }
  for (; j < PREFIX_UNITS; j++) key *= 128;
  return key;
}

/**
 * The prefix key of the text `text[from, to)` at `level` (level 0 is textPrefixKey), for texts
 * whose keys at every level before are equal: textPrefixKey of the units after the first
 * 7 × level when those are all present and below 0x7f (each then read as itself, so equal keys
 * before mean equal units), else 0. For two texts a, b whose keys at the levels before are
 * equal, compareStrings(a, b) < 0 implies key(a) <= key(b): a text that reads 0 for lack of
 * units is a prefix of the other or orders before it, and one that reads 0 for a unit of 0x7f
 * or above ties at every level before only with texts that read 0 too.
 */
export function deeperPrefixKey(text: string, from: number, to: number, level: number): number {
  const skip = from + PREFIX_UNITS * level;
  if (skip > to) return 0;
  for (let j = from; j < skip; j++) if (text.charCodeAt(j) >= 0x7f) return 0;
  return textPrefixKey(text, skip, to);
}

/** deeperPrefixKey of row p's text reading in `cols` (made or not). */
export function deeperPrefixKeyOf(cols: SortColumns, p: number, level: number): number {
  const f = cols.textFrom === undefined ? TEXT_MADE : cols.textFrom[p];
  if (f >= 0) return deeperPrefixKey(cols.textRows![p]!.text, f, cols.textTo![p], level);
  const text = f === TEXT_OF_FLOAT ? String(cols.float[p]) : cols.text[p];
  return deeperPrefixKey(text, 0, text.length, level);
}

/**
 * textPrefixKey of the text whose UTF-8 is `b[from, to)`: bytes below 0x7f are ASCII units, and
 * the first byte of 0x7f or above is the first unit of 0x7f or above.
 */
function bytesPrefixKey(b: Uint8Array, from: number, to: number): number {
  let key = 0, j = 0;
  for (; j < PREFIX_UNITS && from + j < to; j++) {
    const u = b[from + j];
    if (u >= 0x7f) {
      key = key * 128 + 0x7f;
      j++;
      break;
    }
    key = key * 128 + u;
  }
  for (; j < PREFIX_UNITS; j++) key *= 128;
  return key;
}

/**
 * The JSON string `b[start, end)` (quotes included) of an all-ASCII row whose bytes begin at
 * `asciiAt` in `b`, as a slice of the row's text: byte offsets are code-unit offsets there.
 * Undefined when it holds an escape (the caller parses it).
 */
function plainStringOfAsciiRow(text: string, b: Uint8Array, start: number, end: number, asciiAt: number): string | undefined {
  for (let k = start + 1; k < end - 1; k++) if (b[k] === BACKSLASH) return undefined;
  return text.slice(start + 1 - asciiAt, end - 1 - asciiAt);
}

/** Float tiers: numbers, then NaN, then no float reading (ClickHouse NULLS LAST with NaN). */
export const FLOAT_NUMBER = 0, FLOAT_NAN = 1, FLOAT_NULL = 2;

/** The three readings of one sort path for a run of rows, column-wise. */
export interface SortColumns {
  present: Uint8Array;
  tier: Uint8Array;
  float: Float64Array;
  /** The text readings; where `textFrom[i]` is not TEXT_MADE, row i's is not made yet (textsFor). */
  text: string[];
  /**
   * textPrefixKey of each row's text, when kept, for the rows with no float number reading (0
   * for the others): a selection prunes on it (sort-candidates.ts).
   */
  prefix?: Float64Array;
  /**
   * Texts made on demand: row i's text is `textRows[i].text.slice(textFrom[i], textTo[i])`
   * while `textFrom[i] >= 0`, `String(float[i])` while it is TEXT_OF_FLOAT (a first sort makes
   * no string per row; most are never compared).
   */
  textFrom?: Int32Array;
  textTo?: Int32Array;
  textRows?: ReadonlyArray<{ readonly text: string } | undefined>;
}

/** textFrom: the text is made (in `text`), or is String(float). */
export const TEXT_MADE = -1, TEXT_OF_FLOAT = -2;

/** Columns for n rows whose texts may be made on demand from `rows` (and with prefix keys). */
export function lazySortColumns(n: number, rows: ReadonlyArray<{ readonly text: string } | undefined>): SortColumns {
  // Filled at once: as fast an array as one pushed n times (not a dictionary), in a third of the time.
  const text = new Array<string>(n).fill('');
  return { present: new Uint8Array(n), tier: new Uint8Array(n), float: new Float64Array(n), text, prefix: new Float64Array(n), textFrom: new Int32Array(n).fill(TEXT_MADE), textTo: new Int32Array(n), textRows: rows };
}

/** Makes the texts of rows `at` that are not made yet (before a comparator reads them). */
export function textsFor(cols: SortColumns, at: ArrayLike<number>): void {
  const from = cols.textFrom;
  if (from === undefined) return;
  const to = cols.textTo!, rows = cols.textRows!, text = cols.text;
  for (let j = 0; j < at.length; j++) {
    const p = at[j];
    const f = from[p];
    if (f === TEXT_MADE) continue;
    text[p] = f === TEXT_OF_FLOAT ? String(cols.float[p]) : rows[p]!.text.slice(f, to[p]);
    from[p] = TEXT_MADE;
  }
}

/** Column-wise readings of `values` (one RowSortValue per row). */
function sortColumns(values: ArrayLike<RowSortValue>): SortColumns {
  const n = values.length;
  const cols: SortColumns = { present: new Uint8Array(n), tier: new Uint8Array(n), float: new Float64Array(n), text: new Array<string>(n) };
  for (let i = 0; i < n; i++) setSortColumns(cols, i, values[i]);
  return cols;
}

export function setSortColumns(cols: SortColumns, i: number, v: RowSortValue): void {
  cols.present[i] = v.present ? 1 : 0;
  cols.tier[i] = v.float === null ? FLOAT_NULL : Number.isNaN(v.float) ? FLOAT_NAN : FLOAT_NUMBER;
  cols.float[i] = v.float ?? 0;
  setText(cols, i, v.text);
}

/**
 * Comparator over candidates 0..n-1 whose readings sit at `at[j]` in each term's columns,
 * ending with the candidate index itself (candidates are listed in table order, so that is
 * original_index order).
 */
export function columnsComparator(columns: readonly SortColumns[], orders: readonly SortOrder[], at: ArrayLike<number>): PositionComparator {
  const keys: PositionComparator[] = [];
  orders.forEach((order, t) => {
    textsFor(columns[t], at);
    const { present, tier, float, text } = columns[t];
    const sign = order === 'desc' ? -1 : 1;
    keys.push((a, b) => present[at[b]] - present[at[a]]);
    keys.push((a, b) => {
      const pa = at[a], pb = at[b];
      if (tier[pa] !== tier[pb]) return tier[pa] - tier[pb];
      if (tier[pa] !== FLOAT_NUMBER) return 0;
      const x = float[pa], y = float[pb];
      return x < y ? -sign : x > y ? sign : 0;
    });
    keys.push((a, b) => sign * compareStrings(text[at[a]], text[at[b]]));
  });
  return combine(keys, (a, b) => a - b);
}

/** Comparator over candidate positions 0..n-1 for the given sort terms (values per candidate). */
export function rowComparator(values: ReadonlyArray<ReadonlyArray<RowSortValue>>, orders: readonly SortOrder[]): PositionComparator {
  const n = values[0]?.length ?? 0;
  const identity = new Int32Array(n);
  for (let i = 0; i < n; i++) identity[i] = i;
  return columnsComparator(values.map(sortColumns), orders, identity);
}
