/**
 * Checks conformance cases against spec-tests/case.schema.json with ajv (JSON Schema draft
 * 2020-12), the validator other implementers' tools use, so the schema means here what it
 * means to them. Strict mode: a keyword or format ajv does not know is an error when the
 * schema is compiled, never silently ignored. Only strictRequired is off: the schema's
 * `not: {anyOf: [{required: ['body']}, ...]}` names properties that the enclosing object
 * defines, which is valid JSON Schema that ajv's extra lint rejects.
 */
import { Ajv2020, type ErrorObject } from 'ajv/dist/2020.js';

export type JsonSchema = boolean | Record<string, unknown>;

/** A compiled schema: every violation of a value, as `<path>: <problem>`; empty when valid. */
export type SchemaCheck = (value: unknown) => string[];

export function compileSchema(schema: JsonSchema): SchemaCheck {
  const ajv = new Ajv2020({ allErrors: true, strict: true, strictRequired: false });
  const validate = ajv.compile(schema);
  return (value) => (validate(value) ? [] : (validate.errors ?? []).map(describe));
}

/** `$` then `.key` / `[index]` steps, as the rest of tq names places in JSON. */
function jsonPath(pointer: string): string {
  if (pointer === '') return '$';
  return '$' + pointer.slice(1).split('/').map((raw) => {
    const step = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    return /^\d+$/.test(step) ? `[${step}]` : `.${step}`;
  }).join('');
}

function describe(e: ErrorObject): string {
  // The offending key is the place for an unexpected property, as for every other violation.
  if (e.keyword === 'additionalProperties') return `${jsonPath(e.instancePath)}.${String(e.params.additionalProperty)}: not allowed`;
  return `${jsonPath(e.instancePath)}: ${e.message ?? e.keyword}`;
}
