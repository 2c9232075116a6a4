import { test } from 'node:test';
import assert from 'node:assert/strict';
import { aliasOf, OPERANDS, OPERATIONS, operationsOfShape, pyNameOf } from './operators.ts';
import { parseQuery } from './parse.ts';
import { printExpr } from './print.ts';

test('semantics.md#calls-expr-grammar: the eleven operations and three operands, in pydantic union order', () => {
  assert.deepEqual(OPERANDS.map((o) => aliasOf(o.op)), ['$literal', '$getField', '$convert']);
  assert.deepEqual(
    OPERATIONS.map((o) => [aliasOf(o.op), o.cls, pyNameOf(o.op)]),
    [
      ['$and', 'AndOperation', 'and_'],
      ['$or', 'OrOperation', 'or_'],
      ['$not', 'NotOperation', 'not_'],
      ['$eq', 'EqOperation', 'eq_'],
      ['$gt', 'GtOperation', 'gt_'],
      ['$lt', 'LtOperation', 'lt_'],
      ['$gte', 'GteOperation', 'gte_'],
      ['$lte', 'LteOperation', 'lte_'],
      ['$in', 'InOperation', 'in_'],
      ['$contains', 'ContainsOperation', 'contains_'],
      ['$containsToken', 'ContainsTokenOperation', 'contains_token_'],
    ],
  );
  assert.deepEqual(operationsOfShape('binary').map((o) => o.op), ['eq', 'gt', 'lt', 'gte', 'lte']);
  assert.deepEqual(operationsOfShape('substring').map((o) => o.op), ['contains', 'containsToken']);
});

test('every operation parses under its alias and its Python name alike, and prints under its alias', () => {
  const x = { $getField: 'x' }, one = { $literal: 1 };
  const argument = { list: [x], unary: [x], binary: [x, one], in: [x, [one]], substring: { input: x, substr: { $literal: 'a' }, case_insensitive: false } };
  for (const o of OPERATIONS) {
    const arg = argument[o.shape];
    const byAlias = parseQuery({ $expr: { [aliasOf(o.op)]: arg } }, ['body', 'query']);
    assert.equal(byAlias.op, o.op);
    assert.deepEqual(parseQuery({ $expr: { [o.name]: arg } }, ['body', 'query']), byAlias, o.name);
    assert.deepEqual(printExpr(byAlias), { [aliasOf(o.op)]: arg });
  }
});

test('a $expr matching no operation lists every operation class in union order (422)', () => {
  try {
    parseQuery({ $expr: {} }, ['body', 'query']);
    assert.fail('parsed');
  } catch (e) {
    const detail = (e as { body(): { detail: Array<{ loc: unknown[] }> } }).body().detail;
    assert.deepEqual(detail.map((d) => d.loc.slice(3)), OPERATIONS.map((o) => [o.cls, aliasOf(o.op)]));
  }
});
