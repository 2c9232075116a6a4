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
import { jsonRoute } from '../../api/json-route.ts';
import type { PathParams } from '../../api/route-path.ts';
import type { Engine, FieldPrefix, RequestContext, Route } from '../../api/types.ts';
import { invalidRequest } from '../../core/errors.ts';
import { list, model, validateBody } from '../../core/schema.ts';
import { endCall, startCall, type CallEndInput, type CallStartInput, type CallStartResult } from '../calls.ts';
import { endedCallShape, startedCallShape, writeModels } from '../models.ts';
import { neutral } from '../routes.ts';

type Obj = Record<string, unknown>;

function buildModels(p: FieldPrefix) {
  const complete = model(
    'CompleteCallSchemaForInsert',
    // A start and an end in one: the start's optional `id` wins over the end's required one.
    { ...endedCallShape(p), ...startedCallShape(p) },
    { strict: false },
  );
  return { completeReq: model('CallsUpsertCompleteReq', { batch: list(complete) }, { strict: true }) };
}

const models = new Map<FieldPrefix, ReturnType<typeof buildModels>>();
function v2Models(p: FieldPrefix): ReturnType<typeof buildModels> {
  let m = models.get(p);
  if (!m) models.set(p, (m = buildModels(p)));
  return m;
}

/** The path's project, authorized; every project id in the body must be it. */
function pathProject(params: PathParams, ctx: RequestContext, bodyProjects: readonly string[]): string {
  const projectId = `${params.entity}/${params.project}`;
  ctx.authorize(projectId);
  for (const p of bodyProjects) {
    if (p !== projectId) throw invalidRequest('TQ_INVALID_REQUEST', { reason: `project_id '${p}' does not match the project '${projectId}' named by the path` });
  }
  return projectId;
}

function startV2(engine: Engine, body: unknown, ctx: RequestContext, params: PathParams): CallStartResult {
  const p = engine.options.fieldPrefix;
  const req = validateBody(writeModels(p).callStartReq, body) as Obj;
  const start = neutral(req.start as Obj, p) as unknown as CallStartInput;
  pathProject(params, ctx, [start.project_id]);
  return startCall(engine, start, ctx.userId);
}

function endV2(engine: Engine, body: unknown, ctx: RequestContext, params: PathParams): Record<string, never> {
  const p = engine.options.fieldPrefix;
  const req = validateBody(writeModels(p).callEndReq, body) as Obj;
  const end = neutral(req.end as Obj, p) as unknown as CallEndInput;
  pathProject(params, ctx, [end.project_id]);
  return endCall(engine, end);
}

function completeV2(engine: Engine, body: unknown, ctx: RequestContext, params: PathParams): Record<string, never> {
  const p = engine.options.fieldPrefix;
  const req = validateBody(v2Models(p).completeReq, body) as { batch: Obj[] };
  const calls = req.batch.map((item) => neutral(item, p) as unknown as CallStartInput & CallEndInput);
  pathProject(params, ctx, calls.map((c) => c.project_id));
  for (const c of calls) {
    const { id } = startCall(engine, c, ctx.userId);
    endCall(engine, { ...c, id });
  }
  return {};
}

export const v2CallRoutes: Route[] = [
  jsonRoute('/v2/{entity}/{project}/call/start', startV2, { mutates: true }),
  jsonRoute('/v2/{entity}/{project}/call/end', endV2, { mutates: true }),
  jsonRoute('/v2/{entity}/{project}/calls/complete', completeV2, { mutates: true }),
];
