import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RequestSchemaError, type ValidationIssue } from './errors.ts';
import { alias, bool, int, jsonInvalid, list, literal, maybe, model, str, validateBody } from './schema.ts';

const Sort = model('SortBy', { field: str(), direction: literal(['asc', 'desc'] as const) }, { strict: true });
const Req = model(
  'Req',
  { project_id: str(), limit: maybe(int()), flag: maybe(bool()), sort_by: maybe(list(Sort)) },
  { strict: true },
);

function issuesOf(body: unknown) {
  try {
    validateBody(Req, body);
  } catch (e) {
    assert.ok(e instanceof RequestSchemaError);
    assert.equal(e.status, 422);
    return (e.body() as { detail: unknown[] }).detail;
  }
  assert.fail('expected a 422');
}

test('valid bodies pass; absent optionals stay absent', () => {
  assert.deepEqual(validateBody(Req, { project_id: 'a/b' }), { project_id: 'a/b' });
  assert.deepEqual(validateBody(Req, { project_id: 'a/b', limit: null }), { project_id: 'a/b', limit: null });
});

test('pydantic lax coercions: "5" and 5.0 are ints, "yes" and 1 are bools', () => {
  assert.deepEqual(validateBody(Req, { project_id: 'a/b', limit: '5', flag: 'yes' }), { project_id: 'a/b', limit: 5, flag: true });
  assert.deepEqual(validateBody(Req, { project_id: 'a/b', limit: 5.0, flag: 0 }), { project_id: 'a/b', limit: 5, flag: false });
});

test('unknown keys are extra_forbidden with their location', () => {
  assert.deepEqual(issuesOf({ project_id: 'a/b', nope: 1 }), [
    { type: 'extra_forbidden', loc: ['body', 'nope'], msg: 'Extra inputs are not permitted', input: 1 },
  ]);
});

test('missing required field', () => {
  assert.deepEqual(issuesOf({}), [{ type: 'missing', loc: ['body', 'project_id'], msg: 'Field required', input: {} }]);
});

test('wrong types, in pydantic v2 wording, all reported at once', () => {
  const detail = issuesOf({ project_id: 7, limit: 1.5, flag: 'maybe', sort_by: [{ field: 'x', direction: 'ASC' }] });
  assert.deepEqual(detail, [
    { type: 'string_type', loc: ['body', 'project_id'], msg: 'Input should be a valid string', input: 7 },
    { type: 'int_from_float', loc: ['body', 'limit'], msg: 'Input should be a valid integer, got a number with a fractional part', input: 1.5 },
    { type: 'bool_parsing', loc: ['body', 'flag'], msg: 'Input should be a valid boolean, unable to interpret input', input: 'maybe' },
    {
      type: 'literal_error',
      loc: ['body', 'sort_by', 0, 'direction'],
      msg: "Input should be 'asc' or 'desc'",
      input: 'ASC',
      ctx: { expected: "'asc' or 'desc'" },
    },
  ]);
});

test('a nested model given a non-object is model_type; a list given an object is list_type', () => {
  assert.deepEqual(issuesOf({ project_id: 'a', sort_by: ['x'] })[0], {
    type: 'model_type',
    loc: ['body', 'sort_by', 0],
    msg: 'Input should be a valid dictionary or instance of SortBy',
    input: 'x',
    ctx: { class_name: 'SortBy' },
  });
  assert.equal((issuesOf({ project_id: 'a', sort_by: {} })[0] as { type: string }).type, 'list_type');
});

test('a body that is not an object', () => {
  assert.deepEqual(issuesOf([1]), [
    { type: 'model_attributes_type', loc: ['body'], msg: 'Input should be a valid dictionary or object to extract fields from', input: [1] },
  ]);
});

test('json_invalid body', () => {
  const e = jsonInvalid(3, 'Expecting value');
  assert.equal(e.status, 422);
  assert.deepEqual(e.body(), { detail: [{ type: 'json_invalid', loc: ['body', 3], msg: 'JSON decode error', input: {}, ctx: { error: 'Expecting value' } }] });
});

test('an aliased field is read from its wire key and named by its shape key; issues use the wire key', () => {
  const Aliased = model('Aliased', { project_id: str(), user_id: alias('wb_user_id', maybe(str())), step: alias('wb_step', int()) }, { strict: true });
  assert.deepEqual(validateBody(Aliased, { project_id: 'a/b', wb_user_id: 'u', wb_step: '3' }), { project_id: 'a/b', user_id: 'u', step: 3 });
  assert.deepEqual(validateBody(Aliased, { project_id: 'a/b', wb_step: 1 }), { project_id: 'a/b', step: 1 });
  const issues = (body: unknown) => {
    try {
      validateBody(Aliased, body);
    } catch (e) {
      assert.ok(e instanceof RequestSchemaError);
      return e.issues;
    }
    assert.fail('expected a 422');
  };
  // Missing and mistyped at the wire key, in declaration order; the neutral name is an unknown key.
  assert.deepEqual(issues({ project_id: 'a/b', wb_user_id: 5, user_id: 'u' }), [
    { type: 'string_type', loc: ['body', 'wb_user_id'], msg: 'Input should be a valid string', input: 5 },
    { type: 'missing', loc: ['body', 'wb_step'], msg: 'Field required', input: { project_id: 'a/b', wb_user_id: 5, user_id: 'u' } },
    { type: 'extra_forbidden', loc: ['body', 'user_id'], msg: 'Extra inputs are not permitted', input: 'u' },
  ]);
});

test('str limits: pydantic\'s string_too_short / string_too_long, counted in code points, singular at 1', () => {
  const check = (limits: { minLength?: number; maxLength?: number }, v: string) => {
    const issues: ValidationIssue[] = [];
    str(limits).check(v, ['s'], issues);
    return issues.map(({ type, msg, ctx }) => ({ type, msg, ctx }));
  };
  assert.deepEqual(check({ minLength: 1 }, ''), [{ type: 'string_too_short', msg: 'String should have at least 1 character', ctx: { min_length: 1 } }]);
  assert.deepEqual(check({ minLength: 2 }, '👍'), [{ type: 'string_too_short', msg: 'String should have at least 2 characters', ctx: { min_length: 2 } }]);
  assert.deepEqual(check({ maxLength: 1 }, 'ab'), [{ type: 'string_too_long', msg: 'String should have at most 1 character', ctx: { max_length: 1 } }]);
  assert.deepEqual(check({ maxLength: 3 }, '👍👍👍'), []);
});
