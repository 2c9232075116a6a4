/**
 * `query` of a calls request → Expr, validated as Weave's pydantic `Query` model does it
 * (weave/trace_server/interface/query.py; semantics.md#calls-expr-grammar,
 * semantics.md#calls-expr-literals, semantics.md#errors-422-field).
 *
 * What pydantic v2 does there, and so what this does:
 *  - `Query` forbids extra keys; the operation models ignore them (plain BaseModel).
 *  - Every model has `populate_by_name`: `expr_`, `and_`, `literal_`, ... are accepted besides
 *    the `$` aliases (the alias wins when both are present).
 *  - `$expr` holds an Operation; an operand position holds an Operand (`$literal`, `$getField`,
 *    `$convert`, then the operations); the models and their order are operators.ts's. These are
 *    smart-mode unions: the first model (in that order) that validates wins; if none does, every
 *    member's errors are reported, each `loc` tagged with the model's class name.
 *  - `$not` is a 1-tuple, comparisons 2-tuples, `$in` a (operand, list) tuple.
 *
 * Only shape errors (422) are raised here. Value errors (empty `$and`/`$or`, dict/list literals)
 * are raised by the compiler, in the order Weave meets them while building SQL, interleaved with
 * unknown-field 422s.
 */
import { RequestSchemaError, type ValidationIssue } from '../../../core/errors.ts';
import { LosslessNumber } from '../../../core/json/lossless.ts';
import { exactInt } from '../../../core/ch/values.ts';
import { INVALID, bool, issue, issuesFull, keepIssues, literal, nullable, scratchIssues, type Loc, type Schema } from '../../../core/schema.ts';
import { CAST_TARGETS, type CastTo, type Expr, type LiteralValue, type OperationExpr } from './ast.ts';
import { aliasOf, OPERANDS, OPERATIONS, type OperationDef } from './operators.ts';
import { isPlainObject } from '../../../core/plain-object.ts';

type Issues = ValidationIssue[];
type Out<T> = T | typeof INVALID;

const hasOwn = (o: object, k: string) => Object.prototype.hasOwnProperty.call(o, k);

const modelType = (issues: Issues, cls: string, loc: Loc, input: unknown): typeof INVALID =>
  issue(issues, 'model_type', loc, `Input should be a valid dictionary or instance of ${cls}`, input, { class_name: cls });

// ---------------------------------------------------------------------------------------------
// Literals: `literal_: str | int | float | bool | dict[str, LiteralOperation] | list[LiteralOperation] | None`.

const LITERAL_DICT_TAG = 'dict[str,LiteralOperation]';
const LITERAL_LIST_TAG = 'list[LiteralOperation]';

function readLiteralValue(v: unknown, loc: Loc, issues: Issues): Out<LiteralValue> {
  if (v === null) return { type: 'null' };
  if (typeof v === 'string') return { type: 'string', value: v };
  if (typeof v === 'boolean') return { type: 'bool', value: v };
  // A JSON number is a Python int when written without fraction or exponent; plain JSON.parse
  // keeps only the value, so an integral value counts as int.
  if (typeof v === 'number') return Number.isInteger(v) ? { type: 'int', value: v } : { type: 'float', value: v };
  if (v instanceof LosslessNumber) return v.isInteger ? { type: 'int', value: exactInt(v.lexeme) } : { type: 'float', value: Number(v.lexeme) };

  // Containers: the dict and list members; scalars' members fail with type errors.
  const dictIssues: Issues = scratchIssues(issues);
  const listIssues: Issues = scratchIssues(issues);
  if (isPlainObject(v)) {
    const entries: Array<readonly [string, LiteralValue]> = [];
    let ok = true;
    for (const key of Object.keys(v)) {
      if (!ok && issuesFull(dictIssues)) break;
      const r = readLiteralOperation(v[key], [...loc, LITERAL_DICT_TAG, key], dictIssues);
      if (r === INVALID) ok = false;
      else entries.push([key, r]);
    }
    if (ok) return { type: 'dict', entries };
  } else issue(dictIssues, 'dict_type', [...loc, LITERAL_DICT_TAG], 'Input should be a valid dictionary', v);
  if (Array.isArray(v)) {
    const items: LiteralValue[] = [];
    let ok = true;
    for (let i = 0; i < v.length; i++) {
      if (!ok && issuesFull(listIssues)) break;
      const r = readLiteralOperation(v[i], [...loc, LITERAL_LIST_TAG, i], listIssues);
      if (r === INVALID) ok = false;
      else items.push(r);
    }
    if (ok) return { type: 'list', items };
  } else issue(listIssues, 'list_type', [...loc, LITERAL_LIST_TAG], 'Input should be a valid list', v);

  issue(issues, 'string_type', [...loc, 'str'], 'Input should be a valid string', v);
  issue(issues, 'int_type', [...loc, 'int'], 'Input should be a valid integer', v);
  issue(issues, 'float_type', [...loc, 'float'], 'Input should be a valid number', v);
  issue(issues, 'bool_type', [...loc, 'bool'], 'Input should be a valid boolean', v);
  keepIssues(issues, dictIssues);
  keepIssues(issues, listIssues);
  return INVALID;
}

