/**
 * `parseLossless`: JSON text to a lossless value (value.ts), the way CPython 3.11's
 * `json.loads` (C scanner) reads it: same accepted language, duplicate-key rule and error
 * messages/positions, with every number lexeme and the key order kept.
 *
 * Known differences from CPython, on purpose:
 *  - no recursion limit (CPython raises RecursionError near depth 1000; we use an explicit
 *    stack and accept any depth);
 *  - no 4300-digit limit on integers (CPython raises ValueError "Exceeds the limit (4300
 *    digits) for integer string conversion" for longer integer literals); request bodies get
 *    that check in src/api/body.ts.
 */
import { LosslessNumber, LosslessObject, objectFromFlat, type FlatEntries, type LosslessValue } from './value.ts';
import { BACKSLASH, CLOSE_ARR, CLOSE_OBJ, COLON, COMMA, CR, DOT, LF, MINUS, NINE, ONE, OPEN_ARR, OPEN_OBJ, QUOTE, SPACE, TAB, ZERO } from './bytes.ts';

/**
 * Bad JSON text. The message matches CPython's `json.JSONDecodeError`, e.g.
 * `Expecting ',' delimiter: line 1 column 7 (char 6)`.
 */
export class JsonSyntaxError extends Error {
  override name = 'JsonSyntaxError';
  /** The bare message, without the position (Python's `JSONDecodeError.msg`). */
  readonly msg: string;
  /** UTF-16 index into the JS string where the error is. */
  readonly offset: number;
  /** Python's `pos`: the same place counted in code points (differs after astral characters). */
  readonly pos: number;
  /** 1-based line (lines end at `\n`). */
  readonly line: number;
  /** 1-based column, in code points, as Python counts it. */
  readonly column: number;

  constructor(msg: string, text: string, offset: number) {
    const pos = codePointIndex(text, offset);
    let line = 1;
    let lastNewline = -1;
    for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) {
      line++;
      lastNewline = i;
    }
    const column = lastNewline < 0 ? pos + 1 : pos - codePointIndex(text, lastNewline);
    super(`${msg}: line ${line} column ${column} (char ${pos})`);
    this.msg = msg;
    this.offset = offset;
    this.pos = pos;
    this.line = line;
    this.column = column;
  }
}

/** Number of code points in `text[0, offset)`: Python indexes strings by code point. */
function codePointIndex(text: string, offset: number): number {
  let pos = offset;
  for (let i = 0; i < offset - 1; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        pos--;
        i++;
      }
    }
  }
  return pos;
}

// Character codes used by the scanner.
const LBRACE = OPEN_OBJ, RBRACE = CLOSE_OBJ, LBRACKET = OPEN_ARR, RBRACKET = CLOSE_ARR;
const DIGIT0 = ZERO, DIGIT1 = ONE, DIGIT9 = NINE;

/** Objects larger than this get a Map for duplicate-key detection instead of a linear scan. */
const DUP_SCAN_LIMIT = 8;

/**
 * Shared instances for the integers 0..1023. LosslessNumber is immutable, and sharing cuts
 * allocation: the parser's cost is dominated by garbage-collecting what it allocates.
 */
const SMALL_INTS: readonly LosslessNumber[] = Array.from({ length: 1024 }, (_, k) => new LosslessNumber(String(k)));

/** Strings (keys, mostly) up to this many UTF-16 units are deduplicated while parsing. */
const INTERN_MAX_LENGTH = 32;

const ARRAY_FRAME = 0;
const OBJECT_FRAME = 1;

/**
 * Parse JSON text the way CPython's `json.loads` does, keeping number lexemes and key order.
 * Duplicate keys: the key stays where it first appeared and takes the last value.
 * Any nesting depth is accepted (explicit stack, no recursion).
 * Note: long strings in the result may be slices that keep `text` alive (as V8 slices do).
 * @throws JsonSyntaxError on invalid input.
 */
