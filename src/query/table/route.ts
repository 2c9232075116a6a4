/**
 * Table read routes (semantics.md#wire-routes, semantics.md#table-query-nonstream,
 * semantics.md#table-stats): `/table/query_stream` (JSONL), `/table/query` (the same rows as
 * `{rows: [...]}`, what the TS SDK's Dataset code reads) and `/table/query_stats`. Everything is
 * validated before the result is returned (semantics.md#errors-before-stream).
 */
import { lineStream } from '../../api/line-stream.ts';
import { defineRoute } from '../../api/define-route.ts';
import type { Route, RouteResult } from '../../api/types.ts';
import { parseTableQuery, parseTableQueryStats } from './request.ts';
import { queryTableRows, tableQueryStats, tableRowLine, tableRowObject } from './run.ts';

export const tableQueryStreamRoute = defineRoute({
  path: '/table/query_stream',
  body: 'plain',
  mutates: false,
  answer: 'stream',
  parse: (body) => parseTableQuery(body),
  project: (req) => req.project_id,
  run(req, { engine }) {
    const hits = queryTableRows(engine, req);
    return lineStream((function* () {
      for (const hit of hits) yield tableRowLine(hit);
    })());
  },
});

export const tableQueryRoute = defineRoute({
  path: '/table/query',
  body: 'plain',
  mutates: false,
  answer: 'result',
  parse: (body) => parseTableQuery(body),
  project: (req) => req.project_id,
  run(req, { engine }): RouteResult {
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
});

export const tableQueryStatsRoute = defineRoute({
  path: '/table/query_stats',
  body: 'plain',
  mutates: false,
  answer: 'json',
  parse: (body) => parseTableQueryStats(body),
  project: (req) => req.project_id,
  run: (req, { engine }) => tableQueryStats(engine, req),
});

export const tableRoutes: Route[] = [tableQueryStreamRoute, tableQueryRoute, tableQueryStatsRoute];
