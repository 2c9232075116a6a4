/**
 * `ThreadsQueryReq` (semantics.md#threads-request):
 * strict models, sort items `{field, direction}`. Datetime bounds take pydantic's lax datetime
 * input (ISO 8601 with any offset, naive = UTC, or a unix timestamp). After the schema:
 * unsupported sort fields (semantics.md#threads-sort) and negative paging
 * (semantics.md#paging-limits) are 400s.
 */
import { invalidRequest, type ValidationIssue } from '../../core/errors.ts';
import { parseDatetimeInput } from '../../core/datetime.ts';
import { INVALID, int, list, literal, maybe, model, str, validateBody, type Loc, type Schema } from '../../core/schema.ts';
import { isThreadSortField, THREAD_SORT_FIELDS_REPR, type ThreadSortField } from './sort-fields.ts';

export interface ThreadSortTerm {
  field: ThreadSortField;
  direction: 'asc' | 'desc';
}

export interface ThreadsQuery {
  project_id: string;
  /** Strict lower bound on a turn's started_at, µs; null = unbounded. */
  after_us: number | null;
  /** Strict upper bound on a turn's started_at, µs; null = unbounded. */
  before_us: number | null;
  /**
   * Thread ids to keep, de-duplicated; null when absent or empty
   * (semantics.md#empty-list-means-all).
   */
  thread_ids: string[] | null;
  limit: number | null;
  offset: number | null;
  /** Empty when absent or `[]`: the default order applies (semantics.md#threads-sort). */
  sort_by: ThreadSortTerm[];
}

/**
 * pydantic v2's `datetime` in lax mode: a string in ISO 8601 form or a number (unix seconds,
 * or milliseconds above 2e10); anything else is a 422. speedate's exact parse-error wording is
 * not reproduced; the type code is.
 */
const datetimeInput: Schema<number> = {
  check(v: unknown, loc: Loc, issues: ValidationIssue[]) {
    if (typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v))) {
      const us = parseDatetimeInput(v);
      if (!Number.isNaN(us)) return us;
      const error = typeof v === 'string' && v.trim().length < 10 ? 'input is too short' : 'invalid datetime format';
      issues.push({
        type: 'datetime_from_date_parsing',
        loc: [...loc],
        msg: `Input should be a valid datetime or date, ${error}`,
        input: v,
        ctx: { error },
      });
      return INVALID;
    }
    issues.push({ type: 'datetime_type', loc: [...loc], msg: 'Input should be a valid datetime', input: v });
    return INVALID;
  },
};

const threadsQuerySchema = model(
  'ThreadsQueryReq',
  {
    project_id: str(),
    filter: maybe(
      model(
        'ThreadsQueryFilter',
        { after_datetime: maybe(datetimeInput), before_datetime: maybe(datetimeInput), thread_ids: maybe(list(str())) },
        { strict: true },
      ),
    ),
    limit: maybe(int()),
    offset: maybe(int()),
    sort_by: maybe(list(model('SortBy', { field: str(), direction: literal(['asc', 'desc'] as const) }, { strict: true }))),
  },
  { strict: true },
);

/** Validates a /threads/stream_query body; throws 422 / 400 errors. */
export function parseThreadsQuery(body: unknown): ThreadsQuery {
  const req = validateBody(threadsQuerySchema, body);
  const sortBy = (req.sort_by ?? []).map((s, i): ThreadSortTerm => {
    if (!isThreadSortField(s.field)) throw invalidRequest('TQ_THREAD_SORT_FIELD', { field: s.field, supported: THREAD_SORT_FIELDS_REPR }, ['body', 'sort_by', i, 'field']);
    return { field: s.field, direction: s.direction };
  });
  const limit = req.limit ?? null;
  const offset = req.offset ?? null;
  if (limit !== null && limit < 0) throw invalidRequest('TQ_NEGATIVE_LIMIT', {}, ['body', 'limit']);
  if (offset !== null && offset < 0) throw invalidRequest('TQ_NEGATIVE_OFFSET', {}, ['body', 'offset']);
  const ids = req.filter?.thread_ids ?? null;
  return {
    project_id: req.project_id,
    after_us: req.filter?.after_datetime ?? null,
    before_us: req.filter?.before_datetime ?? null,
    thread_ids: ids !== null && ids.length > 0 ? [...new Set(ids)] : null,
    limit,
    offset,
    sort_by: sortBy,
  };
}
