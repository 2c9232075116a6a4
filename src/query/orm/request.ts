/**
 * The request parts the ORM-style queries share (FeedbackQueryReq, CostQueryReq and their
 * purges): `fields`, `query`, `sort_by`, `limit`, `offset`, checked as production's `Select`
 * checks them (a negative limit or offset is its 400 "… must be non-negative").
 */
import { invalidRequest } from '../../core/errors.ts';
import { int, list, maybe, model, str } from '../../core/schema.ts';
import { sortBy, type SortBy } from '../../core/request/sort-by.ts';
import type { Expr } from '../calls/expr/ast.ts';
import { compileExpr } from '../calls/expr/compile.ts';
import { parseQuery } from '../calls/expr/parse.ts';
import { orderRows } from '../calls/order.ts';
import type { RowTable } from './rows.ts';

const queryField = { check: (v: unknown) => v };

/** The model of a `<Thing>QueryReq`: project_id, fields, query, sort_by, limit, offset. */
export const ormQueryModel = (name: string) =>
  model(
    name,
    { project_id: str(), fields: maybe(list(str())), query: maybe(queryField), sort_by: maybe(list(sortBy)), limit: maybe(int()), offset: maybe(int()) },
    { strict: true },
  );

/** The model of a `<Thing>PurgeReq`: project_id and a required query. */
export const ormPurgeModel = (name: string) => model(name, { project_id: str(), query: queryField }, { strict: true });

export interface OrmQuery {
  fields?: string[] | null;
  query?: unknown;
  sort_by?: SortBy[] | null;
  limit?: number | null;
  offset?: number | null;
}

export const parseOrmQuery = (query: unknown): Expr | null => (query == null ? null : parseQuery(query, ['body', 'query']));

/** Row indexes of `table` that `expr` keeps (all rows without one). */
export function matchingRows<R>(table: RowTable<R>, expr: Expr | null): number[] {
  const keep = expr === null ? null : compileExpr(expr, table);
  const out: number[] = [];
  for (let r = 0; r < table.rows.length; r++) if (keep === null || keep(r) === true) out.push(r);
  return out;
}

/** Runs a validated ORM query: filter, order, page, select. Every name is checked first. */
export function runOrmQuery<R>(table: RowTable<R>, req: OrmQuery, expr: Expr | null): Array<Record<string, unknown>> {
  if (req.limit != null && req.limit < 0) throw invalidRequest('TQ_INVALID_REQUEST', { reason: 'Limit must be non-negative' }, ['body', 'limit']);
  if (req.offset != null && req.offset < 0) throw invalidRequest('TQ_INVALID_REQUEST', { reason: 'Offset must be non-negative' }, ['body', 'offset']);
  if (req.fields) table.validate(req.fields, ['body', 'fields']);
  const terms = req.sort_by ?? [];
  terms.forEach((t, i) => table.resolve(t.field, ['body', 'sort_by', i, 'field']));
  const matches = matchingRows(table, expr);
  const page = orderRows(matches, terms, table, req.offset ?? 0, req.limit ?? null);
  return page.map((r) => table.select(r, req.fields ?? null));
}
