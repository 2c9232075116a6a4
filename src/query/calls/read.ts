/**
 * `POST /call/read` (CallReadReq → CallReadRes `{call}`): production's call_read is the calls
 * query with `call_ids: [id]` and `limit: 1`, so the call is rendered exactly as a stream line
 * (computed summary, costs, storage sizes as asked); an unknown or deleted id is `{"call": null}`.
 */
import { plainBody } from '../../api/body.ts';
import type { Engine, RequestBody, RequestContext, Route } from '../../api/types.ts';
import { bool, maybe, model, str, validateBody } from '../../core/schema.ts';
import type { CallsQuery } from './request.ts';
import { prepareCallsQuery } from './run.ts';

const readModel = model(
  'CallReadReq',
  {
    project_id: str(),
    id: str(),
    include_costs: maybe(bool()),
    include_storage_size: maybe(bool()),
    include_total_storage_size: maybe(bool()),
  },
  { strict: true },
);

/** The `{"call": ...}` text: the call's stream line as it is, or null. */
function readCall(engine: Engine, body: unknown, ctx: RequestContext): string {
  const req = validateBody(readModel, body);
  ctx.authorize(req.project_id);
  const query: CallsQuery = {
    project_id: req.project_id,
    filter: { call_ids: [req.id] },
    limit: 1,
    offset: null,
    sort_by: null,
    query: null,
    include_costs: req.include_costs === true,
    include_feedback: false,
    include_storage_size: req.include_storage_size === true,
    include_total_storage_size: req.include_total_storage_size === true,
    columns: null,
    expand_columns: null,
    return_expanded_column_values: true,
  };
  const [line] = [...prepareCallsQuery(engine, query, (p) => ctx.canRead(p))];
  return `{"call":${line ?? 'null'}}`;
}

export const callReadRoute: Route = {
  path: '/call/read',
  method: 'POST',
  body: 'json',
  run(engine: Engine, body: RequestBody, ctx: RequestContext) {
    const text = readCall(engine, plainBody(body), ctx);
    return { kind: 'json', body: JSON.parse(text), text };
  },
};
