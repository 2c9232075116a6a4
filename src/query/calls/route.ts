/**
 * `/calls/stream_query` (semantics.md#wire-routes, semantics.md#calls-request-model): the body read
 * with its `query` lossless, validated in full and planned, then lines produced lazily. Every
 * error is raised before the stream starts (semantics.md#errors-before-stream).
 */
import { queryBody } from '../../api/body.ts';
import type { Engine, RequestBody, RequestContext, Route } from '../../api/types.ts';
import { parseCallsQuery } from './request.ts';
import { prepareCallsQuery } from './run.ts';

export const callsStreamQueryRoute: Route = {
  path: '/calls/stream_query',
  method: 'POST',
  body: 'json',
  run(engine: Engine, body: RequestBody, ctx: RequestContext) {
    const req = parseCallsQuery(queryBody(body), engine.options.fieldPrefix);
    ctx.authorize(req.project_id);
    return { kind: 'stream', lines: prepareCallsQuery(engine, req, (p) => ctx.canRead(p)) };
  },
};
