import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RequestSchemaError, type ValidationIssue } from '../../../core/errors.ts';
import { parseLossless } from '../../../core/json/lossless.ts';
import { field, lit, type Expr } from './ast.ts';
import { parseQuery } from './parse.ts';

const LOC = ['body', 'query'];
const f = (path: string) => ({ $getField: path });
const l = (v: unknown) => ({ $literal: v });
const parse = (expr: unknown) => parseQuery({ $expr: expr }, LOC);

/** The 422 issues of an invalid query. */
function issues(query: unknown): ValidationIssue[] {
  try {
    parseQuery(query, LOC);
  } catch (e) {
    assert.ok(e instanceof RequestSchemaError, `expected RequestSchemaError, got ${String(e)}`);
    assert.equal(e.status, 422);
    assert.deepEqual(e.body(), { detail: e.issues });
    return e.issues;
  }
  assert.fail('expected a 422');
}
const brief = (list: ValidationIssue[]) => list.map((i) => [i.type, i.loc.join('.')]);

const OPERATIONS = ['AndOperation', 'OrOperation', 'NotOperation', 'EqOperation', 'GtOperation', 'LtOperation', 'GteOperation', 'LteOperation', 'InOperation', 'ContainsOperation', 'ContainsTokenOperation'];
const ALIASES = ['$and', '$or', '$not', '$eq', '$gt', '$lt', '$gte', '$lte', '$in', '$contains', '$containsToken'];
const OPERANDS = ['LiteralOperation', 'GetFieldOperator', 'ConvertOperation', ...OPERATIONS];

test('semantics.md#calls-expr-grammar: every operator parses to its AST node', () => {
  const x = f('inputs.x');
  const cases: Array<[unknown, Expr]> = [
    [{ $and: [{ $eq: [x, l(1)] }, { $not: [{ $gt: [x, l(2.5)] }] }] }, { op: 'and', args: [{ op: 'eq', left: field('inputs.x'), right: lit.int(1) }, { op: 'not', arg: { op: 'gt', left: field('inputs.x'), right: lit.float(2.5) } }] }],
    [{ $or: [{ $lt: [x, l('a')] }, { $lte: [l(true), x] }, { $gte: [x, l(null)] }] }, { op: 'or', args: [{ op: 'lt', left: field('inputs.x'), right: lit.string('a') }, { op: 'lte', left: lit.bool(true), right: field('inputs.x') }, { op: 'gte', left: field('inputs.x'), right: lit.null() }] }],
    [{ $in: [x, [l('a'), f('op_name')]] }, { op: 'in', left: field('inputs.x'), options: [lit.string('a'), field('op_name')] }],
    [{ $in: [x, []] }, { op: 'in', left: field('inputs.x'), options: [] }],
    [{ $contains: { input: x, substr: l('ab'), case_insensitive: true } }, { op: 'contains', input: field('inputs.x'), substr: lit.string('ab'), caseInsensitive: true }],
    [{ $contains: { input: x, substr: l('ab') } }, { op: 'contains', input: field('inputs.x'), substr: lit.string('ab'), caseInsensitive: false }],
    [{ $containsToken: { input: x, substr: l('ab'), case_insensitive: null } }, { op: 'containsToken', input: field('inputs.x'), substr: lit.string('ab'), caseInsensitive: false }],
    [{ $eq: [{ $convert: { input: x, to: 'int' } }, l(3)] }, { op: 'eq', left: { op: 'convert', input: field('inputs.x'), to: 'int' }, right: lit.int(3) }],
    [{ $and: [] }, { op: 'and', args: [] }],
  ];
  for (const [json, ast] of cases) assert.deepEqual(parse(json), ast, JSON.stringify(json));
});

