/**
 * Every route tq serves, in one static table: the composition root, where the query and write
 * modules meet the Route contract of api/. The HTTP server, the CLI, the library's runPath and the
 * in-process conformance runner look routes up here; each route's module owns its validation and
 * behaviour.
 */
import { callsStreamQueryRoute } from './query/calls/route.ts';
import { tableRoutes } from './query/table/route.ts';
import { threadsRoutes } from './query/threads/route.ts';
import { writeRoutes } from './write/routes.ts';
import { v2CallRoutes } from './write/v2/calls.ts';
import { callReadRoute } from './query/calls/read.ts';
import { callsQueryStatsRoute } from './query/calls/stats.ts';
import { fileContentRoute, fileContentRouteAt } from './query/files/content.ts';
import { objsQueryRoute } from './query/objects/query.ts';
import { refsReadBatchRoute } from './query/refs/read-batch.ts';
import { tableQueryStatsBatchRoute } from './query/table/stats-batch.ts';
import { objDeleteRoute } from './write/object-delete.ts';
import { costPurgeRoute, costQueryRoute } from './query/costs/query.ts';
import { feedbackQueryRoute } from './query/feedback/query.ts';
import { feedbackChangeRoutes } from './write/feedback-changes.ts';
import { otelTracesRoute } from './otel/route.ts';
import { projectsListRoute } from './query/projects/list.ts';
import { routesForPath } from './api/route-path.ts';
import type { Route } from './api/types.ts';
import { TQ_VERSION } from './version.ts';
import { testControlRoutes } from './write/test-control.ts';
import { defineBodilessGet } from './api/define-route.ts';

export const healthRoute = defineBodilessGet('/health', () => ({ status: 'ok' }));

// The Python client compares min_required_weave_python_version with its own version (tq accepts
// every client); its generated ServerInfoRes model requires trace_server_version, which tq fills
// with its own version.
export const serverInfoRoute = defineBodilessGet('/server_info', () => ({
  min_required_weave_python_version: '0.0.0',
  trace_server_version: TQ_VERSION,
  tq_version: TQ_VERSION,
}));

/** `/files/content`: the newest Python client's spelling of `/file/content` (its FILE_CONTENT_PATH). */
export const filesContentRoute = fileContentRouteAt('/files/content');

const ROUTES: readonly Route[] = (() => {
  const all = [healthRoute, serverInfoRoute, callsStreamQueryRoute, ...tableRoutes, ...threadsRoutes, ...writeRoutes, ...v2CallRoutes,
    callsQueryStatsRoute, callReadRoute, refsReadBatchRoute, objsQueryRoute, objDeleteRoute, fileContentRoute, filesContentRoute, tableQueryStatsBatchRoute,
    feedbackQueryRoute, ...feedbackChangeRoutes, costQueryRoute, costPurgeRoute, ...testControlRoutes, projectsListRoute];
  // OpenTelemetry ingest (src/otel/), kept apart so that other route additions merge cleanly.
  all.push(otelTracesRoute);
  const seen = new Set<string>();
  for (const r of all) {
    if (seen.has(r.path)) throw new Error(`duplicate route ${r.path}`);
    seen.add(r.path);
  }
  return all;
})();

export function allRoutes(): readonly Route[] {
  return ROUTES;
}

export function findRoute(path: string): Route | undefined {
  return routesForPath(ROUTES, path)?.routes[0];
}
