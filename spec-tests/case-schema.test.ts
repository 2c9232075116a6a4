import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { bundleCases, caseSchemaCheck, readSuiteInfo } from './bundle.ts';
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
    const suite = { version: '2.0.0', weave_source: 'wandb/weave@abc', smoke: [] };
    assert.throws(() => bundleCases(dir, suite), (e: Error) => {
      assert.equal(e.message, [
        'invalid case files:',
        '  b.json threads-errors-sort-field-foo-400: duplicate name (also in a.json)',
        '  b.json b-case: $.tags: must be array',
      ].join('\n'));
      return true;
    });
    writeFileSync(join(dir, 'b.json'), JSON.stringify({ ...GOOD_CASE, name: 'b-case' }));
    assert.deepEqual(bundleCases(dir, suite).cases.map((c) => c.name), ['threads-errors-sort-field-foo-400', 'b-case']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the bundle fills each case\'s grade from its tags and its Weave source from the suite, keeping what a file states', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tq-cases-'));
  try {
    const cases = [
      GOOD_CASE,
      { ...GOOD_CASE, name: 'b-decision', tags: ['decision'] },
      { ...GOOD_CASE, name: 'c-deviates', tags: ['deviates-from-production'] },
      { ...GOOD_CASE, name: 'd-own', grade: 'should', weave_source: 'npm weave@0.11.1', alternatives: [{ status: 422, body_keys: ['detail'] }] },
    ];
    writeFileSync(join(dir, 'a.json'), JSON.stringify(cases));
    const bundle = bundleCases(dir, { version: '2.1.0', weave_source: 'wandb/weave@abc', smoke: ['b-decision'] });
    assert.deepEqual(bundle.suite, { version: '2.1.0', weave_source: 'wandb/weave@abc', smoke: ['b-decision'] });
    assert.deepEqual(bundle.cases.map((c) => [c.name, c.grade, c.weave_source]), [
      ['threads-errors-sort-field-foo-400', 'must', 'wandb/weave@abc'],
      ['b-decision', 'should', 'wandb/weave@abc'],
      ['c-deviates', 'deviates-from-production', 'wandb/weave@abc'],
      ['d-own', 'should', 'npm weave@0.11.1'],
    ]);
    writeFileSync(join(dir, 'a.json'), JSON.stringify([{ ...GOOD_CASE, grade: 'deviates-from-production' }, { ...GOOD_CASE, name: 'e', grade: 'maybe' }]));
    assert.throws(() => bundleCases(dir, { version: '1.0.0', weave_source: 'x', smoke: ['gone'] }), (e: Error) => {
      assert.equal(e.message, [
        'invalid case files:',
        "  a.json threads-errors-sort-field-foo-400: grade deviates-from-production needs the tag 'deviates-from-production' too (--skip-tags relies on it)",
        '  a.json e: $.grade: must be equal to one of the allowed values',
        "  suite.json smoke: no case is named 'gone'",
      ].join('\n'));
      return true;
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('suite.json states a semver version, the Weave source and smoke case names', () => {
  const suite = readSuiteInfo();
  assert.match(suite.version, /^\d+\.\d+\.\d+$/);
  assert.match(suite.weave_source, /^wandb\/weave@[0-9a-f]{40}$/);
  assert.ok(suite.smoke.length >= 10 && suite.smoke.length <= 15, 'a dozen smoke cases');
  const dir = mkdtempSync(join(tmpdir(), 'tq-suite-'));
  try {
    writeFileSync(join(dir, 's.json'), JSON.stringify({ version: '1.0', weave_source: 'x', smoke: [] }));
    assert.throws(() => readSuiteInfo(join(dir, 's.json')), { message: `${join(dir, 's.json')}: version must be a semver string, got "1.0"` });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
