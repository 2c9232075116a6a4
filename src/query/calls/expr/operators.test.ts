import { test } from 'node:test';
import assert from 'node:assert/strict';
import { aliasOf, OPERANDS, OPERATIONS, operationsOfShape, pyNameOf, type OperationDef } from './operators.ts';
import { readFileSync } from 'node:fs';
import { callRoute } from '../../../api/call-route.testing.ts';
import { createEngine } from '../../../engine.ts';
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

/**
 * The change-map guard of an `$expr` operation (docs/change-map.md): EXPECTED is a Record over
 * the operations, so a new entry in OPERATIONS fails to compile here until it has a sample;
 * then it must be in docs/semantics.md#calls-expr-grammar and answer /calls/stream_query as
 * its sample says (the compiler evaluates it).
 */
const id = { $getField: 'id' };
const is = (v: string) => ({ $eq: [id, { $literal: v }] });
const EXPECTED: Record<OperationDef['op'], { expr: unknown; ids: string[] }> = {
  and: { expr: { $and: [is('a'), { $not: [is('b')] }] }, ids: ['a'] },
  or: { expr: { $or: [is('a'), is('c')] }, ids: ['a', 'c'] },
  not: { expr: { $not: [is('a')] }, ids: ['b', 'c'] },
  eq: { expr: is('b'), ids: ['b'] },
  gt: { expr: { $gt: [id, { $literal: 'b' }] }, ids: ['c'] },
  lt: { expr: { $lt: [id, { $literal: 'b' }] }, ids: ['a'] },
  gte: { expr: { $gte: [id, { $literal: 'b' }] }, ids: ['b', 'c'] },
  lte: { expr: { $lte: [id, { $literal: 'b' }] }, ids: ['a', 'b'] },
  in: { expr: { $in: [id, [{ $literal: 'a' }, { $literal: 'c' }]] }, ids: ['a', 'c'] },
  contains: { expr: { $contains: { input: { $getField: 'op_name' }, substr: { $literal: 'B' }, case_insensitive: true } }, ids: ['b'] },
  containsToken: { expr: { $containsToken: { input: { $getField: 'op_name' }, substr: { $literal: 'world' } } }, ids: ['c'] },
};

test('every $expr operation is documented and evaluated by the compiler as its sample says', () => {
  const engine = createEngine();
  for (const [callId, opName] of [['a', 'hello'], ['b', 'bye'], ['c', 'hello world']]) {
    const start = { project_id: 'e/p', id: callId, op_name: opName, trace_id: callId, started_at: '2024-01-01T00:00:00Z', attributes: {}, inputs: {} };
    assert.equal(callRoute(engine, '/call/start', { start }).status, 200);
  }
  const grammar = /#### calls-expr-grammar\n([\s\S]*?)\n####/.exec(readFileSync(new URL('../../../../docs/semantics.md', import.meta.url), 'utf8'))![1];
  assert.deepEqual(Object.keys(EXPECTED).sort(), OPERATIONS.map((o) => o.op).sort());
  for (const o of OPERATIONS) {
    assert.ok(grammar.includes(`\`${aliasOf(o.op)}\``), `${aliasOf(o.op)} is not in semantics.md#calls-expr-grammar`);
    const r = callRoute(engine, '/calls/stream_query', { project_id: 'e/p', query: { $expr: EXPECTED[o.op].expr } });
    assert.equal(r.status, 200, `${o.op}: ${JSON.stringify(r)}`);
    assert.deepEqual((r as { lines: Array<{ id: string }> }).lines.map((c) => c.id), EXPECTED[o.op].ids, o.op);
  }
});
