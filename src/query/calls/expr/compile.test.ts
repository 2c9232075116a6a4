import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseIsoMicros } from '../../../core/datetime.ts';
import { fieldNotAllowed, TqError, type ErrorPath } from '../../../core/errors.ts';
import { jsonValueString, toFloat64OrNull, toInt64OrNull } from '../../../core/ch/values.ts';
import { MISSING, readPath, splitFieldPath } from '../json-path.ts';
import { compileExpr, datetimeLiteralMicros, indexableEqualities } from './compile.ts';
import type { FieldAccessor, FieldResolver } from './fields.ts';
import { parseQuery } from './parse.ts';
import { INDEXED_COLUMNS } from '../filter.ts';

interface Row {
  id: string;
  trace_id?: string;
  parent_id?: string | null;
  display_name?: string | null;
  started_at: number;
  ended_at?: number | null;
  run_step?: number | null;
  input_refs?: string[];
  inputs?: Record<string, unknown>;
  feedback?: Array<{ type: string; payload: unknown }>;
}

/** A FieldResolver over an array of rows, shaped like CallFieldResolver. */
class FakeResolver implements FieldResolver {
  readonly calls: Array<{ path: string; loc: ErrorPath | undefined }> = [];
  constructor(private readonly rows: Row[]) {}

  resolve(path: string, loc?: ErrorPath): FieldAccessor {
    this.calls.push({ path, loc });
    const rows = this.rows;
    switch (path) {
      case 'id':
      case 'trace_id':
      case 'parent_id':
      case 'display_name':
        return { kind: 'string', get: (r) => rows[r][path] ?? null };
      case 'started_at':
      case 'ended_at':
        return { kind: 'datetime', get: (r) => rows[r][path] ?? null };
      case 'svc_run_step':
        return { kind: 'number', get: (r) => rows[r].run_step ?? null };
      case 'summary.weave.latency_ms':
        return { kind: 'number', get: (r) => (rows[r].ended_at == null ? null : Math.floor(rows[r].ended_at! / 1000) - Math.floor(rows[r].started_at / 1000)) };
      case 'input_refs':
        return { kind: 'array', get: (r) => rows[r].input_refs ?? [] };
    }
    const parts = splitFieldPath(path);
    if (parts[0] === 'inputs') return json((r) => (parts.length === 1 ? rows[r].inputs ?? {} : readPath(rows[r].inputs ?? {}, parts.slice(1))));
    const fb = /^feedback\.\[([^\]]*)\]\.payload\.(.+)$/.exec(path);
    if (fb) {
      const [, type, rest] = fb;
      return json((r) => {
        const row = (rows[r].feedback ?? []).find((x) => type === '*' || x.type === type);
        return row ? readPath(row.payload, splitFieldPath(rest)) : MISSING;
      });
    }
    throw fieldNotAllowed(path, loc);
  }
}

function json(read: (row: number) => unknown): FieldAccessor {
  const str = (r: number) => {
    const v = read(r);
    return v === MISSING ? '' : jsonValueString(v);
  };
  return {
    kind: 'json',
    str,
    float: (r) => toFloat64OrNull(str(r)),
    int: (r) => toInt64OrNull(str(r)),
    exists: (r) => {
      const v = read(r);
      return v !== MISSING && v !== null;
    },
  };
}

const us = (iso: string) => parseIsoMicros(iso);
const T0 = us('2024-01-01T00:00:00Z');

/** The default rows. */
const ROWS: Row[] = [
  { id: 'a', trace_id: 't1', parent_id: null, display_name: 'Alpha', started_at: T0 + 1_000_000, ended_at: T0 + 2_000_000, run_step: 5, input_refs: ['r1'], inputs: { x: 5, s: 'hello world', obj: { a: 1 }, flag: true, n: null, f: 2.5 } },
  { id: 'b', trace_id: 't1', parent_id: 'a', display_name: null, started_at: T0 + 2_000_000, ended_at: null, run_step: null, inputs: { x: '10', s: 'Hello', flag: 'true', f: '2.5' }, feedback: [{ type: 'note', payload: { score: 1 } }] },
  { id: 'c', trace_id: 't2', parent_id: null, display_name: '\u{1F600}', started_at: T0 + 3_000_000, ended_at: T0 + 3_500_000, run_step: 7, inputs: { x: 'abc', flag: 1, f: 7 } },
  { id: 'd', trace_id: 't3', parent_id: 'c', display_name: '\uFF5E', started_at: T0 + 4_000_000, ended_at: T0 + 9_000_000, run_step: 0, inputs: { x: '5.5', flag: 2, s: '' } },
];

