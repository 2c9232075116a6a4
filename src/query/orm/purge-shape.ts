/**
 * The query shapes a purge accepts (weave/trace_server/validation.py and the feedback / cost
 * purge validators): only "the row ids", as `$eq [id, "x"]`, an `$or` of such `$eq`s, and for
 * costs also `$in [id, ["x", …]]`. Anything else is production's 400, worded as production words
 * it: the route's message for a wrong shape, Python's wording where a part has the wrong key or
 * type (`Expected key literal_, got get_field_`).
 */
import { invalidRequest } from '../../core/errors.ts';
import type { Expr, LiteralValue } from '../calls/expr/ast.ts';
import { pyNameOf } from '../calls/expr/operators.ts';

/** validation.MESSAGE_INVALID_PURGE, used for the items of an `$or`. */
const MESSAGE_INVALID_PURGE = 'Can only purge by specifying one or more ids';

const bad = (reason: string) => invalidRequest('TQ_INVALID_REQUEST', { reason });

/** The pydantic field name a node dumps under (`eq_`, `get_field_`, `literal_`, …). */
const dumpKey = (e: Expr): string => pyNameOf(e.op);

const PY_TYPE: Record<LiteralValue['type'], string> = { string: 'str', int: 'int', float: 'float', bool: 'bool', null: 'NoneType', list: 'list', dict: 'dict' };

function expectKey(e: Expr, key: string): void {
  if (dumpKey(e) !== key) throw bad(`Expected key ${key}, got ${dumpKey(e)}`);
}

function expectIdField(e: Expr, message: string): void {
  expectKey(e, 'get_field_');
  if (e.op === 'getField' && e.path !== 'id') throw bad(message);
}

function expectStringLiteral(e: Expr): void {
  expectKey(e, 'literal_');
  if (e.op === 'literal' && e.value.type !== 'string') throw bad(`Expected value of type <class 'str'>, got <class '${PY_TYPE[e.value.type]}'>`);
}

/** validate_purge_req_one: `$eq [id, "x"]` (or `$in [id, [...]]` when `operator` is `in_`). */
function checkOne(e: Expr, message: string, operator: 'eq_' | 'in_'): void {
  expectKey(e, operator);
  if (e.op === 'eq') {
    expectIdField(e.left, message);
    expectStringLiteral(e.right);
  } else if (e.op === 'in') {
    expectIdField(e.left, message);
    e.options.forEach(expectStringLiteral);
  }
}

/** Throws the 400 production gives unless `e` only names ids; `allowIn` for costs. */
export function checkPurgeShape(e: Expr | null, message: string, allowIn: boolean): asserts e is Expr {
  // `"query": null` names no id, like any other shape that is not a purge by ids (was a 500).
  if (e === null) throw bad(message);
  if (e.op === 'eq' || (allowIn && e.op === 'in')) return checkOne(e, message, e.op === 'eq' ? 'eq_' : 'in_');
  if (e.op === 'or') {
    for (const item of e.args) checkOne(item, MESSAGE_INVALID_PURGE, 'eq_');
    return;
  }
  throw bad(message);
}
