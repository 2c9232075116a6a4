/**
 * Python's `json.dumps(obj)` with default options, byte for byte, optionally with
 * `sort_keys=True`. Weave hashes this text to get row and object digests, so every detail
 * matters: `", "` and `": "` separators, ASCII-only output, Python's int and float spelling and
 * code-point key order.
 */
import {
  LosslessNumber,
  type LosslessObject,
  NON_FINITE_LEXEMES,
  writeJson,
  type JsonWriterStyle,
  type LosslessValue,
} from './lossless.ts';

/**
 * Python's `repr(x)` for a float: shortest digits that round-trip, `.0` on integral values,
 * scientific notation when the decimal exponent is < -4 or >= 16 (`1e-05`, `1.5e+16`), and
 * `NaN`, `Infinity`, `-Infinity`, `-0.0`.
 */
export function pyFloatRepr(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (x === Infinity) return 'Infinity';
  if (x === -Infinity) return '-Infinity';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';

  // JS's Number#toString also yields the shortest round-trip digits (and picks the closest
  // when several are shortest, as Python does); only the layout differs. Pull out the digits
  // and the decimal exponent, then lay them out Python's way.
  const sign = x < 0 ? '-' : '';
  const s = String(Math.abs(x)); // "123.45", "1e+21", "1.5e-7", "0.000001"
  const e = s.indexOf('e');
  const mantissa = e < 0 ? s : s.slice(0, e);
  const exp10 = e < 0 ? 0 : Number(s.slice(e + 1));
  const dot = mantissa.indexOf('.');
  let digits = dot < 0 ? mantissa : mantissa.slice(0, dot) + mantissa.slice(dot + 1);
  // Position of the decimal point within `digits`.
  let point = (dot < 0 ? mantissa.length : dot) + exp10;
  const leadingZeros = digits.length - digits.replace(/^0+/, '').length;
  digits = digits.slice(leadingZeros);
  point -= leadingZeros;
  digits = digits.replace(/0+$/, '');
  const exponent = point - 1; // x = d.ddd × 10^exponent

  if (exponent < -4 || exponent >= 16) {
    const m = digits.length > 1 ? digits[0] + '.' + digits.slice(1) : digits;
    const absExp = Math.abs(exponent);
    return `${sign}${m}e${exponent < 0 ? '-' : '+'}${absExp < 10 ? '0' : ''}${absExp}`;
  }
  if (point <= 0) return `${sign}0.${'0'.repeat(-point)}${digits}`;
  if (point >= digits.length) return `${sign}${digits}${'0'.repeat(point - digits.length)}.0`;
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}

const CANONICAL_INT = /^-?(?:0|[1-9]\d*)$/;
const PY_INT = /^([+-]?)(\d+)$/;
/** What Python's float() accepts that we support: decimal with optional point and exponent. */
const PY_FLOAT = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

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