const f = (path: string) => ({ $getField: path });
const l = (v: unknown) => ({ $literal: v });

function compile(expr: unknown, rows = ROWS) {
  const resolver = new FakeResolver(rows);
  const pred = compileExpr(parseQuery({ $expr: expr }, ['body', 'query']), resolver);
  return { pred, resolver, rows };
}
/** Ids of rows whose value is strictly true. */
function ids(expr: unknown, rows = ROWS): string[] {
  const { pred } = compile(expr, rows);
  return rows.filter((_, i) => pred(i) === true).map((r) => r.id);
}
/** The three-valued result per row. */
function values(expr: unknown, rows = ROWS): Array<boolean | null> {
  const { pred } = compile(expr, rows);
  return rows.map((_, i) => pred(i));
}
function error(expr: unknown): { status: number; body: Record<string, unknown>; path: ErrorPath | undefined } {
  try {
    compile(expr);
  } catch (e) {
    assert.ok(e instanceof TqError, String(e));
    return { status: e.status, body: e.body(), path: e.path };
  }
  assert.fail('expected an error');
}

test('semantics.md#calls-json-read: dynamic fields read as strings, never NULL; $eq null on them never matches', () => {
  assert.deepEqual(ids({ $eq: [f('inputs.n'), l(null)] }), []);
  assert.deepEqual(ids({ $eq: [f('inputs.missing'), l(null)] }), []);
  assert.deepEqual(ids({ $eq: [f('inputs.n'), l('')] }), ['a', 'b', 'c', 'd'], 'null and missing read as ""');
  assert.deepEqual(ids({ $eq: [f('inputs.s'), l('')] }), ['c', 'd']);
  assert.deepEqual(ids({ $eq: [f('inputs.obj'), l('{"a":1}')] }), ['a'], 'objects read as minified JSON');
  assert.deepEqual(ids({ $eq: [f('inputs.flag'), l('true')] }), ['a', 'b'], 'booleans read as "true"');
  assert.deepEqual(ids({ $eq: [f('inputs.x'), l('5')] }), ['a'], 'numbers read as their text');
  assert.deepEqual(ids({ $eq: [f('inputs'), l('{"x":"abc","flag":1,"f":7}')] }), ['c'], 'a bare root reads the whole document');
});

test('semantics.md#calls-json-read: $eq with a null literal is IS NULL on plain nullable columns', () => {
  assert.deepEqual(ids({ $eq: [f('parent_id'), l(null)] }), ['a', 'c']);
  assert.deepEqual(ids({ $eq: [f('ended_at'), l(null)] }), ['b']);
  assert.deepEqual(ids({ $eq: [f('display_name'), l(null)] }), ['b']);
  assert.deepEqual(ids({ $not: [{ $eq: [f('parent_id'), l(null)] }] }), ['b', 'd']);
  // Only a null on the right is IS NULL; on the left it is a NULL comparison.
  assert.deepEqual(values({ $eq: [l(null), f('parent_id')] }), [null, null, null, null]);
  assert.deepEqual(values({ $eq: [l(null), l(null)] }), [true, true, true, true]);
});

test('semantics.md#calls-expr-compare, semantics.md#calls-expr-inferred-cast: an int literal casts the JSON field with toInt64OrNull; non-integers drop out', () => {
  assert.deepEqual(ids({ $gt: [f('inputs.x'), l(6)] }), ['b']);
  assert.deepEqual(ids({ $lt: [f('inputs.x'), l(6)] }), ['a'], '"5.5" cast to int is NULL');
  assert.deepEqual(values({ $eq: [f('inputs.x'), l(5)] }), [true, false, null, null]);
  assert.deepEqual(ids({ $gt: [l(6), f('inputs.x')] }), ['a'], 'the literal may be on the left');
  assert.deepEqual(ids({ $gte: [f('inputs.f'), l(7)] }), ['c']);
});

