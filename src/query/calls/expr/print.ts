/**
 * Expr → canonical JSON: the `$`-alias spelling Weave's clients send, every field present
 * (`case_insensitive` always written). `parseQuery(printQuery(e), loc)` deep-equals `e` for any
 * `e` parseQuery produced from plain JSON. (A float literal with an integral value cannot come
 * from plain JSON; it prints as a plain number and would read back as an int.)
 */
import type { Expr, LiteralValue } from './ast.ts';
import { defineOwn } from '../../../core/json/lossless.ts';

/** A literal value in `$literal` form (nested dict/list items are LiteralOperations again). */
function printLiteralValue(v: LiteralValue): unknown {
  switch (v.type) {
    case 'string':
    case 'int':
    case 'float':
    case 'bool':
      return v.value;
    case 'null':
      return null;
    case 'list':
      return v.items.map((item) => ({ $literal: printLiteralValue(item) }));
    case 'dict': {
      const out: Record<string, unknown> = {};
      for (const [k, item] of v.entries) defineOwn(out, k, { $literal: printLiteralValue(item) });
      return out;
    }
  }
}

/** One node as JSON (`{"$eq": [...]}`, `{"$getField": "..."}`, ...). */
export function printExpr(e: Expr): unknown {
  switch (e.op) {
    case 'literal':
      return { $literal: printLiteralValue(e.value) };
    case 'getField':
      return { $getField: e.path };
    case 'convert':
      return { $convert: { input: printExpr(e.input), to: e.to } };
    case 'and':
      return { $and: e.args.map(printExpr) };
    case 'or':
      return { $or: e.args.map(printExpr) };
    case 'not':
      return { $not: [printExpr(e.arg)] };
    case 'eq':
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte':
      return { [`$${e.op}`]: [printExpr(e.left), printExpr(e.right)] };
    case 'in':
      return { $in: [printExpr(e.left), e.options.map(printExpr)] };
    case 'contains':
    case 'containsToken':
      return {
        [`$${e.op}`]: { input: printExpr(e.input), substr: printExpr(e.substr), case_insensitive: e.caseInsensitive },
      };
  }
}

/** A whole query: `{"$expr": ...}`. */
export function printQuery(e: Expr): { $expr: unknown } {
  return { $expr: printExpr(e) };
}
