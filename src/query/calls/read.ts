/**
 * `POST /call/read` (CallReadReq → CallReadRes `{call}`): production's call_read is the calls
 * query with `call_ids: [id]` and `limit: 1`, so the call is rendered exactly as a stream line
 * (computed summary, costs, storage sizes as asked); an unknown or deleted id is `{"call": null}`.
 */
import { decodeLines } from '../../api/line-stream.ts';
import { defineRoute, type RouteCall } from '../../api/define-route.ts';
import type { RouteResult } from '../../api/types.ts';
import { bool, maybe, model, str, type Infer } from '../../core/schema.ts';
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
function readCall(req: Infer<typeof readModel>, { engine, ctx }: RouteCall): string {
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
  const [line] = [...decodeLines(prepareCallsQuery(engine, query, (p) => ctx.canRead(p)))];
  return `{"call":${line ?? 'null'}}`;
}

export const callReadRoute = defineRoute({
  path: '/call/read',
  body: 'plain',
  mutates: false,
  // The call's line as the stream writes it (stored number spellings kept), wrapped.
  answer: 'result',
  model: () => readModel,
  project: (req) => req.project_id,
  run(req, call): RouteResult {
    const text = readCall(req, call);
    return { kind: 'json', body: JSON.parse(text), text };
  },
});
