/**
 * ClickHouse value semantics that Weave's calls queries expose, as pure functions
 * (semantics.md#calls-json-read, semantics.md#calls-expr-compare, semantics.md#calls-expr-in,
 * semantics.md#calls-expr-contains, semantics.md#calls-expr-convert,
 * semantics.md#calls-sort-dynamic, semantics.md#calls-expr-inferred-cast,
 * semantics.md#order-code-points).
 *
 * Weave reads a dynamic JSON field as `coalesce(nullIf(JSON_VALUE(dump, path), 'null'), '')`
 * and casts it with the `to*OrNull` functions. The rules below follow the newest in-memory
 * server's mirror of those functions (`_ch_json_value`, `_ch_to_int64_or_null`, ...), which the
 * spec describes, and ClickHouse itself for string search (`position*`, `hasToken*`), which works
 * on bytes with ASCII-only case folding.
 */
import { LosslessNumber, LosslessObject, fromPlain, writeJson, type JsonWriterStyle } from '../json/lossless.ts';
import { pyFloatRepr } from '../json/py-float.ts';
import { pyNumber, pyString } from '../json/pyjson.ts';

// ---------------------------------------------------------------------------------------------
// Text renderings.

/**
 * Python's `str()` of a number the way the mirror prints JSON numbers and cast inputs: integral
 * values as whole integers (`5.0` → `5`, `1e20` → `100000000000000000000`), others as Python's
 * float repr (`1e-05`), non-finite as `inf`, `-inf`, `nan`.
 */
export function pyNumberString(x: number | bigint): string {
  if (typeof x === 'bigint') return x.toString();
  if (Number.isInteger(x)) return Math.abs(x) < 1e21 ? String(x) : BigInt(x).toString(); // String(-0) is '0'
  if (Number.isNaN(x)) return 'nan';
  if (x === Infinity) return 'inf';
  if (x === -Infinity) return '-inf';
  return pyFloatRepr(x);
}

/** `json.dumps(v, separators=(",", ":"))`: minified, ASCII-only, Python number spelling. */
const MINIFIED_PY_STYLE: JsonWriterStyle = { itemSeparator: ',', keySeparator: ':', string: pyString, number: pyNumber };

/**
 * How a dynamic JSON field reads (semantics.md#calls-json-read): missing (`undefined`) and JSON
 * null → `''`; strings unquoted; booleans `'true'`/`'false'`; numbers in Python's text form with
 * integral floats as integers; objects and arrays as minified JSON text. Lossless values are
 * accepted too.
 */
export function jsonValueString(v: unknown): string {
  switch (typeof v) {
    case 'string':
      return v;
    case 'number':
      return pyNumberString(v);
    case 'boolean':
      return v ? 'true' : 'false';
    case 'undefined':
      return '';
    case 'bigint':
      return v.toString();
    case 'object':
      if (v === null) return '';
      if (v instanceof LosslessNumber) return v.isInteger ? pyNumber(v) : pyNumberString(Number(v.lexeme));
      if (v instanceof LosslessObject) return writeJson(v, MINIFIED_PY_STYLE);
      return writeJson(fromPlain(v), MINIFIED_PY_STYLE);
    default:
      return '';
  }
}

// ---------------------------------------------------------------------------------------------
// *OrNull parsing (semantics.md#calls-expr-convert).

