/**
 * The calls query expression language (`query.$expr`, semantics.md#calls-expr-grammar) as a typed
 * AST.
 *
 * One node per Weave query model (weave/trace_server/interface/query.py): operations
 * (`$and` … `$containsToken`) and the operands that are not operations (`$literal`,
 * `$getField`, `$convert`). Literal numbers keep Python's int/float distinction, because the
 * inferred cast of a JSON field depends on it (semantics.md#calls-expr-compare: int →
 * toInt64OrNull, float → toFloat64OrNull).
 */
import type { OpOfShape } from './operators.ts';

/** A `$literal` value (LiteralOperation.literal_): scalars, or dicts/lists of nested literals. */
export type LiteralValue =
  | { readonly type: 'string'; readonly value: string }
  | { readonly type: 'int'; readonly value: number | bigint } // exact: a bigint beyond 2^53
  | { readonly type: 'float'; readonly value: number }
  | { readonly type: 'bool'; readonly value: boolean }
  | { readonly type: 'null' }
  | { readonly type: 'list'; readonly items: readonly LiteralValue[] }
  | { readonly type: 'dict'; readonly entries: ReadonlyArray<readonly [string, LiteralValue]> };

/** `$convert` targets (Weave's CastTo). */
export type CastTo = 'double' | 'string' | 'int' | 'bool' | 'exists';
export const CAST_TARGETS: readonly CastTo[] = ['double', 'string', 'int', 'bool', 'exists'];

/** `$eq`, `$gt`, ...: the 'binary' operations of operators.ts. */
export type ComparisonOp = OpOfShape<'binary'>;
/** `$contains`, `$containsToken`: the 'substring' operations of operators.ts. */
export type SubstringOp = OpOfShape<'substring'>;

export interface LiteralExpr {
  readonly op: 'literal';
  readonly value: LiteralValue;
}
export interface GetFieldExpr {
  readonly op: 'getField';
  readonly path: string;
}
interface ConvertExpr {
  readonly op: 'convert';
  readonly input: Expr;
  readonly to: CastTo;
}
interface AndExpr {
  readonly op: 'and';
  readonly args: readonly Expr[];
}
interface OrExpr {
  readonly op: 'or';
  readonly args: readonly Expr[];
}
interface NotExpr {
  readonly op: 'not';
  readonly arg: Expr;
}
interface ComparisonExpr {
  readonly op: ComparisonOp;
  readonly left: Expr;
  readonly right: Expr;
}
export interface InExpr {
  readonly op: 'in';
  readonly left: Expr;
  readonly options: readonly Expr[];
}
/** `$contains` (substring, ClickHouse position) and `$containsToken` (whole token, hasToken). */
export interface ContainsExpr {
  readonly op: SubstringOp;
  readonly input: Expr;
  readonly substr: Expr;
  readonly caseInsensitive: boolean;
}

/** An Operation: what `$expr` may hold directly (a bare operand is rejected there). */
export type OperationExpr = AndExpr | OrExpr | NotExpr | ComparisonExpr | InExpr | ContainsExpr;

/** Any node: an Operation or one of the leaf operands. */
export type Expr = OperationExpr | LiteralExpr | GetFieldExpr | ConvertExpr;

// Small constructors, for tests and for code that builds queries.
export const lit = {
  string: (value: string): LiteralExpr => ({ op: 'literal', value: { type: 'string', value } }),
  int: (value: number | bigint): LiteralExpr => ({ op: 'literal', value: { type: 'int', value } }),
  float: (value: number): LiteralExpr => ({ op: 'literal', value: { type: 'float', value } }),
  bool: (value: boolean): LiteralExpr => ({ op: 'literal', value: { type: 'bool', value } }),
  null: (): LiteralExpr => ({ op: 'literal', value: { type: 'null' } }),
};
export const field = (path: string): GetFieldExpr => ({ op: 'getField', path });
