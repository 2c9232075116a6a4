/**
 * `CallsQueryReq` (semantics.md#calls-request-model): the request model of /calls/stream_query,
 * strict as Weave's BaseModelStrict classes are, with the user/run filter keys spelled with the
 * engine's field prefix. Value checks that pydantic does not do (negative paging, list lengths) are
 * 400s raised after the schema passes.
 */
import { invalidRequest } from '../../core/errors.ts';
import { bool, int, list, literal, maybe, model, str, validateBody, type Schema } from '../../core/schema.ts';
import type { FieldPrefix } from '../../api/types.ts';
import { parseQuery } from './expr/parse.ts';
import type { Expr } from './expr/ast.ts';

export interface CallsFilter {
  op_names?: string[] | null;
  input_refs?: string[] | null;
  output_refs?: string[] | null;
  parent_ids?: string[] | null;
  trace_ids?: string[] | null;
  call_ids?: string[] | null;
  thread_ids?: string[] | null;
  turn_ids?: string[] | null;
  trace_roots_only?: boolean | null;
  user_ids?: string[] | null;
  run_ids?: string[] | null;
}

export interface SortTerm {
  field: string;
  direction: 'asc' | 'desc';
}

export interface CallsQuery {
  project_id: string;
  filter: CallsFilter | null;
  limit: number | null;
  offset: number | null;
  sort_by: SortTerm[] | null;
  query: Expr | null;
  include_costs: boolean;
  include_feedback: boolean;
  include_storage_size: boolean;
  include_total_storage_size: boolean;
  columns: string[] | null;
  expand_columns: string[] | null;
  return_expanded_column_values: boolean;
}

/** Weave's MAX_FILTER_LENGTH. */
export const MAX_FILTER_LENGTH = 1000;

/** A `query` field checked by the expression parser (it reports its own 422 issues). */
const queryField: Schema<unknown> = { check: (v) => v };

/** Weave's SortBy model (`{field, direction}`), shared by every query that sorts this way. */
export const sortBy = model('SortBy', { field: str(), direction: literal(['asc', 'desc'] as const) }, { strict: true });

const schemas = new Map<FieldPrefix, ReturnType<typeof buildSchema>>();

function buildSchema(prefix: FieldPrefix) {
  const ids = maybe(list(str()));
  const filter = model(
    'CallsFilter',
    {
      op_names: ids,
      input_refs: ids,
      output_refs: ids,
      parent_ids: ids,
      trace_ids: ids,
      call_ids: ids,
      thread_ids: ids,
      turn_ids: ids,
      trace_roots_only: maybe(bool()),
      [`${prefix}user_ids`]: ids,
      [`${prefix}run_ids`]: ids,
    },
    { strict: true },
  );
  return model(
    'CallsQueryReq',
    {
      project_id: str(),
      filter: maybe(filter),
      limit: maybe(int()),
      offset: maybe(int()),
      sort_by: maybe(list(sortBy)),
      query: maybe(queryField),
      include_costs: maybe(bool()),
      include_feedback: maybe(bool()),
      include_storage_size: maybe(bool()),
      include_total_storage_size: maybe(bool()),
      columns: maybe(list(str())),
      expand_columns: maybe(list(str())),
      return_expanded_column_values: maybe(bool()),
      include_usernames: maybe(bool()),
    },
    { strict: true },
  );
}

/** Validates a /calls/stream_query body; throws 422 / 400 errors. */
export function parseCallsQuery(body: unknown, prefix: FieldPrefix): CallsQuery {
  let schema = schemas.get(prefix);
  if (!schema) schemas.set(prefix, (schema = buildSchema(prefix)));
  const req = validateBody(schema, body) as Record<string, unknown>;
  const rawFilter = (req.filter ?? null) as Record<string, unknown> | null;
  let filter: CallsFilter | null = null;
  if (rawFilter) {
    filter = { ...rawFilter } as CallsFilter;
    filter.user_ids = (rawFilter[`${prefix}user_ids`] as string[] | null | undefined) ?? null;
    filter.run_ids = (rawFilter[`${prefix}run_ids`] as string[] | null | undefined) ?? null;
    delete (filter as Record<string, unknown>)[`${prefix}user_ids`];
    delete (filter as Record<string, unknown>)[`${prefix}run_ids`];
    const lengthChecked: Array<[keyof CallsFilter, string]> = [
      ['op_names', 'op_names'],
      ['input_refs', 'input_refs'],
      ['output_refs', 'output_refs'],
      ['parent_ids', 'parent_ids'],
      ['trace_ids', 'trace_ids'],
      ['call_ids', 'call_ids'],
      ['thread_ids', 'thread_ids'],
      ['turn_ids', 'turn_ids'],
      ['user_ids', `${prefix}user_ids`],
      ['run_ids', `${prefix}run_ids`],
    ];
    for (const [key, name] of lengthChecked) {
      const values = filter[key];
      if (Array.isArray(values) && values.length > MAX_FILTER_LENGTH) {
        throw invalidRequest('TQ_LIST_TOO_LONG', { name, max: MAX_FILTER_LENGTH, length: values.length }, ['body', 'filter', name]);
      }
    }
  }
  const limit = (req.limit ?? null) as number | null;
  const offset = (req.offset ?? null) as number | null;
  if (limit !== null && limit < 0) throw invalidRequest('TQ_NEGATIVE_LIMIT', {}, ['body', 'limit']);
  if (offset !== null && offset < 0) throw invalidRequest('TQ_NEGATIVE_OFFSET', {}, ['body', 'offset']);
  const query = req.query == null ? null : parseQuery(req.query, ['body', 'query']);
  return {
    project_id: req.project_id as string,
    filter,
    limit,
    offset,
    sort_by: (req.sort_by ?? null) as SortTerm[] | null,
    query,
    include_costs: req.include_costs === true,
    include_feedback: req.include_feedback === true,
    include_storage_size: req.include_storage_size === true,
    include_total_storage_size: req.include_total_storage_size === true,
    columns: (req.columns ?? null) as string[] | null,
    expand_columns: (req.expand_columns ?? null) as string[] | null,
    return_expanded_column_values: req.return_expanded_column_values !== false,
  };
}