/** Characters Python's `str.strip()` removes (str.isspace), unlike JS trim (which adds U+FEFF). */
const PY_EDGE_SPACE = /^[\t-\r\x1c-\x20\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+|[\t-\r\x1c-\x20\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+$/g;

/** Python's `s.strip()`. */
export function pyStrip(s: string): string {
  return s.replace(PY_EDGE_SPACE, '');
}

const INT64_TEXT = /^[+-]?[0-9]+$/;

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/**
 * An integer held exactly: a number when it is a safe integer, else a bigint. Equal integers
 * always get the same representation, so `===` and Set lookups compare them by value.
 */
export type ExactInt = number | bigint;

/** The exact integer a digit text spells (`[+-]?digits`). */
export function exactInt(text: string): ExactInt {
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : BigInt(text);
}

/**
 * `toInt64OrNull` as the spec gives it: the stripped text must match `^[+-]?\d+$` (ASCII
 * digits) and lie in Int64, otherwise NULL (semantics.md#calls-json-read: `12345678901234567890` →
 * NULL). `'1.5'`, `''`, `'1e3'` → null; `' 42 '` → 42. Exact: beyond 2^53 the value is a bigint.
 */
export function toInt64OrNull(s: string): ExactInt | null {
  const t = pyStrip(s);
  if (!INT64_TEXT.test(t)) return null;
  const n = exactInt(t.charCodeAt(0) === 0x2b ? t.slice(1) : t);
  return typeof n === 'number' || (n >= INT64_MIN && n <= INT64_MAX) ? n : null;
}

// Python float(): [sign] ( digitpart? "." digitpart | digitpart "."? ) exponent? | inf | infinity | nan,
// with single underscores allowed between digits.
const DIGITS = '[0-9](?:_?[0-9])*';
const PY_FLOAT_TEXT = new RegExp(
  `^[+-]?(?:(?:(?:${DIGITS})?\\.${DIGITS}|${DIGITS}\\.?)(?:[eE][+-]?${DIGITS})?|inf|infinity|nan)$`,
  'i',
);

/**
 * `toFloat64OrNull` as the mirror implements it (Python `float()` of the stripped text):
 * `'1.5'`, `' 2 '`, `'1e3'`, `'.5'`, `'1_000'`, `'inf'`, `'nan'` parse; `''`, `'abc'`, `'0x10'`
 * do not. May return NaN (a number, not NULL) for `'nan'`.
 */
export function toFloat64OrNull(s: string): number | null {
  const t = pyStrip(s);
  if (t === '' || !PY_FLOAT_TEXT.test(t)) return null;
  const lower = t.toLowerCase();
  const unsigned = lower[0] === '+' || lower[0] === '-' ? lower.slice(1) : lower;
  const negative = lower[0] === '-';
  if (unsigned === 'inf' || unsigned === 'infinity') return negative ? -Infinity : Infinity;
  if (unsigned === 'nan') return NaN;
  return Number(t.includes('_') ? t.replace(/_/g, '') : t);
}

/** `toUInt8OrNull`: an integer text in 0..255, otherwise NULL. */
export function toUInt8OrNull(s: string): number | null {
  const n = toInt64OrNull(s);
  return typeof n !== 'number' || n < 0 || n > 255 ? null : n;
}

/**
 * The `bool` cast of a JSON_VALUE string (semantics.md#calls-expr-compare,
 * semantics.md#calls-expr-convert): `'true'` → 1, `'false'` → 0, otherwise toUInt8OrNull (`'2'` →
 * 2, `'abc'` → NULL).
 */
export function toBoolCastOrNull(s: string): number | null {
  if (s === 'true') return 1;
  if (s === 'false') return 0;
  return toUInt8OrNull(s);
}

// ---------------------------------------------------------------------------------------------
// String comparison (semantics.md#order-code-points).

/**
 * Orders strings as ClickHouse orders their UTF-8 bytes, which is Unicode code-point order.
 * JS `<` compares UTF-16 units and puts astral characters (surrogates) before U+E000–U+FFFF.
 * Returns -1, 0 or 1.
 */
export function compareStrings(a: string, b: string): number {
  if (a === b) return 0;
  const n = a.length < b.length ? a.length : b.length;
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) {
      // A surrogate starts (or continues) a code point above U+FFFF: above every BMP unit.
      const xs = x >= 0xd800 && x <= 0xdfff;
      const ys = y >= 0xd800 && y <= 0xdfff;
      if (xs !== ys) return xs ? 1 : -1;
      return x < y ? -1 : 1;
    }
  }
  return a.length < b.length ? -1 : 1;
}

// ---------------------------------------------------------------------------------------------
// Substring search (semantics.md#calls-expr-contains).

