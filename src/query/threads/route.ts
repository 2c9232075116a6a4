/**
 * `/threads/stream_query` (semantics.md#wire-routes, semantics.md#threads-request): validated in
 * full, statistics computed, then lines produced lazily. Every error is raised before the stream
 * starts (semantics.md#errors-before-stream).
 */
import { byteStream, rowChunks } from '../../api/line-stream.ts';
import { plainBody } from '../../api/body.ts';
import type { Engine, RequestBody, RequestContext, Route, RouteResult } from '../../api/types.ts';
import { parseThreadsQuery } from './request.ts';
import { queryThreads } from './run.ts';
import { ThreadLineWriter } from './thread-line.ts';

export const threadsStreamQueryRoute: Route = {
  path: '/threads/stream_query',
  method: 'POST',
  body: 'json',
  run(engine: Engine, body: RequestBody, ctx: RequestContext): RouteResult {
    const req = parseThreadsQuery(plainBody(body));
    ctx.authorize(req.project_id);
    const threads = queryThreads(engine, req);
    const lines = new ThreadLineWriter();
    return byteStream(rowChunks(threads, (t, w) => lines.write(w, t)));
  },
};

export const threadsRoutes: Route[] = [threadsStreamQueryRoute];
