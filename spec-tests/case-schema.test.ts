import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { bundleCases, caseSchemaCheck } from './bundle.ts';
import { compileSchema } from './case-schema.ts';

const schema = {
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
  const check = compileSchema(schema);
  assert.deepEqual(check({ name: 'ab', tags: ['x'], expect: { lines: [] } }), []);
  assert.deepEqual(check({ name: 'ab', expect: { status: 404 } }), []);
});

test('every violation is listed, each naming its path and the rule', () => {
  const check = compileSchema(schema);
  assert.deepEqual(check({ name: 'A', tags: ['x', 'x'], extra: 1 }), [
    "$: must have required property 'expect'",
    '$.extra: not allowed',
    '$.name: must NOT have fewer than 2 characters',
    '$.name: must match pattern "^[a-z-]+$"',
    '$.tags: must NOT have duplicate items (items ## 1 and 0 are identical)',
  ]);
  assert.deepEqual(check({ name: 'ab', expect: { status: 'x' } }), [
    '$.expect.status: must be equal to constant',
    '$.expect.status: must be integer',
    '$.expect: must match exactly one schema in oneOf',
  ]);
  assert.deepEqual(check(5), ['$: must be object']);
});

test('a keyword or reference the validator cannot honour is refused when compiling, not ignored', () => {
  assert.throws(() => compileSchema({ type: 'string', fromat: 'email' }), /strict mode: unknown keyword: "fromat"/);
  assert.throws(() => compileSchema({ type: 'string', format: 'email' }), /unknown format "email"/);
  assert.throws(() => compileSchema({ $ref: '#/$defs/nope' }), /can't resolve reference #\/\$defs\/nope/);
});

const GOOD_CASE = {
  name: 'threads-errors-sort-field-foo-400',
  tags: ['threads', 'errors'],
  spec: 'semantics.md#threads-sort',
  request: { path: '/threads/stream_query', body: { project_id: '{{project}}', sort_by: [{ field: 'foo', direction: 'asc' }] } },
  expect: { status: 400, body: { reason: 'Unsupported sort field: foo.' } },
};

test('case.schema.json takes a well-formed case and names what is wrong with a bad one', () => {
  const check = caseSchemaCheck();
  assert.deepEqual(check(GOOD_CASE), []);
  const { spec: _spec, ...noSpec } = GOOD_CASE;
  assert.deepEqual(check({ ...noSpec, name: 'Bad Name', tags: ['x', 'x'], expected: {} }), [
    "$: must have required property 'spec'",
    '$.expected: not allowed',
    '$.name: must match pattern "^[a-z0-9][a-z0-9._-]*$"',
    '$.tags: must NOT have duplicate items (items ## 1 and 0 are identical)',
  ]);
});

test('bundling refuses case files with schema violations or duplicate names, listing each', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tq-cases-'));
  try {
    writeFileSync(join(dir, 'a.json'), JSON.stringify([GOOD_CASE]));
    writeFileSync(join(dir, 'b.json'), JSON.stringify({ cases: [GOOD_CASE, { ...GOOD_CASE, name: 'b-case', tags: 'x' }] }));
    assert.throws(() => bundleCases(dir), (e: Error) => {
      assert.equal(e.message, [
        'invalid case files:',
        '  b.json threads-errors-sort-field-foo-400: duplicate name (also in a.json)',
        '  b.json b-case: $.tags: must be array',
      ].join('\n'));
      return true;
    });
    writeFileSync(join(dir, 'b.json'), JSON.stringify({ ...GOOD_CASE, name: 'b-case' }));
    assert.deepEqual(bundleCases(dir).cases.map((c) => c.name), ['threads-errors-sort-field-foo-400', 'b-case']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