/** A nested `LiteralOperation` (inside a dict or list literal): not part of a union. */
function readLiteralOperation(v: unknown, loc: Loc, issues: Issues): Out<LiteralValue> {
  if (!isPlainObject(v)) return modelType(issues, 'LiteralOperation', loc, v);
  const key = hasOwn(v, '$literal') ? '$literal' : hasOwn(v, 'literal_') ? 'literal_' : null;
  if (key === null) return issue(issues, 'missing', [...loc, '$literal'], 'Field required', v);
  return readLiteralValue(v[key], [...loc, key], issues);
}

// ---------------------------------------------------------------------------------------------
// Sequences.

function readList(v: unknown, loc: Loc, issues: Issues): Out<Expr[]> {
  if (!Array.isArray(v)) return issue(issues, 'list_type', loc, 'Input should be a valid list', v);
  const out: Expr[] = [];
  let ok = true;
  v.forEach((item, i) => {
    const r = readOperand(item, [...loc, i], issues);
    if (r === INVALID) ok = false;
    else out.push(r);
  });
  return ok ? out : INVALID;
}

type ItemReader = (v: unknown, loc: Loc, issues: Issues) => Out<unknown>;

/** A fixed-length tuple (`tuple[A, B]`): missing positions and extra items are errors. */
function readTuple(v: unknown, loc: Loc, issues: Issues, readers: readonly ItemReader[]): Out<unknown[]> {
  if (!Array.isArray(v)) return issue(issues, 'tuple_type', loc, 'Input should be a valid tuple', v);
  const out: unknown[] = [];
  let ok = true;
  readers.forEach((read, i) => {
    if (i >= v.length) {
      issue(issues, 'missing', [...loc, i], 'Field required', v);
      ok = false;
      return;
    }
    const r = read(v[i], [...loc, i], issues);
    if (r === INVALID) ok = false;
    else out.push(r);
  });
  const max = readers.length;
  if (v.length > max) {
    issue(issues, 'too_long', loc, `Tuple should have at most ${max} item${max === 1 ? '' : 's'} after validation, not ${v.length}`, v, {
      field_type: 'Tuple',
      max_length: max,
      actual_length: v.length,
    });
    ok = false;
  }
  return ok ? out : INVALID;
}

// ---------------------------------------------------------------------------------------------
// Spec models (`ConvertSpec`, `ContainsSpec`, `ContainsTokenSpec`): plain models, extras ignored.

interface SpecField {
  name: string;
  read: ItemReader;
  /** Absent → this default; undefined means required. */
  default?: unknown;
}

function readSpec(cls: string, fields: readonly SpecField[], v: unknown, loc: Loc, issues: Issues): Out<Record<string, unknown>> {
  if (!isPlainObject(v)) return modelType(issues, cls, loc, v);
  const out: Record<string, unknown> = {};
  let ok = true;
  for (const f of fields) {
    if (!hasOwn(v, f.name)) {
      if (f.default === undefined) {
        issue(issues, 'missing', [...loc, f.name], 'Field required', v);
        ok = false;
      } else out[f.name] = f.default;
      continue;
    }
    const r = f.read(v[f.name], [...loc, f.name], issues);
    if (r === INVALID) ok = false;
    else out[f.name] = r;
  }
  return ok ? out : INVALID;
}

const fromSchema = <T>(s: Schema<T>): ItemReader => (v, loc, issues) => s.check(v, loc, issues);
const castTo = fromSchema(literal(CAST_TARGETS));
const optionalBool = fromSchema(nullable(bool()));

const CONVERT_SPEC: readonly SpecField[] = [
  { name: 'input', read: (v, loc, issues) => readOperand(v, loc, issues) },
  { name: 'to', read: castTo },
];
const CONTAINS_SPEC: readonly SpecField[] = [
  { name: 'input', read: (v, loc, issues) => readOperand(v, loc, issues) },
  { name: 'substr', read: (v, loc, issues) => readOperand(v, loc, issues) },
  { name: 'case_insensitive', read: optionalBool, default: false },
];

// ---------------------------------------------------------------------------------------------
// The operand models and the two unions.

interface Member {
  /** The pydantic class name: the union tag in error locations. */
  cls: string;
  alias: string;
  /** The Python field name, accepted too (populate_by_name). */
  name: string;
  read(value: unknown, loc: Loc, issues: Issues): Out<Expr>;
}

const operandReader: ItemReader = (v, loc, issues) => readOperand(v, loc, issues);

