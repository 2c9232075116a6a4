/**
 * `TableQueryReq` and `TableQueryStatsReq` (semantics.md#table-request, semantics.md#table-stats):
 * strict request models, as Weave's BaseModelStrict classes are. Sort items are `{field, order}`
 * (the seed's spelling); Weave's `direction` is accepted as an alias and giving both is a 422
 * (semantics.md#table-sort-item). Value checks pydantic does not make (negative paging, malformed
 * sort paths) are 400s raised after the schema passes.
 */
import { invalidRequest, type ValidationIssue } from '../../core/errors.ts';
import { checkPaging } from '../../core/request/paging.ts';
import { INVALID, int, issue, list, literal, maybe, model, optional, str, validateBody, type Loc, type Schema } from '../../core/schema.ts';

export type SortOrder = 'asc' | 'desc';

/** One sort term: a dot path into the row value, split into its keys. */
export interface TableSortTerm {
  field: string;
  path: string[];
  order: SortOrder;
}

export interface TableQuery {
  project_id: string;
  digest: string;
  /**
   * Row digests to keep; null when absent or empty (an empty list is no filter,
   * semantics.md#table-filter-digests, semantics.md#empty-list-means-all).
   */
  row_digests: string[] | null;
  limit: number | null;
  offset: number | null;
  /** Empty when absent or `[]`: table order (semantics.md#table-default-order). */
  sort_by: TableSortTerm[];
}

export interface TableQueryStats {
  project_id: string;
  digest: string;
}

const order = literal(['asc', 'desc'] as const);
const sortItemShape = model('SortBy', { field: str(), order: optional(order), direction: optional(order) }, { strict: true });

/** `{field, order}` with `direction` as an alias: exactly one of the two is required. */
const sortItem: Schema<{ field: string; order: SortOrder }> = {
  check(v: unknown, loc: Loc, issues: ValidationIssue[]) {
    const r = sortItemShape.check(v, loc, issues);
    if (r === INVALID) return INVALID;
    const raw = v as Record<string, unknown>;
    const hasOrder = Object.prototype.hasOwnProperty.call(raw, 'order');
    const hasDirection = Object.prototype.hasOwnProperty.call(raw, 'direction');
    if (hasOrder && hasDirection) {
      // semantics.md#table-sort-item: the alias is then an extra key.
      return issue(issues, 'extra_forbidden', [...loc, 'direction'], 'Extra inputs are not permitted', raw.direction);
    }
    if (!hasOrder && !hasDirection) {
      return issue(issues, 'missing', [...loc, 'order'], 'Field required', v);
    }
    return { field: r.field, order: (r.order ?? r.direction) as SortOrder };
  },
};

const tableQuerySchema = model(
  'TableQueryReq',
  {
    project_id: str(),
    digest: str(),
    filter: maybe(model('TableRowFilter', { row_digests: maybe(list(str())) }, { strict: true })),
    limit: maybe(int()),
    offset: maybe(int()),
    sort_by: maybe(list(sortItem)),
  },
  { strict: true },
);

const tableQueryStatsSchema = model('TableQueryStatsReq', { project_id: str(), digest: str() }, { strict: true });

/**
 * Python's `str.isspace()` set (what `strip()` removes): JS whitespace without U+FEFF, plus
 * the separators U+001C..U+001F and U+0085.
 */
const PY_BLANK = /^[\t\n\v\f\r \x1c-\x1f\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]*$/;

/**
 * semantics.md#table-sort-field: the sort field is a dot path; checked in Weave's order. There is
 * no escaping, so a key containing a dot cannot be addressed. Components are used as written (not
 * stripped).
 */
export function parseSortPath(field: string, loc: Loc): string[] {
  if (PY_BLANK.test(field)) throw invalidRequest('TQ_TABLE_SORT_EMPTY', {}, loc);
  if (field.startsWith('.') || field.endsWith('.') || field.includes('..')) {
    throw invalidRequest('TQ_TABLE_SORT_DOTS', { field }, loc);
  }
  const path = field.split('.');
  if (path.some((part) => PY_BLANK.test(part))) throw invalidRequest('TQ_TABLE_SORT_COMPONENT', { field }, loc);
  return path;
}

/** Validates a /table/query_stream (or /table/query) body; throws 422 / 400 errors. */
export function parseTableQuery(body: unknown): TableQuery {
  const req = validateBody(tableQuerySchema, body);
  const sortBy = (req.sort_by ?? []).map((s, i) => ({
    field: s.field,
    path: parseSortPath(s.field, ['body', 'sort_by', i, 'field']),
    order: s.order,
  }));
  // semantics.md#paging-limits (semantics.md#threads-paging).
  const { limit, offset } = checkPaging(req);
  const rowDigests = req.filter?.row_digests ?? null;
  return {
    project_id: req.project_id,
    digest: req.digest,
    row_digests: rowDigests !== null && rowDigests.length > 0 ? rowDigests : null,
    limit,
    offset,
    sort_by: sortBy,
  };
}

/** Validates a /table/query_stats body. */
export function parseTableQueryStats(body: unknown): TableQueryStats {
  return validateBody(tableQueryStatsSchema, body);
}