test('semantics.md#calls-expr-compare: a float literal casts with toFloat64OrNull; a bool literal with the bool cast', () => {
  assert.deepEqual(ids({ $lt: [f('inputs.x'), l(6.5)] }), ['a', 'd']);
  assert.deepEqual(ids({ $eq: [f('inputs.f'), l(2.5)] }), ['a', 'b']);
  assert.deepEqual(values({ $eq: [f('inputs.flag'), l(true)] }), [true, true, true, false], 'true, "true", 1 → 1; 2 → 2');
  assert.deepEqual(values({ $eq: [f('inputs.s'), l(false)] }), [null, null, null, null], 'text that is not a bool is NULL');
});

test('semantics.md#calls-expr-compare: string and null literals leave the field a string; two fields compare as strings', () => {
  assert.deepEqual(ids({ $eq: [f('inputs.x'), l('10')] }), ['b']);
  assert.deepEqual(ids({ $gt: [f('inputs.x'), l('6')] }), ['c'], '"10" < "6" as text; "abc" > "6"');
  assert.deepEqual(ids({ $eq: [f('inputs.x'), f('inputs.f')] }), []);
  assert.deepEqual(ids({ $lt: [f('inputs.f'), f('inputs.x')] }), ['a', 'c', 'd'], 'as text: "2.5" < "5", not < "10"; "" < "5.5"');
});

test('semantics.md#calls-expr-compare: feedback.[*] takes no inferred cast; a typed feedback field does', () => {
  assert.deepEqual(ids({ $eq: [f('feedback.[note].payload.score'), l(1)] }), ['b']);
  assert.deepEqual(ids({ $eq: [f('feedback.[*].payload.score'), l(1)] }), []);
  assert.deepEqual(ids({ $eq: [f('feedback.[*].payload.score'), l('1')] }), ['b']);
});

test('semantics.md#calls-expr-compare: a number against a string is NULL, so neither the test nor its $not passes', () => {
  assert.deepEqual(values({ $eq: [f('svc_run_step'), l('5')] }), [null, null, null, null]);
  assert.deepEqual(ids({ $not: [{ $eq: [f('svc_run_step'), l('5')] }] }), []);
  assert.deepEqual(values({ $eq: [f('display_name'), l(1)] }), [null, null, null, null]);
  assert.deepEqual(ids({ $eq: [f('svc_run_step'), l(5)] }), ['a'], 'plain number columns compare natively');
  assert.deepEqual(ids({ $gt: [f('svc_run_step'), l(4.5)] }), ['a', 'c']);
});

test('semantics.md#calls-expr-compare: other mismatched kinds are never equal and unordered (datetime vs text, array vs text)', () => {
  assert.deepEqual(values({ $eq: [f('started_at'), l('not a date')] }), [false, false, false, false]);
  assert.deepEqual(ids({ $not: [{ $eq: [f('started_at'), l('not a date')] }] }), ['a', 'b', 'c', 'd']);
  assert.deepEqual(values({ $gt: [f('started_at'), l('not a date')] }), [null, null, null, null]);
  assert.deepEqual(values({ $eq: [f('input_refs'), l('r1')] }), [false, false, false, false]);
  assert.deepEqual(values({ $eq: [f('ended_at'), l('x')] }), [false, null, false, false], 'NULL still propagates');
});

test('semantics.md#calls-expr-compare: booleans compare as 0/1', () => {
  assert.deepEqual(values({ $eq: [l(true), l(1)] }), [true, true, true, true]);
  assert.deepEqual(ids({ $gt: [{ $eq: [f('id'), l('a')] }, l(0)] }), ['a']);
  assert.deepEqual(ids({ $eq: [{ $eq: [f('id'), l('a')] }, { $eq: [f('trace_id'), l('t1')] }] }), ['a', 'c', 'd']);
});

test('semantics.md#calls-expr-compare, semantics.md#order-code-points: strings compare by code point, not UTF-16 unit', () => {
  assert.deepEqual(ids({ $gt: [f('display_name'), l('\uFF5E')] }), ['c']);
  assert.deepEqual(ids({ $lt: [f('display_name'), l('\u{1F600}')] }), ['a', 'd']);
  assert.deepEqual(ids({ $lte: [f('display_name'), f('display_name')] }), ['a', 'c', 'd']);
});

