/**
 * `POST /objs/query` (ObjQueryReq → `{objs: [ObjSchema]}`), as production's objs_query and
 * ObjectMetadataQueryBuilder answer it: deleted versions never appear; filters are ANDed and
 * an empty list filters nothing (`if req.filter.object_ids:`); class filters are SQL `IN` /
 * `NOT IN` on a nullable column, so a version without a base class never passes either; order
 * is `created_at` ascending unless `sort_by` names `object_id` / `created_at` (other fields are
 * ignored); `metadata_only` empties `val`; `include_storage_size` fills `size_bytes` with the
 * length of the stored JSON dump.
 */
import { defineRoute, type RouteCall } from '../../api/define-route.ts';
import { fromPlain } from '../../core/json/lossless.ts';
import { pyDumps } from '../../core/json/pyjson.ts';
import { checkPaging } from '../../core/request/paging.ts';
import { sortBy } from '../../core/request/sort-by.ts';
import { bool, int, list, maybe, model, str, type Infer } from '../../core/schema.ts';
import type { ObjectVersion } from '../../store/project.ts';
import { objectSchema } from './read.ts';
import { compareStrings } from '../../core/ch/values.ts';
import { liveVersions } from './versions.ts';

const ids = maybe(list(str()));
const filterModel = model(
  'ObjectVersionFilter',
  {
    base_object_classes: ids,
    exclude_base_object_classes: ids,
    leaf_object_classes: ids,
    object_ids: ids,
    is_op: maybe(bool()),
    latest_only: maybe(bool()),
  },
  { strict: true },
);
const objQueryModel = model(
  'ObjQueryReq',
  {
    project_id: str(),
    filter: maybe(filterModel),
    limit: maybe(int()),
    offset: maybe(int()),
    sort_by: maybe(list(sortBy)),
    metadata_only: maybe(bool()),
    include_storage_size: maybe(bool()),
  },
  { strict: true },
);

type ObjQuery = Infer<typeof objQueryModel>;
type Filter = NonNullable<ObjQuery['filter']>;

const SORTABLE = new Set(['object_id', 'created_at']);

/** SQL `col IN list` on a nullable column: NULL is never in, nor "not in". */
const within = (value: string | null, values: readonly string[], negate: boolean) => value !== null && values.includes(value) !== negate;

function passes(v: ObjectVersion, f: Filter): boolean {
  if (f.is_op != null && (v.kind === 'op') !== f.is_op) return false;
  if (f.object_ids && f.object_ids.length > 0 && !f.object_ids.includes(v.objectId)) return false;
  if (f.latest_only && !v.isLatest) return false;
  if (f.base_object_classes?.length && !within(v.baseObjectClass, f.base_object_classes, false)) return false;
  if (f.exclude_base_object_classes?.length && !within(v.baseObjectClass, f.exclude_base_object_classes, true)) return false;
  if (f.leaf_object_classes?.length && !within(v.leafObjectClass, f.leaf_object_classes, false)) return false;
  return true;
}

/** Orders by the sortable terms (created_at asc by default); ties keep the oldest-first order. */
function order(versions: ObjectVersion[], sortBy: ObjQuery['sort_by']): ObjectVersion[] {
  const terms = (sortBy ?? []).filter((t) => SORTABLE.has(t.field));
  if (terms.length === 0) return versions;
  return versions.sort((a, b) => {
    for (const t of terms) {
      const c = t.field === 'object_id' ? compareStrings(a.objectId, b.objectId) : a.createdAtUs - b.createdAtUs;
      if (c !== 0) return t.direction === 'desc' ? -c : c;
    }
    return 0;
  });
}

function queryObjects({ req, limit, offset }: ObjQueryRequest, { engine }: RouteCall): { objs: Array<Record<string, unknown>> } {
  const filter = req.filter;
  const matching = liveVersions(engine.store.project(req.project_id)).filter((v) => !filter || passes(v, filter));
  const from = offset ?? 0;
  const page = order(matching, req.sort_by).slice(from, limit === null ? undefined : from + limit);
  const prefix = engine.options.fieldPrefix;
  return {
    objs: page.map((v) => {
      const schema = objectSchema(v, prefix, req.metadata_only === true);
      if (req.include_storage_size) schema.size_bytes = pyDumps(fromPlain(v.val)).length;
      return schema;
    }),
  };
}

/** The request with its paging checked (400s, before authorization). */
type ObjQueryRequest = { req: ObjQuery } & ReturnType<typeof checkPaging>;

export const objsQueryRoute = defineRoute({
  path: '/objs/query',
  body: 'plain',
  mutates: false,
  answer: 'json',
  model: () => objQueryModel,
  refine: (req): ObjQueryRequest => ({ req, ...checkPaging(req) }),
  project: ({ req }) => req.project_id,
  run: queryObjects,
});