/** UTF-8 byte length of `s[0, end)`. */
function utf8Length(s: string, end: number): number {
  let bytes = 0;
  for (let i = 0; i < end; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < end) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

/** ASCII-only lower-casing of one UTF-16 unit (ClickHouse's non-UTF8 case-insensitive search). */
const foldAscii = (c: number) => (c >= 0x41 && c <= 0x5a ? c + 0x20 : c);

/** Index (UTF-16) of the first occurrence of `needle` with ASCII case folding, or -1. */
function indexOfAsciiCaseInsensitive(haystack: string, needle: string, from = 0): number {
  const n = needle.length;
  const last = haystack.length - n;
  outer: for (let i = from; i <= last; i++) {
    for (let j = 0; j < n; j++) {
      if (foldAscii(haystack.charCodeAt(i + j)) !== foldAscii(needle.charCodeAt(j))) continue outer;
    }
    return i;
  }
  return -1;
}

/**
 * ClickHouse `position(haystack, needle)`: the 1-based byte position of the first occurrence,
 * 0 when absent; an empty needle is found at 1.
 */
export function position(haystack: string, needle: string): number {
  const i = haystack.indexOf(needle);
  return i < 0 ? 0 : utf8Length(haystack, i) + 1;
}

/** ClickHouse `positionCaseInsensitive`: as `position`, folding ASCII letters only. */
export function positionCaseInsensitive(haystack: string, needle: string): number {
  const i = indexOfAsciiCaseInsensitive(haystack, needle);
  return i < 0 ? 0 : utf8Length(haystack, i) + 1;
}

/** `position*(haystack, needle) > 0` without computing the byte offset ($contains). */
export function containsSubstring(haystack: string, needle: string, caseInsensitive: boolean): boolean {
  return caseInsensitive ? indexOfAsciiCaseInsensitive(haystack, needle) >= 0 : haystack.includes(needle);
}

// ---------------------------------------------------------------------------------------------
// Token search ($containsToken, ClickHouse hasToken / hasTokenCaseInsensitive).

/**
 * A token separator: an ASCII byte that is not a letter or digit. Non-ASCII bytes (every UTF-16
 * unit ≥ 0x80 here) belong to tokens.
 */
const isSeparator = (c: number) =>
  c < 0x80 && !((c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a));

/**
 * Whether ClickHouse accepts `token` as a hasToken needle: it may not contain separators
 * (ClickHouse raises "Needle must not contain whitespace or separator characters"). The empty
 * string is accepted.
 */
export function isValidToken(token: string): boolean {
  for (let i = 0; i < token.length; i++) if (isSeparator(token.charCodeAt(i))) return false;
  return true;
}

/**
 * ClickHouse `hasToken(haystack, token)` (or `hasTokenCaseInsensitive`, ASCII folding): true when
 * `token` occurs with a separator or the string boundary on both sides. Tokens are maximal runs of
 * ASCII letters/digits and non-ASCII characters. An empty token matches an empty run (two
 * adjacent separators, or a separator at an end, or an empty haystack). An ill-formed token (see
 * isValidToken) gives false here; callers that must report it check isValidToken first.
 */
export function hasToken(haystack: string, token: string, caseInsensitive = false): boolean {
  if (!isValidToken(token)) return false;
  const n = token.length;
  const h = haystack.length;
  let from = 0;
  while (from <= h - n) {
    const i = caseInsensitive ? indexOfAsciiCaseInsensitive(haystack, token, from) : haystack.indexOf(token, from);
    if (i < 0) return false;
    const before = i === 0 || isSeparator(haystack.charCodeAt(i - 1));
    const after = i + n === h || isSeparator(haystack.charCodeAt(i + n));
    if (before && after) return true;
    from = i + 1;
  }
  return false;
}

/** ClickHouse `hasTokenCaseInsensitive`. */
export const hasTokenCaseInsensitive = (haystack: string, token: string): boolean => hasToken(haystack, token, true);

// ---------------------------------------------------------------------------------------------
export { pyStrRepr } from '../json/pyjson.ts';

// Python reprs: the mirror stringifies non-string cast inputs with Python's str(), and Weave's
// "Unknown value type: {literal}" message embeds a literal's repr.


/** Python's `repr(x)` of a float: `1.0`, `1e-05`, `inf`, `nan`. */
export function pyFloatReprPython(x: number): string {
  if (Number.isNaN(x)) return 'nan';
  if (x === Infinity) return 'inf';
  if (x === -Infinity) return '-inf';
  return pyFloatRepr(x);
}
