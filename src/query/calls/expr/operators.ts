/**
 * The `$expr` models (Weave's weave/trace_server/interface/query.py), one entry each: the one
 * list the parser (its union members, in pydantic's union order), the printer, the purge-shape
 * check and tq fuzz read (semantics.md#calls-expr-grammar).
 *
 * An entry's `shape` says how its argument is written and so how it is parsed and printed:
 *  - 'list': a list of operands (`$and`, `$or`);
 *  - 'unary': a 1-tuple (`$not`);
 *  - 'binary': a 2-tuple, a comparison (`$eq`, ...): compile.ts gives each its test;
 *  - 'in': an (operand, list of operands) tuple;
 *  - 'substring': a spec `{input, substr, case_insensitive}` (`$contains`, ...): compile.ts gives
 *    each its test.
 * An operation of an existing shape is one entry here plus its test in compile.ts.
 */

/** The operands that are not operations, in union order (pydantic class, Python field name). */
export const OPERANDS = [
  { op: 'literal', cls: 'LiteralOperation', name: 'literal_' },
  { op: 'getField', cls: 'GetFieldOperator', name: 'get_field_' },
  { op: 'convert', cls: 'ConvertOperation', name: 'convert_' },
] as const;

/** The operations (what `$expr` holds), in union order. */
export const OPERATIONS = [
  { op: 'and', cls: 'AndOperation', name: 'and_', shape: 'list' },
  { op: 'or', cls: 'OrOperation', name: 'or_', shape: 'list' },
  { op: 'not', cls: 'NotOperation', name: 'not_', shape: 'unary' },
  { op: 'eq', cls: 'EqOperation', name: 'eq_', shape: 'binary' },
  { op: 'gt', cls: 'GtOperation', name: 'gt_', shape: 'binary' },
  { op: 'lt', cls: 'LtOperation', name: 'lt_', shape: 'binary' },
  { op: 'gte', cls: 'GteOperation', name: 'gte_', shape: 'binary' },
  { op: 'lte', cls: 'LteOperation', name: 'lte_', shape: 'binary' },
  { op: 'in', cls: 'InOperation', name: 'in_', shape: 'in' },
  { op: 'contains', cls: 'ContainsOperation', name: 'contains_', shape: 'substring', spec: 'ContainsSpec' },
  { op: 'containsToken', cls: 'ContainsTokenOperation', name: 'contains_token_', shape: 'substring', spec: 'ContainsTokenSpec' },
] as const;

export type OperationDef = (typeof OPERATIONS)[number];
export type OperationShape = OperationDef['shape'];
/** The operations written in one shape, e.g. `OpOfShape<'binary'>` = the comparisons. */
export type OpOfShape<S extends OperationShape> = Extract<OperationDef, { shape: S }>['op'];

type AnyOp = OperationDef['op'] | (typeof OPERANDS)[number]['op'];

/** The JSON key a client writes: `$` and the op (`$eq`, `$containsToken`, `$getField`). */
export const aliasOf = (op: AnyOp): string => `$${op}`;

const PY_NAMES = new Map<string, string>([...OPERANDS, ...OPERATIONS].map((m) => [m.op, m.name]));

/** The Python field name a model dumps under (`eq_`, `contains_token_`, `get_field_`). */
export const pyNameOf = (op: AnyOp): string => PY_NAMES.get(op)!;

/** The operations of one shape, in union order. */
export const operationsOfShape = <S extends OperationShape>(shape: S): Array<Extract<OperationDef, { shape: S }>> =>
  OPERATIONS.filter((o): o is Extract<OperationDef, { shape: S }> => o.shape === shape);
