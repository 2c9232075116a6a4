import assert from 'node:assert/strict';
import { test } from 'node:test';
import { validateJsonSchema, type JsonSchema } from './json-schema.ts';

const schema: JsonSchema = {
  type: 'object',
  required: ['name', 'expect'],
  additionalProperties: false,
  properties: {
    name: { type: 'string', pattern: '^[a-z-]+$', minLength: 2 },
    tags: { type: 'array', items: { type: 'string' }, uniqueItems: true },
    expect: { oneOf: [{ $ref: '#/$defs/ok' }, { $ref: '#/$defs/err' }] },
  },
  $defs: {
    ok: { type: 'object', additionalProperties: false, properties: { status: { const: 200 }, lines: { type: 'array' } } },
    err: { type: 'object', required: ['status'], properties: { status: { type: 'integer', minimum: 100, maximum: 599, not: { const: 200 } } } },
  },
};

test('a valid value has no violations', () => {
  assert.deepEqual(validateJsonSchema(schema, { name: 'ab', tags: ['x'], expect: { lines: [] } }), []);
  assert.deepEqual(validateJsonSchema(schema, { name: 'ab', expect: { status: 404 } }), []);
});

test('violations name the path and the rule', () => {
  assert.deepEqual(validateJsonSchema(schema, { name: 'A', tags: ['x', 'x'], extra: 1 }), [
    '$: missing required expect',
    '$.name: shorter than 2',
    '$.name: does not match ^[a-z-]+$',
    '$.tags: items not unique',
    '$.extra: not allowed',
  ]);
  assert.deepEqual(validateJsonSchema(schema, { name: 'ab', expect: { status: 200, body: {} } }), [
    '$.expect: matches 0 of the oneOf alternatives (must match exactly 1)',
  ]);
  assert.deepEqual(validateJsonSchema(schema, { name: 'ab', expect: { status: 'x' } }), [
    '$.expect: matches 0 of the oneOf alternatives (must match exactly 1)',
  ]);
  assert.deepEqual(validateJsonSchema(schema, 5), ['$: expected object, got 5']);
});

test('keywords the checker does not implement are refused, not ignored', () => {
  assert.throws(() => validateJsonSchema({ type: 'string', format: 'email' }, 'x'), /unsupported JSON Schema keyword format/);
  assert.throws(() => validateJsonSchema({ $ref: '#/$defs/nope' }, 'x'), /unresolvable \$ref/);
});
