/**
 * The control plane of Weave's own SDK test mock (`trace_server_mock/` in wandb/weave), which
 * `tq serve --test-control` serves so that SDK test suites written for that mock can drive tq:
 *
 *   GET  /test/health                    → {"ok": true}
 *   GET  /test/getCalls?project_id=e/p   → {"calls": [...]}: the project's calls, as
 *                                           /calls/stream_query answers them (started_at order)
 *   POST /test/reset[?project_id=e/p]    → {"ok": true}: forgets every project (or that one):
 *                                           calls, objects, tables, files, feedback and the
 *                                           project's own prices; the default price list stays
 *
 * The reset is a write like any other: with `--data` it is one journal record, appended and
 * fsync'd before the answer, so it happens whole or not at all, and a restart replays it.
 * The server serves these paths only with `--test-control`, without credentials, as the mock does.
 */
import { defineRoute } from '../api/define-route.ts';
import type { Route } from '../api/types.ts';
import { invalidRequest } from '../core/errors.ts';
import { parseCallsQuery } from '../query/calls/request.ts';
import { prepareCallsQuery } from '../query/calls/run.ts';
import { byteStream } from '../api/line-stream.ts';

/** Most calls /test/getCalls returns in its one JSON body; larger projects use /calls/stream_query. */
export const MAX_TEST_CALLS = 10_000;

export const testHealthRoute = defineRoute({
  path: '/test/health',
  method: 'GET',
  body: 'none',
  mutates: false,
  answer: 'json',
  parse: () => undefined,
  project: () => [],
  run: () => ({ ok: true }),
});

function projectParam(params: Readonly<Record<string, string>> | undefined, required: boolean): string | undefined {
  const projectId = params?.project_id;
  if (projectId === undefined && required) {
    throw invalidRequest('TQ_INVALID_REQUEST', { reason: 'Missing query parameter: project_id (e.g. /test/getCalls?project_id=entity/project)' });
  }
  return projectId;
}

export const testGetCallsRoute = defineRoute({
  path: '/test/getCalls',
  method: 'GET',
  body: 'none',
  mutates: false,
  query: ['project_id'],
  answer: 'json',
  parse: (_body, prefix, params) => parseCallsQuery({ project_id: projectParam(params, true)! }, prefix),
  project: (req) => req.project_id,
  run(req, { engine, ctx }) {
    const projectId = req.project_id;
    if ((engine.store.project(projectId)?.calls.size ?? 0) > MAX_TEST_CALLS) {
      throw invalidRequest('TQ_INVALID_REQUEST', { reason: `${projectId} holds more than ${MAX_TEST_CALLS} calls: read them with /calls/stream_query` });
    }
    const calls = [...byteStream(prepareCallsQuery(engine, req, (p) => ctx.canRead(p))).lines].map((line) => JSON.parse(line) as unknown);
    return { calls };
  },
});

export const testResetRoute = defineRoute({
  path: '/test/reset',
  body: 'none',
  mutates: true,
  query: ['project_id'],
  answer: 'json',
  parse: (_body, _prefix, params) => projectParam(params, false),
  // Every project, without a project_id: the server serves this path only with --test-control.
  project: (projectId) => (projectId === undefined ? [] : projectId),
  run(projectId, { engine }) {
    const { store } = engine;
    const forget = (id: string) => projectId === undefined || id === projectId;
    for (const id of [...store.projects.keys()]) if (forget(id)) store.projects.delete(id);
    // Project-level prices go with their project; the default list is configuration, not data.
    const kept = store.prices.filter((row) => row.pricing_level !== 'project' || !forget(row.pricing_level_id));
    // Refilled in place, never spread into arguments (a price list can be longer than the stack).
    store.prices.length = 0;
    for (const row of kept) store.prices.push(row);
    store.derived.clear();
    return { ok: true };
  },
});

export const testControlRoutes: readonly Route[] = [testHealthRoute, testGetCallsRoute, testResetRoute];

const CONTROL_PATHS = new Set(testControlRoutes.map((r) => r.path));

/** Is this one of the control plane's paths (served only with --test-control, without credentials)? */
export const isTestControlPath = (path: string) => CONTROL_PATHS.has(path);