test('semantics.md#calls-expr-literals: literals keep int/float/bool/null/string and nested dict/list literals', () => {
  const lhs = (v: unknown) => (parse({ $eq: [l(v), l(0)] }) as { left: unknown }).left;
  assert.deepEqual(lhs(5), { op: 'literal', value: { type: 'int', value: 5 } });
  assert.deepEqual(lhs(-5.25), { op: 'literal', value: { type: 'float', value: -5.25 } });
  assert.deepEqual(lhs(false), { op: 'literal', value: { type: 'bool', value: false } });
  assert.deepEqual(lhs(null), { op: 'literal', value: { type: 'null' } });
  assert.deepEqual(lhs('5'), { op: 'literal', value: { type: 'string', value: '5' } });
  assert.deepEqual(lhs([l(1), l('x')]), { op: 'literal', value: { type: 'list', items: [{ type: 'int', value: 1 }, { type: 'string', value: 'x' }] } });
  assert.deepEqual(lhs({ a: l({ b: l(null) }) }), {
    op: 'literal',
    value: { type: 'dict', entries: [['a', { type: 'dict', entries: [['b', { type: 'null' }]] }]] },
  });
});

test('semantics.md#calls-expr-literals: lossless number leaves tell 5.0 (a Python float) from 5 (an int)', () => {
  const e = parseQuery({ $expr: { $eq: [{ $literal: parseLossless('5.0') }, { $literal: parseLossless('5') }] } }, LOC);
  assert.deepEqual(e, { op: 'eq', left: lit.float(5), right: lit.int(5) });
});

test('pydantic populate_by_name: field names (expr_, and_, literal_, get_field_) are accepted too', () => {
  const e = parseQuery({ expr_: { and_: [{ eq_: [{ get_field_: 'id' }, { literal_: 'a' }] }] } }, LOC);
  assert.deepEqual(e, { op: 'and', args: [{ op: 'eq', left: field('id'), right: lit.string('a') }] });
  assert.deepEqual(parse({ contains_token_: { input: f('id'), substr: l('a') } }), { op: 'containsToken', input: field('id'), substr: lit.string('a'), caseInsensitive: false });
});

test('operation models ignore unknown keys next to a known operator (plain BaseModel)', () => {
  assert.deepEqual(parse({ $eq: [f('id'), l('a')], $comment: 'x' }), { op: 'eq', left: field('id'), right: lit.string('a') });
  assert.deepEqual(parse({ $contains: { input: f('id'), substr: l('a'), extra: 1 } }), { op: 'contains', input: field('id'), substr: lit.string('a'), caseInsensitive: false });
});

test('smart union: with several operator keys, the first model in union order that validates wins', () => {
  assert.deepEqual(parse({ $gt: [f('a'), l(1)], $eq: [f('b'), l(2)] }), { op: 'eq', left: field('b'), right: lit.int(2) });
  // An invalid earlier member does not hide a valid later one.
  assert.deepEqual(parse({ $eq: 'bad', $gt: [f('a'), l(1)] }), { op: 'gt', left: field('a'), right: lit.int(1) });
  const operand = (parse({ $not: [{ $getField: 'x', $literal: 1 }] }) as { arg: Expr }).arg;
  assert.deepEqual(operand, lit.int(1), 'LiteralOperation comes before GetFieldOperator');
});

test('semantics.md#errors-422-field: an unknown operator key is a 422 listing every Operation model as missing', () => {
  const list = issues({ $expr: { $ne: [f('id'), l('a')] } });
  assert.deepEqual(brief(list), OPERATIONS.map((cls, i) => ['missing', `body.query.$expr.${cls}.${ALIASES[i]}`]));
  assert.equal(list[0].msg, 'Field required');
  assert.deepEqual(list[0].input, { $ne: [f('id'), l('a')] });
});

test('semantics.md#calls-expr-grammar: a bare operand at $expr is rejected (only Operations are allowed there)', () => {
  assert.deepEqual(brief(issues({ $expr: l(true) })), OPERATIONS.map((cls, i) => ['missing', `body.query.$expr.${cls}.${ALIASES[i]}`]));
  assert.deepEqual(brief(issues({ $expr: f('id') })).length, 11);
});

