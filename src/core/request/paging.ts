/**
 * semantics.md#paging-limits: a negative `limit` or `offset` is a 400 (Weave passes them to SQL
 * unchecked), raised after the schema passes.
 */
import { invalidRequest } from '../errors.ts';

export interface Paging {
  limit: number | null;
  offset: number | null;
}

/** The validated `limit` / `offset` of a query (absent or null = none). */
export function checkPaging(req: { limit?: number | null; offset?: number | null }): Paging {
  const limit = req.limit ?? null;
  const offset = req.offset ?? null;
  if (limit !== null && limit < 0) throw invalidRequest('TQ_NEGATIVE_LIMIT', {}, ['body', 'limit']);
  if (offset !== null && offset < 0) throw invalidRequest('TQ_NEGATIVE_OFFSET', {}, ['body', 'offset']);
  return { limit, offset };
}
