/**
 * The Weave Python SDK's opt-in "calls complete" endpoints (`WEAVE_USE_CALLS_COMPLETE`), which
 * name the project in the path: `POST /v2/{entity}/{project}/call/start` (CallStartV2Req
 * `{start}` → `{id, trace_id}`), `/call/end` (CallEndV2Req `{end}` → `{}`; the SDK's end may
 * carry `started_at` as an extra field) and `/calls/complete` (CallsUpsertCompleteReq
 * `{batch: [CompleteCallSchemaForInsert]}` → `{}`: each item is a whole call, start and end).
 *
 * tq stores them exactly as `/call/start` and `/call/end` do. The path names the project: a
 * body whose `project_id` names another one is a 400 (tq's decision: production's routing
 * layer is not public), and the grant checked is the path's project.
 */
import type { PathParams } from '../../api/route-path.ts';
import type { FieldPrefix, Route } from '../../api/types.ts';
import { invalidRequest } from '../../core/errors.ts';
import { perPrefix } from '../../core/request/per-prefix.ts';
import { list, model } from '../../core/schema.ts';
import { prepareCallWrites, projectsOfCallWrites, storeCallWrites, type CallWrite } from '../prepared-calls.ts';
import { defineRoute } from '../../api/define-route.ts';
import { endedCallShape, startedCallShape, writeModels } from '../models.ts';

const completeModel = perPrefix((p: FieldPrefix) => {
  const complete = model(
    'CompleteCallSchemaForInsert',
    // A start and an end in one: the start's optional `id` wins over the end's required one.
    { ...endedCallShape(p), ...startedCallShape(p) },
    { strict: false },
  );
  return model('CallsUpsertCompleteReq', { batch: list(complete) }, { strict: true });
});

/** The project the path names: the one authorized. */
const pathProject = (params: PathParams) => `${params.entity}/${params.project}`;

/** Every project id in the body must be the path's (checked once the path's is authorized). */
function sameProject(params: PathParams, bodyProjects: readonly string[]): void {
  const projectId = pathProject(params);
  for (const p of bodyProjects) {
    if (p !== projectId) throw invalidRequest('TQ_INVALID_REQUEST', { reason: `project_id '${p}' does not match the project '${projectId}' named by the path` });
  }
}

// Split routes (Route.prepare), as the v1 call writes (src/write/prepared-calls.ts).
export const v2CallRoutes: Route[] = [
  defineRoute({
    path: '/v2/{entity}/{project}/call/start',
    body: 'lossless',
    mutates: true,
    answer: 'json',
    model: (p) => writeModels(p).callStartReq,
    project: (_req, params) => pathProject(params),
    pathProject,
    derive: ({ start }, { storedText }) => ({ bodyProjects: [start.project_id], writes: prepareCallWrites([{ start }], storedText) }),
    run: ({ bodyProjects, writes }, { engine, ctx, params }) => {
      sameProject(params, bodyProjects);
      return storeCallWrites(engine, writes, ctx.userId)[0];
    },
  }),
  defineRoute({
    path: '/v2/{entity}/{project}/call/end',
    body: 'lossless',
    mutates: true,
    answer: 'json',
    model: (p) => writeModels(p).callEndReq,
    project: (_req, params) => pathProject(params),
    pathProject,
    derive: ({ end }, { storedText }) => ({ bodyProjects: [end.project_id], writes: prepareCallWrites([{ end }], storedText) }),
    run: ({ bodyProjects, writes }, { engine, ctx, params }) => {
      sameProject(params, bodyProjects);
      storeCallWrites(engine, writes, ctx.userId);
      return {};
    },
  }),
  defineRoute({
    path: '/v2/{entity}/{project}/calls/complete',
    body: 'lossless',
    mutates: true,
    answer: 'json',
    model: completeModel,
    project: (_req, params) => pathProject(params),
    pathProject,
    derive: ({ batch }, { storedText }) => {
      // Each call's start, then its end under the start's id (drawn when the call has none).
      const writes = batch.flatMap((c): CallWrite[] => [{ start: c }, { end: c, sameIdAsStart: true }]);
      return { bodyProjects: projectsOfCallWrites(writes), writes: prepareCallWrites(writes, storedText) };
    },
    run: ({ bodyProjects, writes }, { engine, ctx, params }) => {
      sameProject(params, bodyProjects);
      storeCallWrites(engine, writes, ctx.userId);
      return {};
    },
  }),
];
