/**
 * `POST /calls/query_stats` (CallsQueryStatsReq → CallsQueryStatsRes): how many calls the
 * same `filter` / `query` / `expand_columns` match as in /calls/stream_query, capped by
 * `limit` (production counts a `LIMIT`ed subquery), and, with `include_total_storage_size`,
 * the summed trace storage size of the counted trace roots (the value the stream gives each
 * root). The rows come from the calls plan (planCallsQuery): there is no second filter.
 *
 * Not copied: production's two `limit: 1` shortcuts (calls_query_builder/stats.py). With no
 * filter and no query it counts any stored call, deleted ones included; with a query and no
 * filter it ignores the query and counts calls that have a run id. Both answer a different
 * question than the request asks, so tq counts what the request names.
 */
import { defineRoute, type RouteCall } from '../../api/define-route.ts';
import { any, bool, int, list, maybe, model, str, validateBody } from '../../core/schema.ts';
import { parseCallsQuery, type CallsQuery } from './request.ts';
import { traceStorageSize } from './storage-size.ts';
import { countFromIndexes, matchingRows, planCallsQuery } from './run.ts';

/** The model's keys (strict); `filter` and `query` are checked in depth by parseCallsQuery. */
const statsModel = model(
  'CallsQueryStatsReq',
  {
    project_id: str(),
    filter: maybe(any()),
    query: maybe(any()),
    limit: maybe(int()),
    include_total_storage_size: maybe(bool()),
    expand_columns: maybe(list(str())),
  },
  { strict: true },
);

export interface CallsStats {
  count: number;
  total_storage_size_bytes: number | null;
}

function callsQueryStats(req: CallsQuery, { engine, ctx }: RouteCall): CallsStats {
  // Counting needs no order: an empty sort list skips the default sort's checks and work.
  const plan = planCallsQuery(engine, { ...req, sort_by: [] }, (p) => ctx.canRead(p));
  if (!req.include_total_storage_size) {
    // Roots and time windows: the start-order indexes count them without a scan.
    const indexed = countFromIndexes(plan);
    if (indexed !== null) return { count: req.limit === null ? indexed : Math.min(indexed, req.limit), total_storage_size_bytes: null };
  }
  const matches = matchingRows(plan);
  const project = plan.project;
  const counted = req.limit === null ? matches : matches.slice(0, req.limit);
  let total: number | null = null;
  if (req.include_total_storage_size) {
    const t = project.calls;
    total = 0;
    for (const row of counted) if (t.parentId(row) === null) total += traceStorageSize(engine.store, t, row);
  }
  return { count: counted.length, total_storage_size_bytes: total };
}

export const callsQueryStatsRoute = defineRoute({
  path: '/calls/query_stats',
  body: 'query',
  mutates: false,
  answer: 'json',
  // The stats model's keys first, then the calls request's `filter` and `query` in depth.
  parse: (body, prefix) => (validateBody(statsModel, body), parseCallsQuery(body, prefix)),
  project: (req) => req.project_id,
  run: callsQueryStats,
});