test('Query forbids extra keys and requires $expr; a non-object is model_type', () => {
  assert.deepEqual(issues({ $expr: { $eq: [f('id'), l('a')] }, limit: 1 }), [
    { type: 'extra_forbidden', loc: ['body', 'query', 'limit'], msg: 'Extra inputs are not permitted', input: 1 },
  ]);
  assert.deepEqual(issues({}), [{ type: 'missing', loc: ['body', 'query', '$expr'], msg: 'Field required', input: {} }]);
  assert.deepEqual(brief(issues({ $and: [] })), [
    ['missing', 'body.query.$expr'],
    ['extra_forbidden', 'body.query.$and'],
  ]);
  assert.deepEqual(issues('x'), [
    { type: 'model_type', loc: ['body', 'query'], msg: 'Input should be a valid dictionary or instance of Query', input: 'x', ctx: { class_name: 'Query' } },
  ]);
  assert.deepEqual(brief(issues({ $expr: { $eq: [f('id'), l('a')] }, expr_: {} })), [['extra_forbidden', 'body.query.expr_']]);
});

test('a non-object operand fails every Operand model with model_type', () => {
  const list = issues({ $expr: { $and: [5] } });
  const and = list.filter((i) => i.loc[3] === 'AndOperation');
  assert.deepEqual(brief(and), OPERANDS.map((cls) => ['model_type', `body.query.$expr.AndOperation.$and.0.${cls}`]));
  assert.deepEqual(and[0].ctx, { class_name: 'LiteralOperation' });
  assert.equal(and[0].msg, 'Input should be a valid dictionary or instance of LiteralOperation');
  assert.equal(list.length, OPERANDS.length + OPERATIONS.length - 1);
});

test('tuples: $not takes exactly one operand, comparisons two, $in an operand and a list', () => {
  assert.deepEqual(issues({ $expr: { $not: [] } }).filter((i) => i.loc[3] === 'NotOperation'), [
    { type: 'missing', loc: ['body', 'query', '$expr', 'NotOperation', '$not', 0], msg: 'Field required', input: [] },
  ]);
  const tooLong = issues({ $expr: { $not: [l(true), l(false)] } }).filter((i) => i.loc[3] === 'NotOperation');
  assert.deepEqual(tooLong, [
    {
      type: 'too_long', loc: ['body', 'query', '$expr', 'NotOperation', '$not'], msg: 'Tuple should have at most 1 item after validation, not 2',
      input: [l(true), l(false)], ctx: { field_type: 'Tuple', max_length: 1, actual_length: 2 },
    },
  ]);
  assert.deepEqual(brief(issues({ $expr: { $eq: [l(1)] } }).filter((i) => i.loc[3] === 'EqOperation')), [['missing', 'body.query.$expr.EqOperation.$eq.1']]);
  assert.equal(issues({ $expr: { $eq: [l(1), l(2), l(3)] } }).find((i) => i.loc[3] === 'EqOperation')!.msg, 'Tuple should have at most 2 items after validation, not 3');
  assert.deepEqual(brief(issues({ $expr: { $eq: 'x' } }).filter((i) => i.loc[3] === 'EqOperation')), [['tuple_type', 'body.query.$expr.EqOperation.$eq']]);
  assert.deepEqual(brief(issues({ $expr: { $in: [f('id'), l('a')] } }).filter((i) => i.loc[3] === 'InOperation')), [['list_type', 'body.query.$expr.InOperation.$in.1']]);
  assert.deepEqual(brief(issues({ $expr: { $and: {} } }).filter((i) => i.loc[3] === 'AndOperation')), [['list_type', 'body.query.$expr.AndOperation.$and']]);
});

