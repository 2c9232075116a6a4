/**
 * A small JSON Schema (draft 2020-12) checker covering the keywords spec-tests/case.schema.json
 * uses: type, enum, const, properties, required, additionalProperties, items, minItems,
 * uniqueItems, minLength, pattern, minimum, maximum, oneOf, anyOf, not, and local `$ref`s
 * (`#/$defs/...`). Unknown keywords are an error, so the schema cannot silently use one this
 * checker ignores. tq adds no dependency for it.
 */

export type JsonSchema = boolean | { [keyword: string]: unknown };

const KNOWN = new Set([
  '$schema', '$id', '$defs', '$ref', '$comment', 'title', 'description',
  'type', 'enum', 'const', 'properties', 'required', 'additionalProperties', 'items', 'minItems',
  'uniqueItems', 'minLength', 'pattern', 'minimum', 'maximum', 'oneOf', 'anyOf', 'not',
]);

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function typeMatches(type: string, v: unknown): boolean {
  switch (type) {
    case 'object': return isObject(v);
    case 'array': return Array.isArray(v);
    case 'string': return typeof v === 'string';
    case 'integer': return typeof v === 'number' && Number.isInteger(v);
    case 'number': return typeof v === 'number';
    case 'boolean': return typeof v === 'boolean';
    case 'null': return v === null;
    default: throw new Error(`unknown JSON Schema type ${type}`);
  }
}

/** Structural equality of JSON values (for enum, const, uniqueItems). */
function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => jsonEqual(x, b[i]));
  if (isObject(a) && isObject(b)) {
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && jsonEqual(a[k], b[k]));
  }
  return false;
}

/** Every violation of `schema` by `value`, as `<path>: <problem>`; empty when valid. */
export function validateJsonSchema(root: JsonSchema, value: unknown): string[] {
  const errors: string[] = [];
  const resolve = (ref: string): JsonSchema => {
    const m = /^#\/\$defs\/([^/]+)$/.exec(ref);
    const defs = isObject(root) ? root.$defs : undefined;
    if (!m || !isObject(defs) || !(m[1] in defs)) throw new Error(`unresolvable $ref ${ref}`);
    return defs[m[1]] as JsonSchema;
  };
  const check = (schema: JsonSchema, v: unknown, path: string, out: string[]): void => {
    if (schema === true) return;
    if (schema === false) {
      out.push(`${path}: not allowed`);
      return;
    }
    for (const k of Object.keys(schema)) if (!KNOWN.has(k)) throw new Error(`unsupported JSON Schema keyword ${k}`);
    if (typeof schema.$ref === 'string') check(resolve(schema.$ref), v, path, out);
    if (schema.type !== undefined) {
      const types = Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string];
      if (!types.some((t) => typeMatches(t, v))) {
        out.push(`${path}: expected ${types.join(' or ')}, got ${JSON.stringify(v)?.slice(0, 60)}`);
        return;
      }
    }
    if (Array.isArray(schema.enum) && !schema.enum.some((e) => jsonEqual(e, v))) out.push(`${path}: not one of ${JSON.stringify(schema.enum)}`);
    if ('const' in schema && !jsonEqual(schema.const, v)) out.push(`${path}: must be ${JSON.stringify(schema.const)}`);
    if (typeof v === 'string') {
      if (typeof schema.minLength === 'number' && [...v].length < schema.minLength) out.push(`${path}: shorter than ${schema.minLength}`);
      if (typeof schema.pattern === 'string' && !new RegExp(schema.pattern, 'u').test(v)) out.push(`${path}: does not match ${schema.pattern}`);
    }
    if (typeof v === 'number') {
      if (typeof schema.minimum === 'number' && v < schema.minimum) out.push(`${path}: below ${schema.minimum}`);
      if (typeof schema.maximum === 'number' && v > schema.maximum) out.push(`${path}: above ${schema.maximum}`);
    }
    if (Array.isArray(v)) {
      if (typeof schema.minItems === 'number' && v.length < schema.minItems) out.push(`${path}: fewer than ${schema.minItems} items`);
      if (schema.uniqueItems === true && v.some((x, i) => v.findIndex((y) => jsonEqual(x, y)) !== i)) out.push(`${path}: items not unique`);
      if (schema.items !== undefined) v.forEach((item, i) => check(schema.items as JsonSchema, item, `${path}[${i}]`, out));
    }
    if (isObject(v)) {
      const props = isObject(schema.properties) ? schema.properties : {};
      if (Array.isArray(schema.required)) {
        for (const k of schema.required as string[]) if (!(k in v)) out.push(`${path}: missing required ${k}`);
      }
      for (const [k, inner] of Object.entries(v)) {
        if (k in props) check(props[k] as JsonSchema, inner, `${path}.${k}`, out);
        else if (schema.additionalProperties !== undefined) check(schema.additionalProperties as JsonSchema, inner, `${path}.${k}`, out);
      }
    }
    const passes = (s: JsonSchema) => {
      const sub: string[] = [];
      check(s, v, path, sub);
      return sub.length === 0;
    };
    if (Array.isArray(schema.oneOf)) {
      const n = (schema.oneOf as JsonSchema[]).filter(passes).length;
      if (n !== 1) out.push(`${path}: matches ${n} of the oneOf alternatives (must match exactly 1)`);
    }
    if (Array.isArray(schema.anyOf) && !(schema.anyOf as JsonSchema[]).some(passes)) out.push(`${path}: matches none of the anyOf alternatives`);
    if (schema.not !== undefined && passes(schema.not as JsonSchema)) out.push(`${path}: matches a forbidden shape (not)`);
  };
  check(root, value, '$', errors);
  return errors;
}
