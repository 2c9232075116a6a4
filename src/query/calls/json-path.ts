/**
 * Dot paths into call JSON (`inputs.model.name`, `output.choices.0.text`), read the way
 * ClickHouse's JSON functions read them in Weave's queries.
 */
import { LosslessNumber } from '../../core/json/lossless.ts';

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

/** A path part that is an array index: ASCII digits, optionally negative (orm `_array_index`). */
const INDEX = /^-?[0-9]+$/;

/** Sentinel: the path does not exist in the document. */
export const MISSING: unique symbol = Symbol('missing');

/**
 * Reads `parts` from `doc` as production's newest reader does (calls-semantics §5.4,
 * `json_dump_field_as_sql`): a part made only of digits is an array index, never an object key
 * (`d.0` on `{"d":{"0":1}}` is missing); a negative index counts from the end (`l.-1` is the
 * last element). Returns MISSING when any step is absent.
 */
export function readPath(doc: unknown, parts: readonly string[]): unknown {
  let cur: unknown = doc;
  for (const part of parts) {
    if (cur === null || typeof cur !== 'object' || cur instanceof LosslessNumber) return MISSING;
    const isIndex = INDEX.test(part);
    if (Array.isArray(cur)) {
      if (!isIndex) return MISSING;
      const n = Number(part);
      const i = n < 0 ? cur.length + n : n;
      if (i < 0 || i >= cur.length) return MISSING;
      cur = cur[i];
    } else {
      if (isIndex || !Object.prototype.hasOwnProperty.call(cur, part)) return MISSING;
      cur = (cur as Record<string, unknown>)[part];
    }
  }
  return cur;
}