test('semantics.md#calls-expr-compare, semantics.md#calls-expr-datetimes: datetime columns compare with unix seconds or ISO text, by time', () => {
  const secs = (T0 + 2_000_000) / 1e6;
  assert.deepEqual(ids({ $gt: [f('started_at'), l(secs)] }), ['c', 'd']);
  assert.deepEqual(ids({ $gte: [f('started_at'), l(secs)] }), ['b', 'c', 'd']);
  assert.deepEqual(ids({ $gt: [f('started_at'), l(secs + 0.5)] }), ['c', 'd']);
  assert.deepEqual(ids({ $eq: [f('started_at'), l('2024-01-01T00:00:02Z')] }), ['b']);
  assert.deepEqual(ids({ $eq: [f('started_at'), l('2024-01-01T01:00:02+01:00')] }), ['b']);
  assert.deepEqual(ids({ $eq: [f('started_at'), l('2024-01-01 00:00:02')] }), ['b'], 'naive is UTC');
  assert.deepEqual(ids({ $gt: [f('started_at'), l(' 2024-01-01 ')] }), ['a', 'b', 'c', 'd'], 'a date is midnight');
  assert.deepEqual(ids({ $lt: [l('2024-01-01T00:00:03Z'), f('started_at')] }), ['d'], 'the literal may be on the left');
  assert.deepEqual(ids({ $gt: [f('ended_at'), f('started_at')] }), ['a', 'c', 'd'], 'two datetime columns');
  assert.deepEqual(ids({ $gt: [f('ended_at'), l('2024-01-01T00:00:03Z')] }), ['c', 'd'], 'NULL ended_at drops out');
  assert.deepEqual(ids({ $eq: [f('started_at'), l(true)] }), [], 'a bool literal is not a time (and is a number: NULL)');
});

test('semantics.md#calls-expr-compare: datetime literal conversion (fromtimestamp rounding, range, parse failures)', () => {
  assert.equal(datetimeLiteralMicros({ type: 'int', value: 0 }), 0);
  assert.equal(datetimeLiteralMicros({ type: 'float', value: 1.5 }), 1_500_000);
  assert.equal(datetimeLiteralMicros({ type: 'float', value: -1.25 }), -1_250_000);
  assert.equal(datetimeLiteralMicros({ type: 'float', value: 1770052073.869 }), 1770052073_869_000);
  assert.equal(datetimeLiteralMicros({ type: 'float', value: 1e20 }), null, 'beyond year 9999');
  assert.equal(datetimeLiteralMicros({ type: 'bool', value: true }), null);
  assert.equal(datetimeLiteralMicros({ type: 'string', value: '' }), null);
  assert.equal(datetimeLiteralMicros({ type: 'string', value: '2024-01-01T00:00:00z' }), T0);
  assert.equal(datetimeLiteralMicros({ type: 'string', value: 'yesterday' }), null);
  assert.equal(datetimeLiteralMicros({ type: 'null' }), null);
});

test('semantics.md#calls-expr-logic: NULL is neither true nor false; $not of NULL is NULL', () => {
  assert.deepEqual(values({ $gt: [f('inputs.x'), l(6)] }), [false, true, null, null]);
  assert.deepEqual(values({ $not: [{ $gt: [f('inputs.x'), l(6)] }] }), [true, false, null, null]);
  assert.deepEqual(ids({ $not: [{ $gt: [f('inputs.x'), l(6)] }] }), ['a']);
});

test('semantics.md#calls-expr-logic: $and/$or use Kleene logic (ClickHouse): NULL AND false = false, NULL OR true = true', () => {
  const isNull = { $gt: [f('inputs.x'), l(6)] }; // c, d: NULL
  const isTrue = { $eq: [l(1), l(1)] };
  const isFalse = { $eq: [l(1), l(2)] };
  assert.deepEqual(values({ $and: [isNull, isFalse] }), [false, false, false, false]);
  assert.deepEqual(values({ $and: [isNull, isTrue] }), [false, true, null, null]);
  assert.deepEqual(values({ $or: [isNull, isTrue] }), [true, true, true, true]);
  assert.deepEqual(values({ $or: [isNull, isFalse] }), [false, true, null, null]);
  // In SQL NOT(NULL AND true) is NULL (the in-memory mirror would say true): the row stays out.
  assert.deepEqual(ids({ $not: [{ $and: [isNull, isTrue] }] }), ['a']);
  assert.deepEqual(ids({ $not: [{ $or: [isNull, isFalse] }] }), ['a']);
});

