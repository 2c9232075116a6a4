import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { CastTo, Expr, LiteralValue } from './ast.ts';
import { parseQuery } from './parse.ts';
import { printExpr, printQuery } from './print.ts';

const LOC = ['body', 'query'];
const f = (path: string) => ({ $getField: path });
const l = (v: unknown) => ({ $literal: v });

/** Canonical queries: printing their parse gives them back unchanged. */
const CANONICAL: unknown[] = [
  { $eq: [f('op_name'), l('predict')] },
  { $and: [{ $eq: [f('inputs.x'), l(1)] }, { $gt: [f('summary.usage.tokens'), l(2.5)] }] },
  { $or: [{ $lt: [f('a'), l(true)] }, { $lte: [l(null), f('b')] }, { $gte: [f('c'), f('d')] }] },
  { $not: [{ $in: [f('id'), [l('a'), l('b'), f('trace_id')]] }] },
  { $in: [f('id'), []] },
  { $contains: { input: f('display_name'), substr: l('llm'), case_insensitive: true } },
  { $containsToken: { input: f('inputs.text'), substr: l('tok'), case_insensitive: false } },
  { $eq: [{ $convert: { input: f('inputs.n'), to: 'double' } }, { $convert: { input: l('5'), to: 'int' } }] },
  { $eq: [{ $convert: { input: { $convert: { input: f('x'), to: 'string' } }, to: 'exists' } }, l(false)] },
  { $eq: [l([l(1), l('x'), l([])]), l({ a: l({ b: l(null) }), c: l(-0.5) })] },
  { $eq: [l(JSON.parse('{"__proto__":{"$literal":1},"2":{"$literal":2},"1":{"$literal":1}}')), l('')] },
  { $and: [] },
  { $or: [{ $and: [{ $not: [{ $eq: [f('x'), l('\u{1F600}')] }] }] }] },
];

test('printQuery(parseQuery(q)) gives canonical queries back unchanged', () => {
  for (const expr of CANONICAL) {
    const q = JSON.parse(JSON.stringify({ $expr: expr })) as unknown;
    assert.deepEqual(printQuery(parseQuery(q, LOC)), q, JSON.stringify(q));
  }
});

test('print fills defaults and normalises spellings: case_insensitive, field-name keys, extras', () => {
  assert.deepEqual(printQuery(parseQuery({ $expr: { $contains: { input: f('x'), substr: l('a') } } }, LOC)), {
    $expr: { $contains: { input: f('x'), substr: l('a'), case_insensitive: false } },
  });
  assert.deepEqual(printQuery(parseQuery({ expr_: { eq_: [{ get_field_: 'x' }, { literal_: 1 }], $note: 1 } }, LOC)), {
    $expr: { $eq: [f('x'), l(1)] },
  });
  assert.deepEqual(printExpr({ op: 'not', arg: { op: 'getField', path: 'p' } }), { $not: [f('p')] });
});

test('a "__proto__" dict-literal key stays an own key through print', () => {
  const printed = printExpr({ op: 'literal', value: { type: 'dict', entries: [['__proto__', { type: 'int', value: 1 }]] } }) as {
    $literal: Record<string, unknown>;
  };
  assert.deepEqual(Object.keys(printed.$literal), ['__proto__']);
  assert.equal(Object.getPrototypeOf(printed.$literal), Object.prototype);
});

// A deterministic generator of random expressions, for the round-trip property.
function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

function randomExpr(next: () => number, depth: number): Expr {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)];
  const literalValue = (d: number): LiteralValue => {
    const k = pick(d > 0 ? ['string', 'int', 'float', 'bool', 'null', 'list', 'dict'] : ['string', 'int', 'float', 'bool', 'null']);
    switch (k) {
      case 'string':
        return { type: 'string', value: pick(['', 'a', 'é', '\u{1F600}', '5', 'x y']) };
      case 'int':
        return { type: 'int', value: pick([0, 1, -7, 2 ** 40]) };
      case 'float':
        return { type: 'float', value: pick([0.5, -2.25, 1e-7, 3.14]) };
      case 'bool':
        return { type: 'bool', value: next() < 0.5 };
      case 'null':
        return { type: 'null' };
      case 'list':
        return { type: 'list', items: [literalValue(d - 1), literalValue(d - 1)].slice(0, Math.floor(next() * 3)) };
      default:
        return { type: 'dict', entries: [['k1', literalValue(d - 1)], ['k2', literalValue(d - 1)]].slice(0, Math.floor(next() * 3)) as Array<[string, LiteralValue]> };
    }
  };
  const operand = (d: number): Expr => {
    const r = next();
    if (d <= 0 || r < 0.3) return { op: 'literal', value: literalValue(2) };
    if (r < 0.55) return { op: 'getField', path: pick(['id', 'inputs.x', 'output.a.0', 'started_at']) };
    if (r < 0.65) return { op: 'convert', input: operand(d - 1), to: pick<CastTo>(['double', 'string', 'int', 'bool', 'exists']) };
    return operation(d - 1);
  };
  const operation = (d: number): Expr => {
    const k = pick(['and', 'or', 'not', 'eq', 'gt', 'gte', 'lt', 'lte', 'in', 'contains', 'containsToken'] as const);
    const n = Math.floor(next() * 4);
    switch (k) {
      case 'and':
      case 'or':
        return { op: k, args: Array.from({ length: n }, () => operand(d)) };
      case 'not':
        return { op: 'not', arg: operand(d) };
      case 'in':
        return { op: 'in', left: operand(d), options: Array.from({ length: n }, () => operand(d)) };
      case 'contains':
      case 'containsToken':
        return { op: k, input: operand(d), substr: operand(d), caseInsensitive: next() < 0.5 };
      default:
        return { op: k, left: operand(d), right: operand(d) };
    }
  };
  return operation(depth);
}

test('parseQuery(printQuery(e)) deep-equals e for 500 random expressions (through JSON text)', () => {
  const next = rng(42);
  for (let i = 0; i < 500; i++) {
    const e = randomExpr(next, 4);
    const wire = JSON.parse(JSON.stringify(printQuery(e))) as unknown;
    assert.deepEqual(parseQuery(wire, LOC), e, JSON.stringify(wire));
  }
});
