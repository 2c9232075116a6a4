/**
 * Table read routes (semantics.md#wire-routes, semantics.md#table-query-nonstream,
 * semantics.md#table-stats): `/table/query_stream` (JSONL), `/table/query` (the same rows as
 * `{rows: [...]}`, what the TS SDK's Dataset code reads) and `/table/query_stats`. Everything is
 * validated before the result is returned (semantics.md#errors-before-stream).
 */
import { lineStream } from '../../api/line-stream.ts';
import { plainBody } from '../../api/body.ts';
import type { Engine, RequestBody, RequestContext, Route, RouteResult } from '../../api/types.ts';
import { parseTableQuery, parseTableQueryStats } from './request.ts';
import { queryTableRows, tableQueryStats, tableRowLine, tableRowObject } from './run.ts';

export const tableQueryStreamRoute: Route = {
  path: '/table/query_stream',
  method: 'POST',
  body: 'json',
  run(engine: Engine, body: RequestBody, ctx: RequestContext): RouteResult {
    const req = parseTableQuery(plainBody(body));
    ctx.authorize(req.project_id);
    const hits = queryTableRows(engine, req);
    return lineStream((function* () {
      for (const hit of hits) yield tableRowLine(hit);
    })());
  },
};

export const tableQueryRoute: Route = {
  path: '/table/query',
  method: 'POST',
  body: 'json',
  run(engine: Engine, body: RequestBody, ctx: RequestContext): RouteResult {
    const req = parseTableQuery(plainBody(body));
    ctx.authorize(req.project_id);
    const hits = Array.from(queryTableRows(engine, req));
    // The text keeps each row's stored spelling (`1.0` stays a float), as the stream does.
    return {
      kind: 'json',
      get body() {
        return { rows: hits.map(tableRowObject) };
      },
      text: `{"rows":[${hits.map(tableRowLine).join(',')}]}`,
    };
  },
};

export const tableQueryStatsRoute: Route = {
  path: '/table/query_stats',
  method: 'POST',
  body: 'json',
  run(engine: Engine, body: RequestBody, ctx: RequestContext): RouteResult {
    const req = parseTableQueryStats(plainBody(body));
    ctx.authorize(req.project_id);
    return { kind: 'json', body: tableQueryStats(engine, req) };
  },
};

export const tableRoutes: Route[] = [tableQueryStreamRoute, tableQueryRoute, tableQueryStatsRoute];