test('semantics.md#calls-expr-logic: a one-operand $and/$or is its operand; operands used as conditions by truthiness', () => {
  assert.deepEqual(ids({ $and: [f('inputs.s')] }), ['a', 'b'], 'non-empty strings are true');
  assert.deepEqual(ids({ $or: [f('svc_run_step')] }), ['a', 'c'], '0 and NULL are not true');
  assert.deepEqual(ids({ $eq: [{ $and: [l(5)] }, l(5)] }), ['a', 'b', 'c', 'd'], 'the operand keeps its value');
  assert.deepEqual(ids({ $and: [f('input_refs'), f('started_at')] }), ['a']);
  assert.deepEqual(ids({ $and: [{ $eq: [f('trace_id'), l('t1')] }, { $eq: [f('parent_id'), l(null)] }] }), ['a']);
});

test('semantics.md#errors-422-field, semantics.md#calls-expr-logic: empty $and / $or are 400s with Weave\'s messages, wherever they are', () => {
  assert.deepEqual(error({ $and: [] }), { status: 400, body: { reason: 'Empty AND operation' }, path: ['body', 'query', '$expr', '$and'] });
  assert.deepEqual(error({ $or: [] }).body, { reason: 'Empty OR operation' });
  assert.deepEqual(error({ $not: [{ $or: [{ $and: [] }, l(true)] }] }).path, ['body', 'query', '$expr', '$not', 0, '$or', 0, '$and']);
});

test('semantics.md#errors-422-field, semantics.md#calls-expr-fields: an unknown field is a 422 raised while compiling, before any row is read', () => {
  assert.deepEqual(error({ $eq: [f('nope'), l(1)] }), { status: 422, body: { reason: 'Field nope is not allowed' }, path: ['body', 'query', '$expr', '$eq', 0, '$getField'] });
  const resolver = new FakeResolver([]);
  assert.throws(() => compileExpr(parseQuery({ $expr: { $in: [f('id'), [l('a'), f('bad')]] } }, []), resolver), { status: 422 });
  // Errors come in the order the builder meets them: left to right, depth first.
  assert.equal(error({ $and: [{ $eq: [f('nope'), l(1)] }, { $or: [] }] }).status, 422);
  assert.equal(error({ $and: [{ $or: [] }, { $eq: [f('nope'), l(1)] }] }).status, 400);
});

test('semantics.md#calls-expr-fields: every $getField is resolved once, at compile time; evaluation never resolves', () => {
  const { pred, resolver } = compile({ $and: [{ $gt: [f('inputs.x'), l(1)] }, { $in: [f('id'), [l('a'), l('b')]] }, { $contains: { input: f('display_name'), substr: f('trace_id') } }] });
  assert.deepEqual(resolver.calls.map((c) => c.path), ['inputs.x', 'id', 'display_name', 'trace_id']);
  assert.deepEqual(resolver.calls[1].loc, ['body', 'query', '$expr', '$and', 1, '$in', 0, '$getField']);
  for (let i = 0; i < ROWS.length; i++) pred(i);
  assert.equal(resolver.calls.length, 4);
});

test('semantics.md#calls-expr-literals: dict and list literals are a 400 "Unknown value type" naming the literal as Python prints it', () => {
  assert.deepEqual(error({ $eq: [f('inputs.x'), l({ a: l(1), b: l('x') })] }), {
    status: 400,
    body: { reason: "Unknown value type: {'a': LiteralOperation(literal_=1), 'b': LiteralOperation(literal_='x')}" },
    path: ['body', 'query', '$expr', '$eq', 1, '$literal'],
  });
  assert.deepEqual(error({ $in: [f('id'), [l([l(true), l(null), l(1.5)])]] }).body, {
    reason: 'Unknown value type: [LiteralOperation(literal_=True), LiteralOperation(literal_=None), LiteralOperation(literal_=1.5)]',
  });
  assert.deepEqual(error({ $contains: { input: f('id'), substr: l([]) } }).body, { reason: 'Unknown value type: []' });
});

