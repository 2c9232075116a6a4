/**
 * Writing lossless values (value.ts) as JSON text: one iterative walker (no depth limit) and
 * the styles that spell scalars and separators (compact JSON here, Python's `json.dumps` in
 * pyjson.ts).
 */
import { LosslessNumber, LosslessObject, NON_FINITE_LEXEMES, type LosslessValue } from './value.ts';

/** RFC 8259 number grammar, used to check lexemes we did not produce ourselves. */
const JSON_NUMBER_LEXEME = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/** How `writeJson` spells scalars and separators; lets pyjson.ts reuse the same walker. */
export interface JsonWriterStyle {
  /** Between array items and between object entries, e.g. `,` or `, `. */
  readonly itemSeparator: string;
  /** Between a key and its value, e.g. `:` or `: `. */
  readonly keySeparator: string;
  /** A quoted, escaped string (used for keys and values). */
  string(s: string): string;
  number(n: LosslessNumber): string;
  /** Optional: the entry indexes of `obj` in the order to write them, or null for as-is. */
  orderKeys?(obj: LosslessObject): number[] | null;
}

/** Nesting the recursive writer handles; deeper values (or a cycle) go to the iterative one. */
const RECURSIVE_DEPTH = 64;
/** Thrown inside the recursive writer when it meets a container deeper than RECURSIVE_DEPTH. */
const TOO_DEEP = Symbol('too deep');

/**
 * Serialise a lossless value with the given style (no depth limit).
 * @throws TypeError on a value that is not a LosslessValue or on a circular reference.
 */
export function writeJson(root: LosslessValue, style: JsonWriterStyle): string {
  // Almost every value (a row, an object, a call part) is shallow: the recursive writer needs no
  // frame objects and no cycle set (a cycle is infinitely deep, so it always reaches the
  // iterative writer, which names it).
  try {
    return writeShallow(root, style, 0);
  } catch (e) {
    if (e !== TOO_DEEP) throw e;
    return writeIterative(root, style);
  }
}

function writeShallow(v: LosslessValue, style: JsonWriterStyle, depth: number): string {
  if (v === null) return 'null';
  if (v === true) return 'true';
  if (v === false) return 'false';
  if (typeof v === 'string') return style.string(v);
  if (v instanceof LosslessNumber) return style.number(v);
  if (depth === RECURSIVE_DEPTH) throw TOO_DEEP;
  if (Array.isArray(v)) {
    const n = v.length;
    if (n === 0) return '[]';
    let out = '[' + writeShallow(v[0], style, depth + 1);
    for (let i = 1; i < n; i++) out += style.itemSeparator + writeShallow(v[i], style, depth + 1);
    return out + ']';
  }
  if (v instanceof LosslessObject) {
    const n = v.size;
    if (n === 0) return '{}';
    const order = style.orderKeys !== undefined && n > 1 ? style.orderKeys(v) : null;
    let out = '{';
    for (let i = 0; i < n; i++) {
      const k = order === null ? i : order[i];
      if (i > 0) out += style.itemSeparator;
      out += style.string(v.keyAt(k)) + style.keySeparator + writeShallow(v.valueAt(k), style, depth + 1);
    }
    return out + '}';
  }
  throw new TypeError(`not a lossless JSON value: ${Object.prototype.toString.call(v)}`);
}

/** The writer for deep values: an explicit stack, and a set of the open containers to find cycles. */
function writeIterative(root: LosslessValue, style: JsonWriterStyle): string {
  const { itemSeparator, keySeparator } = style;
  const orderKeys = style.orderKeys;
  // One open container: an array, or an object with an optional entry order.
  type Frame = { array: LosslessValue[] | null; obj: LosslessObject | null; order: number[] | null; i: number; n: number };
  const stack: Frame[] = [];
  const onPath = new Set<object>();
  let out = '';
  let v: LosslessValue = root;
  for (;;) {
    // Write `v`; a non-empty container opens a frame and continues with its first child.
    if (v === null) out += 'null';
    else if (v === true) out += 'true';
    else if (v === false) out += 'false';
    else if (typeof v === 'string') out += style.string(v);
    else if (v instanceof LosslessNumber) out += style.number(v);
    else if (Array.isArray(v)) {
      if (v.length === 0) out += '[]';
      else {
        if (onPath.has(v)) throw new TypeError('Circular reference detected');
        onPath.add(v);
        stack.push({ array: v, obj: null, order: null, i: 0, n: v.length });
        out += '[';
        v = v[0];
        continue;
      }
    } else if (v instanceof LosslessObject) {
      const n = v.size;
      if (n === 0) out += '{}';
      else {
        if (onPath.has(v)) throw new TypeError('Circular reference detected');
        onPath.add(v);
        const order = orderKeys !== undefined && n > 1 ? orderKeys(v) : null;
        const k = order === null ? 0 : order[0];
        stack.push({ array: null, obj: v, order, i: 0, n });
        out += '{' + style.string(v.keyAt(k)) + keySeparator;
        v = v.valueAt(k);
        continue;
      }
    } else {
      throw new TypeError(`not a lossless JSON value: ${Object.prototype.toString.call(v)}`);
    }

    // Move to the next sibling, closing finished containers.
    for (;;) {
      const f = stack[stack.length - 1];
      if (f === undefined) return out;
      const i = ++f.i;
      if (i < f.n) {
        if (f.array !== null) {
          out += itemSeparator;
          v = f.array[i];
        } else {
          const obj = f.obj!;
          const k = f.order === null ? i : f.order[i];
          out += itemSeparator + style.string(obj.keyAt(k)) + keySeparator;
          v = obj.valueAt(k);
        }
        break;
      }
      out += f.array !== null ? ']' : '}';
      onPath.delete(f.array ?? f.obj!);
      stack.pop();
    }
  }
}

const COMPACT_STYLE: JsonWriterStyle = {
  itemSeparator: ',',
  keySeparator: ':',
  string: (s) => JSON.stringify(s),
  number: (n) => {
    const lexeme = n.lexeme;
    if (JSON_NUMBER_LEXEME.test(lexeme)) return lexeme;
    // JSON has no NaN/Infinity; write null like JSON.stringify does for those numbers.
    if (NON_FINITE_LEXEMES.has(lexeme)) return 'null';
    throw new TypeError(`not a JSON number lexeme: ${JSON.stringify(lexeme)}`);
  },
};

/**
 * Minified JSON with key order kept and number lexemes written verbatim (so `1.0` stays
 * `1.0`). Strings are escaped like `JSON.stringify`. `NaN`/`Infinity`/`-Infinity` lexemes,
 * which JSON cannot express, are written as `null` (as `JSON.stringify` does).
 * @throws TypeError for a number lexeme that is not valid JSON (e.g. `+1`, `01`).
 */
export function dumpCompact(v: LosslessValue): string {
  return writeJson(v, COMPACT_STYLE);
}