test('leaf models: $getField must be a string; $convert "to" is a literal; $contains needs input and substr', () => {
  const inner = (q: unknown, cls: string) => issues({ $expr: { $eq: [q, l(1)] } }).filter((i) => i.loc[6] === cls);
  assert.deepEqual(inner({ $getField: 5 }, 'GetFieldOperator'), [
    { type: 'string_type', loc: ['body', 'query', '$expr', 'EqOperation', '$eq', 0, 'GetFieldOperator', '$getField'], msg: 'Input should be a valid string', input: 5 },
  ]);
  assert.deepEqual(inner({ $convert: { input: f('x'), to: 'float' } }, 'ConvertOperation'), [
    {
      type: 'literal_error', loc: ['body', 'query', '$expr', 'EqOperation', '$eq', 0, 'ConvertOperation', '$convert', 'to'],
      msg: "Input should be 'double', 'string', 'int', 'bool' or 'exists'", input: 'float', ctx: { expected: "'double', 'string', 'int', 'bool' or 'exists'" },
    },
  ]);
  assert.deepEqual(brief(inner({ $convert: 'x' }, 'ConvertOperation')), [['model_type', 'body.query.$expr.EqOperation.$eq.0.ConvertOperation.$convert']]);
  assert.deepEqual(brief(issues({ $expr: { $contains: { input: f('x') } } }).filter((i) => i.loc[3] === 'ContainsOperation')), [
    ['missing', 'body.query.$expr.ContainsOperation.$contains.substr'],
  ]);
  assert.deepEqual(brief(issues({ $expr: { $contains: { input: f('x'), substr: l('a'), case_insensitive: 'maybe' } } }).filter((i) => i.loc[3] === 'ContainsOperation')), [
    ['bool_parsing', 'body.query.$expr.ContainsOperation.$contains.case_insensitive'],
  ]);
  // pydantic's lax bool takes "yes".
  assert.equal((parse({ $contains: { input: f('x'), substr: l('a'), case_insensitive: 'yes' } }) as { caseInsensitive: boolean }).caseInsensitive, true);
});

test('semantics.md#calls-expr-literals: a dict literal whose values are not LiteralOperations fails every literal_ member', () => {
  const list = issues({ $expr: { $eq: [l({ a: 1 }), l(1)] } }).filter((i) => i.loc[6] === 'LiteralOperation');
  const base = 'body.query.$expr.EqOperation.$eq.0.LiteralOperation.$literal';
  assert.deepEqual(brief(list), [
    ['string_type', `${base}.str`],
    ['int_type', `${base}.int`],
    ['float_type', `${base}.float`],
    ['bool_type', `${base}.bool`],
    ['model_type', `${base}.dict[str,LiteralOperation].a`],
    ['list_type', `${base}.list[LiteralOperation]`],
  ]);
  const listLit = issues({ $expr: { $eq: [l([{}]), l(1)] } }).filter((i) => i.loc[6] === 'LiteralOperation');
  assert.deepEqual(brief(listLit).slice(4), [
    ['dict_type', `${base}.dict[str,LiteralOperation]`],
    ['missing', `${base}.list[LiteralOperation].0.$literal`],
  ]);
});

test('errors deep in a valid-looking tree are reported once per member (linear, not exponential)', () => {
  let q: unknown = { $eq: [f('x'), { $bogus: 1 }] };
  for (let i = 0; i < 30; i++) q = { $not: [q] };
  const list = issues({ $expr: q });
  // $expr: 10 other Operations missing; each of the 30 operand levels (29 $not, then $eq): 13
  // other Operand models missing; the bad operand: all 14 Operand models missing.
  assert.equal(list.length, 10 + 30 * 13 + 14);
  assert.ok(list.some((i) => i.loc.at(-1) === '$literal' && i.type === 'missing'));
});

test('the error location starts with the caller-given loc', () => {
  try {
    parseQuery({ $expr: { $gt: [] } }, ['x', 2]);
    assert.fail('expected a 422');
  } catch (e) {
    assert.ok(e instanceof RequestSchemaError);
    for (const i of e.issues) assert.deepEqual(i.loc.slice(0, 3), ['x', 2, '$expr']);
  }
});
