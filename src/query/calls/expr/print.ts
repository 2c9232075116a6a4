/**
 * Expr → canonical JSON: the `$`-alias spelling Weave's clients send, every field present
 * (`case_insensitive` always written). `parseQuery(printQuery(e), loc)` deep-equals `e` for any
 * `e` parseQuery produced from plain JSON. (A float literal with an integral value cannot come
 * from plain JSON; it prints as a plain number and would read back as an int.)
 */
import type { Expr, LiteralValue } from './ast.ts';
import { defineOwn } from '../../../core/json/lossless.ts';
import { aliasOf } from './operators.ts';

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

/** One node as JSON (`{"$eq": [...]}`, `{"$getField": "..."}`, ...), keys from operators.ts. */
export function printExpr(e: Expr): unknown {
  const key = aliasOf(e.op);
  switch (e.op) {
    case 'literal':
      return { [key]: printLiteralValue(e.value) };
    case 'getField':
      return { [key]: e.path };
    case 'convert':
      return { [key]: { input: printExpr(e.input), to: e.to } };
    case 'and':
    case 'or':
      return { [key]: e.args.map(printExpr) };
    case 'not':
      return { [key]: [printExpr(e.arg)] };
    case 'in':
      return { [key]: [printExpr(e.left), e.options.map(printExpr)] };
    default:
      // The 'substring' and 'binary' shapes.
      if ('substr' in e) return { [key]: { input: printExpr(e.input), substr: printExpr(e.substr), case_insensitive: e.caseInsensitive } };
      return { [key]: [printExpr(e.left), printExpr(e.right)] };
  }
}

/** A whole query: `{"$expr": ...}`. */
export function printQuery(e: Expr): { $expr: unknown } {
  return { $expr: printExpr(e) };
}
