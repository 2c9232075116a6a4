/**
 * `ThreadsQueryReq` (semantics.md#threads-request):
 * strict models, sort items `{field, direction}`. Datetime bounds take pydantic's lax datetime
 * input (ISO 8601 with any offset, naive = UTC, or a unix timestamp) with speedate's wording
 * when refused (src/core/request/datetime.ts). After the schema:
 * unsupported sort fields (semantics.md#threads-sort) and negative paging
 * (semantics.md#paging-limits) are 400s.
 */
import { invalidRequest } from '../../core/errors.ts';
import { datetime } from '../../core/request/datetime.ts';
import { checkPaging } from '../../core/request/paging.ts';
import { sortBy } from '../../core/request/sort-by.ts';
import { int, list, maybe, model, str, validateBody } from '../../core/schema.ts';
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

const threadsQuerySchema = model(
  'ThreadsQueryReq',
  {
    project_id: str(),
    filter: maybe(
      model(
        'ThreadsQueryFilter',
        { after_datetime: maybe(datetime()), before_datetime: maybe(datetime()), thread_ids: maybe(list(str())) },
        { strict: true },
      ),
    ),
    limit: maybe(int()),
    offset: maybe(int()),
    sort_by: maybe(list(sortBy)),
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
  const { limit, offset } = checkPaging(req);
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
