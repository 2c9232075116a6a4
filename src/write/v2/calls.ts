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
import { plainBody } from '../../api/body.ts';
import type { PathParams } from '../../api/route-path.ts';
import type { FieldPrefix, RequestContext, Route } from '../../api/types.ts';
import { invalidRequest } from '../../core/errors.ts';
import { any, dict, int, list, maybe, model, optional, str, validateBody } from '../../core/schema.ts';
import { endCall, startCall, type CallEndInput, type CallStartInput } from '../calls.ts';
import { writeModels } from '../models.ts';
import { neutral } from '../routes.ts';
import { datetime, summaryInsertMap } from '../schemas.ts';

type Obj = Record<string, unknown>;

function buildModels(p: FieldPrefix) {
  const complete = model(
    'CompleteCallSchemaForInsert',
    {
      project_id: str(),
      id: maybe(str()),
      op_name: str(),
      display_name: maybe(str()),
      trace_id: maybe(str()),
      parent_id: maybe(str()),
      thread_id: maybe(str()),
      turn_id: maybe(str()),
      started_at: datetime(),
      ended_at: datetime(),
      attributes: dict(),
      inputs: dict(),
      exception: maybe(str()),
      output: optional(any()),
      summary: summaryInsertMap(),
      otel_dump: maybe(dict()),
      [`${p}user_id`]: maybe(str()),
      [`${p}run_id`]: maybe(str()),
      [`${p}run_step`]: maybe(int()),
      [`${p}run_step_end`]: maybe(int()),
    },
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
function pathProject(params: PathParams | undefined, ctx: RequestContext, bodyProjects: readonly string[]): string {
  const projectId = `${params?.entity ?? ''}/${params?.project ?? ''}`;
  ctx.authorize(projectId);
  for (const p of bodyProjects) {
    if (p !== projectId) throw invalidRequest('TQ_INVALID_REQUEST', { reason: `project_id '${p}' does not match the project '${projectId}' named by the path` });
  }
  return projectId;
}

export const callStartV2Route: Route = {
  path: '/v2/{entity}/{project}/call/start',
  mutates: true,
  method: 'POST',
  body: 'json',
  run(engine, body, ctx, params) {
    const p = engine.options.fieldPrefix;
    const req = validateBody(writeModels(p).callStartReq, plainBody(body)) as Obj;
    const start = neutral(req.start as Obj, p) as unknown as CallStartInput;
    pathProject(params, ctx, [start.project_id]);
    return { kind: 'json', body: startCall(engine, start, ctx.userId) };
  },
};

export const callEndV2Route: Route = {
  path: '/v2/{entity}/{project}/call/end',
  mutates: true,
  method: 'POST',
  body: 'json',
  run(engine, body, ctx, params) {
    const p = engine.options.fieldPrefix;
    const req = validateBody(writeModels(p).callEndReq, plainBody(body)) as Obj;
    const end = neutral(req.end as Obj, p) as unknown as CallEndInput;
    pathProject(params, ctx, [end.project_id]);
    return { kind: 'json', body: endCall(engine, end) };
  },
};

export const callsCompleteV2Route: Route = {
  path: '/v2/{entity}/{project}/calls/complete',
  mutates: true,
  method: 'POST',
  body: 'json',
  run(engine, body, ctx, params) {
    const p = engine.options.fieldPrefix;
    const req = validateBody(v2Models(p).completeReq, plainBody(body)) as { batch: Obj[] };
    const calls = req.batch.map((item) => neutral(item, p) as unknown as CallStartInput & CallEndInput);
    pathProject(params, ctx, calls.map((c) => c.project_id));
    for (const c of calls) {
      const { id } = startCall(engine, c, ctx.userId);
      endCall(engine, { ...c, id });
    }
    return { kind: 'json', body: {} };
  },
};

export const v2CallRoutes: Route[] = [callStartV2Route, callEndV2Route, callsCompleteV2Route];