test('semantics.md#calls-expr-in: $in is NULL for a NULL left side, false for no match or an empty list', () => {
  assert.deepEqual(values({ $in: [f('parent_id'), [l('a'), l('zz')]] }), [null, true, null, false]);
  assert.deepEqual(values({ $in: [f('id'), []] }), [false, false, false, false]);
  assert.deepEqual(values({ $in: [f('id'), [l(null), l('a')]] }), [true, false, false, false], 'a NULL option never matches');
  assert.deepEqual(ids({ $in: [f('id'), [f('trace_id'), l('b')]] }), ['b'], 'options may be fields');
  assert.deepEqual(ids({ $in: [f('id'), [{ $convert: { input: l('c'), to: 'string' } }]] }), ['c']);
});

test('semantics.md#calls-expr-in: $in shares one inferred cast when every option is a literal of one kind; int+float → double', () => {
  assert.deepEqual(ids({ $in: [f('inputs.x'), [l(5), l(10)]] }), ['a', 'b']);
  assert.deepEqual(ids({ $in: [f('inputs.x'), [l(5.5), l(10)]] }), ['b', 'd'], 'double cast: "5.5" reads 5.5');
  assert.deepEqual(ids({ $in: [f('inputs.x'), [l(5), l('10')]] }), ['b'], 'mixed kinds: no cast, only the string can match');
  assert.deepEqual(ids({ $in: [f('inputs.flag'), [l(true)]] }), ['a', 'b', 'c']);
  assert.deepEqual(ids({ $in: [f('inputs.flag'), [l(true), l(2)]] }), [], 'bool + int: no cast; numbers never equal text');
  assert.deepEqual(ids({ $in: [f('svc_run_step'), [l(0), l(7), l(true)]] }), ['c', 'd']);
  assert.deepEqual(ids({ $in: [f('started_at'), [l('2024-01-01T00:00:02Z')]] }), [], 'datetime options are not converted');
});

test('semantics.md#calls-expr-contains: $contains: empty substr is true, objects searched as JSON text, ASCII case folding', () => {
  const c = (input: unknown, substr: string, ci?: boolean) => ({ $contains: { input, substr: l(substr), ...(ci === undefined ? {} : { case_insensitive: ci }) } });
  assert.deepEqual(ids(c(f('inputs.s'), '')), ['a', 'b', 'c', 'd'], 'a missing field reads "" and still contains ""');
  assert.deepEqual(ids(c(f('inputs.obj'), '"a":1')), ['a']);
  assert.deepEqual(ids(c(f('inputs.s'), 'HELLO')), []);
  assert.deepEqual(ids(c(f('inputs.s'), 'HELLO', true)), ['a', 'b']);
  assert.deepEqual(ids(c(f('inputs.s'), 'world', false)), ['a']);
  assert.deepEqual(ids(c(f('display_name'), 'alp', true)), ['a']);
  assert.deepEqual(values(c(f('display_name'), 'x')), [false, null, false, false], 'a NULL input gives NULL');
  assert.deepEqual(ids({ $not: [c(f('display_name'), 'x')] }), ['a', 'c', 'd']);
});

test('semantics.md#calls-expr-contains: $contains never matches non-string operands', () => {
  assert.deepEqual(values({ $contains: { input: f('svc_run_step'), substr: l('5') } }), [false, null, false, false]);
  assert.deepEqual(values({ $contains: { input: f('id'), substr: l(1) } }), [false, false, false, false]);
  assert.deepEqual(values({ $contains: { input: f('input_refs'), substr: l('r1') } }), [false, false, false, false]);
  assert.deepEqual(values({ $contains: { input: f('id'), substr: l(null) } }), [null, null, null, null]);
  assert.deepEqual(ids({ $contains: { input: f('inputs.x'), substr: { $convert: { input: l(5), to: 'string' } } } }), ['a', 'd']);
});

test('$containsToken: whole-token match (hasToken), case-insensitive with ASCII folding', () => {
  const t = (substr: unknown, ci = false) => ({ $containsToken: { input: f('inputs.s'), substr: l(substr), case_insensitive: ci } });
  assert.deepEqual(ids(t('world')), ['a']);
  assert.deepEqual(ids(t('worl')), []);
  assert.deepEqual(ids(t('hello')), ['a']);
  assert.deepEqual(ids(t('hello', true)), ['a', 'b']);
  assert.deepEqual(values(t('hello world')), [null, null, null, null], 'a needle with separators matches nothing (NULL)');
  assert.deepEqual(values(t(3)), [false, false, false, false]);
});

