/**
 * Dot paths into call JSON (`inputs.model.name`, `output.choices.0.text`), read the way
 * ClickHouse's JSON functions read them in Weave's queries.
 */
import { LosslessNumber, LosslessObject } from '../../core/json/lossless.ts';

/** Splits `a.b\.c.d` into ["a", "b.c", "d"]: a backslash escapes a dot (Weave's orm.split_escaped_field_path). */
export function splitFieldPath(path: string): string[] {
  if (!path.includes('\\')) return path.split('.');
  const parts: string[] = [];
  let current = '';
  for (let i = 0; i < path.length; i++) {
    const ch = path[i];
    if (ch === '\\' && path[i + 1] === '.') {
      current += '.';
      i++;
    } else if (ch === '.') {
      parts.push(current);
      current = '';
    } else {
      current += ch;
    }
  }
  parts.push(current);
  return parts;
}

/** A path part that is an index: ASCII digits, optionally negative (orm `_array_index`). */
const INDEX = /^-?[0-9]+$/;

export const isIndexPart = (part: string): boolean => INDEX.test(part);

/** Whether any part is a negative index (production then reads the path with hops). */
export const hasNegativeIndex = (parts: readonly string[]): boolean => parts.some((p) => p.charCodeAt(0) === 0x2d && INDEX.test(p));

/**
 * How a path's index parts read (production `utils.json_dump_field_as_sql`):
 *  - 'json-value': `JSON_VALUE(dump, '$.a[0]')`: an index part reads an array element only; on
 *    an object it is missing (it is never an object key);
 *  - 'hops': `JSONExtractRaw(dump, 'a', 1)` / `JSONType(...)`, used for paths with a negative
 *    index and for existence: an index part is the n-th element of an array or the n-th member
 *    of an object in document order, a negative one counting from the end.
 */
export type PathReading = 'json-value' | 'hops';

/** Sentinel: the path does not exist in the document. */
export const MISSING: unique symbol = Symbol('missing');

/** The element at index part `part` (negative from the end), or MISSING. */
function at<T>(items: { length: number }, part: string, get: (i: number) => T): T | typeof MISSING {
  const n = Number(part);
  const i = n < 0 ? items.length + n : n;
  return i < 0 || i >= items.length ? MISSING : get(i);
}

/**
 * Reads `parts` from `doc` (plain values or lossless ones; LosslessObjects keep document
 * order, which 'hops' member positions need). Returns MISSING when any step is absent
 * (semantics.md#calls-json-read: `d.0` on `{"d":{"0":1}}` is missing when read as a value).
 */
export function readPath(doc: unknown, parts: readonly string[], reading: PathReading = 'json-value'): unknown {
  let cur: unknown = doc;
  for (const part of parts) {
    if (cur === null || typeof cur !== 'object' || cur instanceof LosslessNumber) return MISSING;
    const isIndex = INDEX.test(part);
    let next: unknown;
    if (Array.isArray(cur)) {
      const items: unknown[] = cur;
      next = isIndex ? at(items, part, (i) => items[i]) : MISSING;
    } else if (cur instanceof LosslessObject) {
      const obj = cur;
      if (!isIndex) next = obj.has(part) ? obj.get(part) : MISSING;
      else next = reading === 'hops' ? at({ length: obj.size }, part, (i) => obj.valueAt(i)) : MISSING;
    } else {
      const obj = cur as Record<string, unknown>;
      if (!isIndex) next = Object.prototype.hasOwnProperty.call(obj, part) ? obj[part] : MISSING;
      else if (reading === 'hops') {
        const keys = Object.keys(obj);
        next = at(keys, part, (i) => obj[keys[i]]);
      } else next = MISSING;
    }
    if (next === MISSING) return MISSING;
    cur = next;
  }
  return cur;
}
