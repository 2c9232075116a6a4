/**
 * `CallsQueryReq` (semantics.md#calls-request-model): the request model of /calls/stream_query,
 * strict as Weave's BaseModelStrict classes are, with the user/run filter keys spelled with the
 * engine's field prefix. Value checks that pydantic does not do (negative paging, list lengths) are
 * 400s raised after the schema passes.
 */
import { invalidRequest } from '../../core/errors.ts';
import { checkPaging } from '../../core/request/paging.ts';
import { perPrefix } from '../../core/request/per-prefix.ts';
import { sortBy, type SortBy } from '../../core/request/sort-by.ts';
import { alias, bool, int, list, maybe, model, str, validateBody, type Infer, type Schema } from '../../core/schema.ts';
import type { FieldPrefix } from '../../api/types.ts';
import { parseQuery } from './expr/parse.ts';
import type { Expr } from './expr/ast.ts';

/**
 * Weave's CallsFilter, strict: the one list of filter fields. The CallsFilter type is the
 * model's, the id lists below must name each list field (a Record over them), and
 * filter.test.ts checks each field against the docs and the answer.
 */
const filterModel = perPrefix((prefix: FieldPrefix) => {
  const ids = maybe(list(str()));
  return model(
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
      user_ids: alias(`${prefix}user_ids`, ids),
      run_ids: alias(`${prefix}run_ids`, ids),
    },
    { strict: true },
  );
});

// Partial: a filter built in code (`{call_ids: [id]}`) names only the fields it uses.
export type CallsFilter = Partial<Infer<ReturnType<typeof filterModel>>>;

/** One `{field, direction}` of `sort_by` (Weave's SortBy). */
export type SortTerm = SortBy;

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

/** The filter fields that are id lists, by name inside, with their name on the wire; each at most MAX_FILTER_LENGTH long. */
const idLists = (prefix: FieldPrefix) =>
  Object.entries({
    op_names: 'op_names',
    input_refs: 'input_refs',
    output_refs: 'output_refs',
    parent_ids: 'parent_ids',
    trace_ids: 'trace_ids',
    call_ids: 'call_ids',
    thread_ids: 'thread_ids',
    turn_ids: 'turn_ids',
    user_ids: `${prefix}user_ids`,
    run_ids: `${prefix}run_ids`,
  } satisfies Record<Exclude<keyof CallsFilter, 'trace_roots_only'>, string>) as Array<[Exclude<keyof CallsFilter, 'trace_roots_only'>, string]>;

const buildSchema = perPrefix((prefix: FieldPrefix) => {
  const filter = filterModel(prefix);
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
});

/** Validates a /calls/stream_query body; throws 422 / 400 errors. */
export function parseCallsQuery(body: unknown, prefix: FieldPrefix): CallsQuery {
  const req = validateBody(buildSchema(prefix), body);
  let filter: CallsFilter | null = null;
  if (req.filter) {
    filter = { ...req.filter, user_ids: req.filter.user_ids ?? null, run_ids: req.filter.run_ids ?? null };
    for (const [key, name] of idLists(prefix)) {
      const values = filter[key];
      if (Array.isArray(values) && values.length > MAX_FILTER_LENGTH) {
        throw invalidRequest('TQ_LIST_TOO_LONG', { name, max: MAX_FILTER_LENGTH, length: values.length }, ['body', 'filter', name]);
      }
    }
  }
  const { limit, offset } = checkPaging(req);
  const query = req.query == null ? null : parseQuery(req.query, ['body', 'query']);
  return {
    project_id: req.project_id,
    filter,
    limit,
    offset,
    sort_by: req.sort_by ?? null,
    query,
    include_costs: req.include_costs === true,
    include_feedback: req.include_feedback === true,
    include_storage_size: req.include_storage_size === true,
    include_total_storage_size: req.include_total_storage_size === true,
    columns: req.columns ?? null,
    expand_columns: req.expand_columns ?? null,
    return_expanded_column_values: req.return_expanded_column_values !== false,
  };
}