test('semantics.md#calls-expr-convert: $convert casts the operand\'s text: int, double, bool, string', () => {
  const conv = (input: unknown, to: string) => ({ $convert: { input, to } });
  assert.deepEqual(ids({ $eq: [conv(f('inputs.x'), 'int'), l(5)] }), ['a']);
  assert.deepEqual(ids({ $eq: [conv(f('inputs.x'), 'int'), l(null)] }), ['c', 'd'], '"abc" and "5.5" → NULL');
  assert.deepEqual(ids({ $gt: [conv(f('inputs.x'), 'double'), conv(l('5.2'), 'double')] }), ['b', 'd']);
  assert.deepEqual(ids({ $eq: [conv(f('inputs.flag'), 'bool'), l(1)] }), ['c'], 'explicit bool is toUInt8OrNull: true and "true" → NULL');
  assert.deepEqual(ids({ $not: [{ $eq: [conv(f('inputs.flag'), 'bool'), l(1)] }] }), ['d'], 'NULL under $not stays NULL');
  assert.deepEqual(ids({ $eq: [conv(l('true'), 'bool'), l(null)] }), ['a', 'b', 'c', 'd'], 'the text "true" is no UInt8');
  assert.deepEqual(ids({ $eq: [conv(f('inputs.flag'), 'bool'), l(2)] }), ['d'], '"2" → 2');
  assert.deepEqual(ids({ $eq: [conv(f('svc_run_step'), 'string'), l('7')] }), ['c'], 'numbers stringify first');
  assert.deepEqual(ids({ $eq: [conv(l(2.0), 'string'), l('2')] }), ['a', 'b', 'c', 'd']);
  assert.deepEqual(ids({ $eq: [conv(l(2.5), 'int'), l(null)] }), ['a', 'b', 'c', 'd'], '"2.5" is not an int');
  assert.deepEqual(ids({ $eq: [conv(l(true), 'string'), l('true')] }), ['a', 'b', 'c', 'd']);
  assert.deepEqual(ids({ $eq: [conv({ $eq: [f('id'), l('a')] }, 'bool'), l(1)] }), ['a'], 'a condition stringifies as true/false');
  assert.deepEqual(ids({ $eq: [conv(f('started_at'), 'string'), l('2024-01-01 00:00:01+00:00')] }), ['a']);
  assert.deepEqual(ids({ $eq: [conv(f('input_refs'), 'string'), l("['r1']")] }), ['a']);
  assert.deepEqual(ids({ $eq: [conv(f('parent_id'), 'string'), l(null)] }), ['a', 'c'], 'NULL stays NULL');
  assert.deepEqual(ids({ $eq: [conv(f('inputs.x'), 'string'), l(5)] }), [], 'an explicit string cast is not a JSON field: no inferred cast');
});

test('semantics.md#calls-expr-convert: $convert exists is "not NULL": always true for a dynamic field, false for a NULL column', () => {
  const exists = (input: unknown) => ({ $convert: { input, to: 'exists' } });
  assert.deepEqual(ids({ $eq: [exists(f('inputs.missing')), l(true)] }), ['a', 'b', 'c', 'd']);
  assert.deepEqual(ids({ $eq: [exists(f('parent_id')), l(true)] }), ['b', 'd']);
  assert.deepEqual(ids({ $and: [exists(f('ended_at'))] }), ['a', 'c', 'd']);
  assert.deepEqual(ids({ $and: [exists(l(null))] }), []);
});

test('semantics.md#calls-summary-latency: latency_ms is NULL (not 0) for running calls in filters', () => {
  assert.deepEqual(ids({ $eq: [f('summary.weave.latency_ms'), l(0)] }), []);
  assert.deepEqual(ids({ $not: [{ $gt: [f('summary.weave.latency_ms'), l(1_000_000)] }] }), ['a', 'c', 'd']);
  assert.deepEqual(ids({ $gte: [f('summary.weave.latency_ms'), l(1000)] }), ['a', 'd']);
});