export function parseLossless(text: string): LosslessValue {
  const n = text.length;
  let i = 0;

  // The explicit stack. Frame `sp` has a kind, the start of its children in the scratch
  // stack, the key being parsed (objects) and an optional key index for big objects.
  // Children go on shared scratch stacks and are copied into an exactly-sized array when
  // the container closes: growing a fresh array per container wastes memory and GC time.
  let sp = -1;
  const kinds: number[] = [];
  const starts: number[] = [];
  const keys: string[] = [];
  const indexes: Array<Map<string, number> | undefined> = [];
  const items: LosslessValue[] = [];
  let itemsTop = 0;
  const flat: FlatEntries = []; // object entries as key, value, key, value, ...
  let flatTop = 0;

  // Cache of recent short strings, keyed by length and end characters; a hit is confirmed by
  // comparing characters, so no hashing is needed. Repeated keys then cost no allocation.
  const internSlots = n < 8192 ? 256 : 4096;
  const interned: string[] = new Array<string>(internSlots).fill('');

  // Positions of the next backslash / control character at or after the current string,
  // found lazily; they only move forward, so each costs one pass over the text in total.
  let nextBackslash = -1;
  let nextControl = -1;

  const fail = (msg: string, at: number): never => {
    throw new JsonSyntaxError(msg, text, at);
  };

  // Python's json whitespace is exactly these four characters.
  const skipWs = (): void => {
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === SPACE || c === LF || c === CR || c === TAB) i++;
      else break;
    }
  };

  /** `text[from, to)` as a string, from the intern cache when short. */
  const sliceString = (from: number, to: number): string => {
    const len = to - from;
    if (len === 0) return '';
    if (len > INTERN_MAX_LENGTH) return text.slice(from, to);
    const slot = (len * 31 + text.charCodeAt(from) * 7 + text.charCodeAt(to - 1)) & (internSlots - 1);
    const cached = interned[slot];
    if (cached.length === len && text.startsWith(cached, from)) return cached;
    const fresh = text.slice(from, to);
    interned[slot] = fresh;
    return fresh;
  };

  /**
   * Parse a string whose opening quote is at `i`; leaves `i` after the closing quote.
   * Native searches (indexOf, a regex) find the next quote, backslash and control character,
   * which is much faster than a JS loop over every character. Escapes are only validated here,
   * with CPython's rules and error positions; the native JSON.parse then decodes the literal,
   * which is exact because the JSON string grammar is the one CPython accepts (lone surrogate
   * escapes included).
   */
  const parseString = (): string => {
    const start = i;
    let j = i + 1;
    let close = -1;
    let escaped = false;
    for (;;) {
      // Each cached position is the first occurrence at or after some point <= j, so it stays
      // valid until j passes it; each is therefore searched for once per occurrence.
      if (close < j) {
        close = text.indexOf('"', j);
        if (close < 0) close = n;
      }
      if (nextBackslash < j) {
        nextBackslash = text.indexOf('\\', j);
        if (nextBackslash < 0) nextBackslash = n;
      }
      if (nextControl < j) {
        CONTROL_CHAR.lastIndex = j;
        nextControl = CONTROL_CHAR.exec(text)?.index ?? n;
      }
      // CPython reads left to right, so the first of these decides what happens.
      if (close < nextBackslash && close < nextControl) {
        i = close + 1;
        return escaped ? (JSON.parse(text.slice(start, close + 1)) as string) : sliceString(start + 1, close);
      }
      if (nextControl < nextBackslash) {
        return fail(nextControl < n ? 'Invalid control character at' : 'Unterminated string starting at', nextControl < n ? nextControl : start);
      }
      if (nextBackslash >= n) return fail('Unterminated string starting at', start);
      const bs = nextBackslash;
      if (bs + 1 >= n) return fail('Unterminated string starting at', start);
      const e = text.charCodeAt(bs + 1);
      if (e === 0x75) {
        // CPython wants the 4 hex digits plus at least one more character before the end.
        const u = bs + 1;
        if (u + 5 >= n) return fail('Invalid \\uXXXX escape', u);
        for (let k = u + 1; k <= u + 4; k++) {
          if (!isHexDigit(text.charCodeAt(k))) return fail('Invalid \\uXXXX escape', u);
        }
        j = bs + 6;
      } else if (SIMPLE_ESCAPES.includes(e)) j = bs + 2;
      else return fail('Invalid \\escape', bs);
      escaped = true;
    }
  };

  /** Parse a number starting at `i` (a '-' or a digit). */
  const parseNumber = (): LosslessNumber => {
    const start = i;
    let j = i;
    if (text.charCodeAt(j) === MINUS) {
      j++;
      if (text.startsWith('Infinity', j)) {
        i = j + 8;
        return new LosslessNumber('-Infinity');
      }
    }
    let c = text.charCodeAt(j);
    if (c === DIGIT0) j++;
    else if (c >= DIGIT1 && c <= DIGIT9) {
      j++;
      while (j < n && (c = text.charCodeAt(j)) >= DIGIT0 && c <= DIGIT9) j++;
    } else return fail('Expecting value', start);
    let plainInt = true;
    // Like CPython's regex match, take the longest valid prefix: "1." is the number 1
    // followed by a stray "." (reported by the caller as extra data / missing delimiter).
    if (text.charCodeAt(j) === DOT && isDigit(text.charCodeAt(j + 1))) {
      plainInt = false;
      j += 2;
      while (j < n && isDigit(text.charCodeAt(j))) j++;
    }
    c = text.charCodeAt(j);
    if (c === 0x65 || c === 0x45) {
      let k = j + 1;
      const s = text.charCodeAt(k);
      if (s === 0x2b || s === MINUS) k++;
      if (isDigit(text.charCodeAt(k))) {
        plainInt = false;
        j = k + 1;
        while (j < n && isDigit(text.charCodeAt(j))) j++;
      }
    }
    i = j;
    if (plainInt && j - start <= 3 && text.charCodeAt(start) !== MINUS) {
      let value = 0;
      for (let k = start; k < j; k++) value = value * 10 + (text.charCodeAt(k) - DIGIT0);
      return SMALL_INTS[value];
    }
    return new LosslessNumber(text.slice(start, j));
  };

  /** Add a finished key/value pair to frame `sp`, with Python dict semantics for duplicates. */
  const addEntry = (value: LosslessValue): void => {
    const key = keys[sp];
    const index = indexes[sp];
    if (index !== undefined) {
      const at = index.get(key);
      if (at !== undefined) flat[at + 1] = value;
      else {
        index.set(key, flatTop);
        flat[flatTop++] = key;
        flat[flatTop++] = value;
      }
      return;
    }
    const first = starts[sp];
    for (let k = first; k < flatTop; k += 2) {
      if (flat[k] === key) {
        flat[k + 1] = value;
        return;
      }
    }
    flat[flatTop++] = key;
    flat[flatTop++] = value;
    if (flatTop - first > 2 * DUP_SCAN_LIMIT) {
      const map = new Map<string, number>();
      for (let k = first; k < flatTop; k += 2) map.set(flat[k] as string, k);
      indexes[sp] = map;
    }
  };

  /** After '{' or ',' in an object: read `"key" :` into frame `sp`, leave `i` at the value. */
  const parseKey = (): void => {
    if (text.charCodeAt(i) !== QUOTE) fail('Expecting property name enclosed in double quotes', i);
    keys[sp] = parseString();
    skipWs();
    if (text.charCodeAt(i) !== COLON) fail("Expecting ':' delimiter", i);
    i++;
    skipWs();
  };

  if (n > 0 && text.charCodeAt(0) === 0xfeff) fail('Unexpected UTF-8 BOM (decode using utf-8-sig)', 0);

  let value: LosslessValue;
  skipWs();

  for (;;) {
    // 1. Parse one value at `i`; containers push a frame and go round for their first child.
    const c = text.charCodeAt(i); // NaN at end of input: matches no case
    switch (c) {
      case QUOTE:
        value = parseString();
        break;
      case LBRACE:
        i++;
        skipWs();
        if (text.charCodeAt(i) === RBRACE) {
          i++;
          value = new LosslessObject([]);
          break;
        }
        sp++;
        kinds[sp] = OBJECT_FRAME;
        starts[sp] = flatTop;
        indexes[sp] = undefined;
        parseKey();
        continue;
      case LBRACKET:
        i++;
        skipWs();
        if (text.charCodeAt(i) === RBRACKET) {
          i++;
          value = [];
          break;
        }
        sp++;
        kinds[sp] = ARRAY_FRAME;
        starts[sp] = itemsTop;
        continue;
      case 0x6e: // n
        if (!text.startsWith('null', i)) fail('Expecting value', i);
        i += 4;
        value = null;
        break;
      case 0x74: // t
        if (!text.startsWith('true', i)) fail('Expecting value', i);
        i += 4;
        value = true;
        break;
      case 0x66: // f
        if (!text.startsWith('false', i)) fail('Expecting value', i);
        i += 5;
        value = false;
        break;
      case 0x4e: // N
        if (!text.startsWith('NaN', i)) fail('Expecting value', i);
        i += 3;
        value = new LosslessNumber('NaN');
        break;
      case 0x49: // I
        if (!text.startsWith('Infinity', i)) fail('Expecting value', i);
        i += 8;
        value = new LosslessNumber('Infinity');
        break;
      default:
        if (c === MINUS || (c >= DIGIT0 && c <= DIGIT9)) value = parseNumber();
        else return fail('Expecting value', i);
    }

    // 2. Hand the value to its container; close containers until one wants another child.
    for (;;) {
      skipWs();
      if (sp < 0) {
        if (i !== n) fail('Extra data', i);
        return value;
      }
      const d = text.charCodeAt(i);
      if (kinds[sp] === ARRAY_FRAME) {
        items[itemsTop++] = value;
        if (d === COMMA) {
          i++;
          skipWs();
          break;
        }
        if (d !== RBRACKET) fail("Expecting ',' delimiter", i);
        i++;
        value = items.slice(starts[sp], itemsTop);
        itemsTop = starts[sp];
      } else {
        addEntry(value);
        if (d === COMMA) {
          i++;
          skipWs();
          parseKey();
          break;
        }
        if (d !== RBRACE) fail("Expecting ',' delimiter", i);
        i++;
        value = objectFromFlat(flat.slice(starts[sp], flatTop));
        flatTop = starts[sp];
        indexes[sp] = undefined;
      }
      sp--;
    }
  }
}

function isDigit(c: number): boolean {
  return c >= DIGIT0 && c <= DIGIT9;
}

function isHexDigit(c: number): boolean {
  return (c >= DIGIT0 && c <= DIGIT9) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);
}

/** Characters not allowed raw in a JSON string (sticky search from a given position). */
const CONTROL_CHAR = /[\x00-\x1f]/g;

/** Characters allowed after a backslash besides `u`: " \ / b f n r t. */
const SIMPLE_ESCAPES: readonly number[] = [QUOTE, BACKSLASH, 0x2f, 0x62, 0x66, 0x6e, 0x72, 0x74];
