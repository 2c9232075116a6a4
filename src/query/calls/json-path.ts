/**
 * Dot paths into call JSON (`inputs.model.name`, `output.choices.0.text`), read the way
 * ClickHouse's JSON functions read them in Weave's queries.
 */

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

const INDEX = /^\d+$/;

/** Sentinel: the path does not exist in the document. */
export const MISSING: unique symbol = Symbol('missing');

/**
 * Reads `parts` from `doc`. An all-digit part indexes into an array (ClickHouse JSON_VALUE
 * with `[n]`); on an object it is a key. Returns MISSING when any step is absent.
 */
export function readPath(doc: unknown, parts: readonly string[]): unknown {
  let cur: unknown = doc;
  for (const part of parts) {
    if (cur === null || typeof cur !== 'object') return MISSING;
    if (Array.isArray(cur)) {
      if (!INDEX.test(part)) return MISSING;
      const i = Number(part);
      if (i >= cur.length) return MISSING;
      cur = cur[i];
    } else {
      if (!Object.prototype.hasOwnProperty.call(cur, part)) return MISSING;
      cur = (cur as Record<string, unknown>)[part];
    }
  }
  return cur;
}