/** The union member of one operation (operators.ts), read by its shape. */
function operationMember(o: OperationDef): Member {
  const m = { cls: o.cls, alias: aliasOf(o.op), name: o.name };
  switch (o.shape) {
    case 'list':
      return {
        ...m,
        read(value, loc, issues) {
          const args = readList(value, loc, issues);
          return args === INVALID ? INVALID : { op: o.op, args };
        },
      };
    case 'unary':
      return {
        ...m,
        read(value, loc, issues) {
          const t = readTuple(value, loc, issues, [operandReader]);
          return t === INVALID ? INVALID : { op: o.op, arg: t[0] as Expr };
        },
      };
    case 'binary':
      return {
        ...m,
        read(value, loc, issues) {
          const t = readTuple(value, loc, issues, [operandReader, operandReader]);
          return t === INVALID ? INVALID : { op: o.op, left: t[0] as Expr, right: t[1] as Expr };
        },
      };
    case 'in':
      return {
        ...m,
        read(value, loc, issues) {
          const t = readTuple(value, loc, issues, [operandReader, (v, l, i) => readList(v, l, i)]);
          return t === INVALID ? INVALID : { op: o.op, left: t[0] as Expr, options: t[1] as Expr[] };
        },
      };
    case 'substring':
      return {
        ...m,
        read(value, loc, issues) {
          const s = readSpec(o.spec, CONTAINS_SPEC, value, loc, issues);
          if (s === INVALID) return INVALID;
          return { op: o.op, input: s.input as Expr, substr: s.substr as Expr, caseInsensitive: s.case_insensitive === true };
        },
      };
  }
}

const OPERATION_MEMBERS: readonly Member[] = OPERATIONS.map(operationMember);

/** The operand members that are not operations, by op (operators.ts OPERANDS gives their names). */
const OPERAND_READERS: Record<(typeof OPERANDS)[number]['op'], Member['read']> = {
  literal(value, loc, issues) {
    const v = readLiteralValue(value, loc, issues);
    return v === INVALID ? INVALID : { op: 'literal', value: v };
  },
  getField(value, loc, issues) {
    if (typeof value !== 'string') return issue(issues, 'string_type', loc, 'Input should be a valid string', value);
    return { op: 'getField', path: value };
  },
  convert(value, loc, issues) {
    const s = readSpec('ConvertSpec', CONVERT_SPEC, value, loc, issues);
    return s === INVALID ? INVALID : { op: 'convert', input: s.input as Expr, to: s.to as CastTo };
  },
};

const OPERAND_MEMBERS: readonly Member[] = [
  ...OPERANDS.map((o): Member => ({ cls: o.cls, alias: aliasOf(o.op), name: o.name, read: OPERAND_READERS[o.op] })),
  ...OPERATION_MEMBERS,
];

/**
 * A smart-mode union of models. Members whose key is absent cannot validate, so only those whose
 * key is present are tried; the first that validates wins. When none does, each member's errors
 * are reported in member order (each member is validated once: no re-validation of subtrees).
 */
function readUnion(members: readonly Member[], v: unknown, loc: Loc, issues: Issues): Out<Expr> {
  const attempts = new Map<Member, Issues>();
  if (isPlainObject(v)) {
    for (const m of members) {
      const key = hasOwn(v, m.alias) ? m.alias : hasOwn(v, m.name) ? m.name : null;
      if (key === null) continue;
      const mine: Issues = scratchIssues(issues);
      const r = m.read(v[key], [...loc, m.cls, key], mine);
      if (r !== INVALID) return r;
      attempts.set(m, mine);
    }
  }
  for (const m of members) {
    const tried = attempts.get(m);
    if (tried) keepIssues(issues, tried);
    else if (!isPlainObject(v)) modelType(issues, m.cls, [...loc, m.cls], v);
    else issue(issues, 'missing', [...loc, m.cls, m.alias], 'Field required', v);
  }
  return INVALID;
}

const readOperand = (v: unknown, loc: Loc, issues: Issues) => readUnion(OPERAND_MEMBERS, v, loc, issues);

/**
 * Validates a request's `query` value (`{"$expr": Operation}`) found at `loc` (e.g.
 * `['body', 'query']`) and returns its expression.
 * @throws RequestSchemaError (422) with pydantic-style issues.
 */
export function parseQuery(value: unknown, loc: Array<string | number>): Expr {
  const issues: Issues = [];
  if (!isPlainObject(value)) {
    modelType(issues, 'Query', loc, value);
    throw new RequestSchemaError(issues);
  }
  const key = hasOwn(value, '$expr') ? '$expr' : hasOwn(value, 'expr_') ? 'expr_' : null;
  let expr: Out<Expr> = INVALID;
  if (key === null) issue(issues, 'missing', [...loc, '$expr'], 'Field required', value);
  else expr = readUnion(OPERATION_MEMBERS, value[key], [...loc, key], issues);
  // `Query` forbids extra keys (extra="forbid").
  for (const k of Object.keys(value)) {
    if (k !== key) issue(issues, 'extra_forbidden', [...loc, k], 'Extra inputs are not permitted', value[k]);
  }
  if (issues.length > 0 || expr === INVALID) throw new RequestSchemaError(issues);
  return expr as OperationExpr;
}