test('a constant expression is folded; the predicate is the same for every row', () => {
  assert.deepEqual(values({ $and: [{ $eq: [l('a'), l('a')] }, { $not: [{ $gt: [l(1), l(2)] }] }] }), [true, true, true, true]);
  assert.deepEqual(values({ $lt: [l('\uFF5E'), l('\u{1F600}')] }), [true, true, true, true]);
  assert.deepEqual(values({ $gt: [l(null), l(1)] }), [null, null, null, null]);
});

const isIndexed = (field: string) => INDEXED_COLUMNS.has(field);

test('indexableEqualities: top-level (through $and) equalities and $in of indexed columns with string literals', () => {
  const eqs = (expr: unknown) => indexableEqualities(parseQuery({ $expr: expr }, []), isIndexed);
  assert.deepEqual(eqs({ $eq: [f('id'), l('a')] }), [{ field: 'id', values: ['a'] }]);
  assert.deepEqual(eqs({ $eq: [l('t1'), f('trace_id')] }), [{ field: 'trace_id', values: ['t1'] }]);
  assert.deepEqual(eqs({ $and: [{ $eq: [f('parent_id'), l('p')] }, { $and: [{ $in: [f('thread_id'), [l('x'), l('y'), l(null), l(3)]] }] }, { $gt: [f('id'), l('a')] }] }), [
    { field: 'parent_id', values: ['p'] },
    { field: 'thread_id', values: ['x', 'y'] },
  ]);
  assert.deepEqual(eqs({ $or: [{ $eq: [f('turn_id'), l('z')] }] }), [{ field: 'turn_id', values: ['z'] }], 'a one-operand $or is its operand');
  assert.deepEqual(eqs({ $in: [f('id'), []] }), [{ field: 'id', values: [] }], 'an empty $in matches nothing');
  for (const none of [
    { $or: [{ $eq: [f('id'), l('a')] }, { $eq: [f('id'), l('b')] }] },
    { $not: [{ $eq: [f('id'), l('a')] }] },
    { $eq: [f('op_name'), l('a')] },
    { $eq: [f('id'), l(1)] },
    { $eq: [f('id'), f('trace_id')] },
    { $in: [f('id'), [l('a'), f('trace_id')]] },
    { $eq: [f('inputs.id'), l('a')] },
  ]) {
    assert.deepEqual(eqs(none), [], JSON.stringify(none));
  }
});

test('indexableEqualities is a superset: every matching row holds one of the values', () => {
  const exprs = [
    { $and: [{ $eq: [f('trace_id'), l('t1')] }, { $gt: [f('inputs.x'), l(1)] }] },
    { $in: [f('id'), [l('a'), l('c'), l(7)]] },
    { $and: [{ $eq: [f('parent_id'), l('a')] }, { $or: [{ $eq: [f('id'), l('b')] }, { $eq: [f('id'), l('d')] }] }] },
  ];
  for (const expr of exprs) {
    const e = parseQuery({ $expr: expr }, []);
    const pred = compileExpr(e, new FakeResolver(ROWS));
    for (const { field, values } of indexableEqualities(e, isIndexed)) {
      ROWS.forEach((row, i) => {
        if (pred(i) === true) assert.ok(values.includes((row as unknown as Record<string, string>)[field]), `${field} of ${row.id}`);
      });
    }
  }
});

test('$and/$or test the operands the resolver calls costly (readsJson) last', () => {
  const order: string[] = [];
  const counting = (name: string, value: boolean): FieldAccessor => ({ kind: 'string', get: () => (order.push(name), value ? 'y' : '') });
  const resolver = (costly: string[]): FieldResolver => ({
    resolve: (path) => counting(path, path === 'b'),
    readsJson: (path) => costly.includes(path),
  });
  const e = parseQuery({ $expr: { $and: [f('a'), f('b')] } }, []);
  order.length = 0;
  assert.equal(compileExpr(e, resolver([]))(0), false);
  assert.deepEqual(order, ['a'], 'in the written order: a is false, b is not read');
  order.length = 0;
  assert.equal(compileExpr(e, resolver(['a']))(0), false);
  assert.deepEqual(order, ['b', 'a'], 'a is costly: b first');
});
