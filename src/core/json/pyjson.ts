/**
 * Python's `json.dumps(obj)` with default options, byte for byte, optionally with
 * `sort_keys=True`. Weave hashes this text to get row and object digests, so every detail
 * matters: `", "` and `": "` separators, ASCII-only output, Python's int and float spelling and
 * code-point key order.
 */
import { LosslessNumber, NON_FINITE_LEXEMES, type LosslessObject, type LosslessValue } from './value.ts';
import { pyFloatRepr } from './py-float.ts';
import { writeJson, type JsonWriterStyle } from './write.ts';

const CANONICAL_INT = /^-?(?:0|[1-9]\d*)$/;
const PY_INT = /^([+-]?)(\d+)$/;
/** What Python's float() accepts that we support: decimal with optional point and exponent. */
const PY_FLOAT = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
/** A plain decimal lexeme (`0.7`, `-12.5`). */
const PLAIN_DECIMAL = /^-?(?:0|[1-9]\d{0,15})\.\d+$/;

/**
 * Whether a float lexeme is already `repr(float(lexeme))`, decided without pyFloatRepr: the
 * common float, fast. In [1e-4, 1e16) neither JS nor Python uses an exponent and both write the
 * shortest digits that read back, so when JS prints the number as written, so does Python.
 */
export function isPythonFloatRepr(lexeme: string): boolean {
  if (!PLAIN_DECIMAL.test(lexeme)) return false;
  const x = Number(lexeme);
  const size = Math.abs(x);
  return size >= 1e-4 && size < 1e16 && String(x) === lexeme;
}

/**
 * How Python prints the number a lexeme denotes: `str(int(lexeme))` for integers (any size,
 * `-0` → `0`), `repr(float(lexeme))` otherwise (so `1e400` → `Infinity`).
 * @throws TypeError for a lexeme Python would not read as a number.
 */
export function pyNumber(n: LosslessNumber): string {
  const lexeme = n.lexeme;
  if (CANONICAL_INT.test(lexeme)) return lexeme === '-0' ? '0' : lexeme; // the common case
  const int = PY_INT.exec(lexeme);
  if (int !== null) {
    const digits = int[2].replace(/^0+(?=\d)/, '');
    return int[1] === '-' && digits !== '0' ? '-' + digits : digits;
  }
  if (NON_FINITE_LEXEMES.has(lexeme)) return lexeme;
  if (isPythonFloatRepr(lexeme)) return lexeme;
  if (PY_FLOAT.test(lexeme)) return pyFloatRepr(Number(lexeme));
  throw new TypeError(`not a number lexeme: ${JSON.stringify(lexeme)}`);
}

// Characters json.dumps (ensure_ascii) writes verbatim: printable ASCII except `"` and `\`.
const NEEDS_ESCAPE = /[^\x20\x21\x23-\x5b\x5d-\x7e]/;
const ESCAPE_ALL = /[^\x20\x21\x23-\x5b\x5d-\x7e]/g;
const SHORT_ESCAPES: Record<string, string> = {
  '"': '\\"',
  '\\': '\\\\',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\b': '\\b',
  '\f': '\\f',
};

function escapeChar(ch: string): string {
  const short = SHORT_ESCAPES[ch];
  if (short !== undefined) return short;
  // The regex matches single UTF-16 units, so an astral character becomes its two surrogate
  // escapes and a lone surrogate its own escape, exactly as Python writes them.
  return '\\u' + ch.charCodeAt(0).toString(16).padStart(4, '0');
}

/** Python's `json.dumps(s)` for a string (ensure_ascii=True). */
export function pyString(s: string): string {
  if (!NEEDS_ESCAPE.test(s)) return '"' + s + '"';
  return '"' + s.replace(ESCAPE_ALL, escapeChar) + '"';
}

/**
 * Compare strings by Unicode code point, as Python orders `str`. JS's `<` compares UTF-16
 * units, which puts astral characters (surrogates, 0xD800–0xDFFF) before U+E000–U+FFFF.
 */
export function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  if (i === n) return a.length - b.length;
  // If the first difference is in the low half of a surrogate pair, both code points start
  // one unit earlier (the high halves are equal).
  const prev = i > 0 ? a.charCodeAt(i - 1) : 0;
  if (prev >= 0xd800 && prev <= 0xdbff) {
    const ca = a.charCodeAt(i);
    const cb = b.charCodeAt(i);
    if ((ca >= 0xdc00 && ca <= 0xdfff) || (cb >= 0xdc00 && cb <= 0xdfff)) i--;
  }
  return a.codePointAt(i)! - b.codePointAt(i)!;
}

const HAS_SURROGATE = /[\ud800-\udfff]/;

/** Entry indexes of `obj` in Python's `sort_keys` order (stable, like Python's sort). */
function sortedKeyOrder(obj: LosslessObject): number[] {
  const n = obj.size;
  const keys = new Array<string>(n);
  const order = new Array<number>(n);
  let surrogates = false;
  for (let i = 0; i < n; i++) {
    keys[i] = obj.keyAt(i);
    order[i] = i;
    if (!surrogates && HAS_SURROGATE.test(keys[i])) surrogates = true;
  }
  // Without surrogates, UTF-16 order is code-point order and the native comparison is faster.
  if (surrogates) order.sort((x, y) => compareCodePoints(keys[x], keys[y]));
  else order.sort((x, y) => (keys[x] < keys[y] ? -1 : keys[x] > keys[y] ? 1 : 0));
  return order;
}

const PY_STYLE: JsonWriterStyle = {
  itemSeparator: ', ',
  keySeparator: ': ',
  string: pyString,
  number: pyNumber,
};
const PY_SORTED_STYLE: JsonWriterStyle = { ...PY_STYLE, orderKeys: sortedKeyOrder };

/**
 * Python's `json.dumps(v)` (or `json.dumps(v, sort_keys=True)` with `sortKeys`), i.e.
 * ensure_ascii=True, allow_nan=True, separators `", "` and `": "`, no indentation.
 */
export function pyDumps(v: LosslessValue, opts?: { sortKeys?: boolean }): string {
  return writeJson(v, opts?.sortKeys ? PY_SORTED_STYLE : PY_STYLE);
}

const NON_PRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]/u;
const hex = (n: number, width: number) => n.toString(16).padStart(width, '0');

/** Python's `repr(s)` of a str: quote choice, backslash escapes, non-printables as \x/\u/\U. */
export function pyStrRepr(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    if (ch === quote || ch === '\\') out += '\\' + ch;
    else if (ch === '\t') out += '\\t';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (cp < 0x20 || cp === 0x7f) out += '\\x' + hex(cp, 2);
    else if (cp < 0x7f || !NON_PRINTABLE.test(ch)) out += ch;
    else if (cp <= 0xff) out += '\\x' + hex(cp, 2);
    else if (cp <= 0xffff) out += '\\u' + hex(cp, 4);
    else out += '\\U' + hex(cp, 8);
  }
  return out + quote;
}
