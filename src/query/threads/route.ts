/**
 * `/threads/stream_query` (semantics.md#wire-routes, semantics.md#threads-request): validated in
 * full, statistics computed, then lines produced lazily. Every error is raised before the stream
 * starts (semantics.md#errors-before-stream).
 */
import { byteStream, rowChunks } from '../../api/line-stream.ts';
import { defineRoute } from '../../api/define-route.ts';
import type { Route } from '../../api/types.ts';
import { parseThreadsQuery } from './request.ts';
import { queryThreads } from './run.ts';
import { ThreadLineWriter } from './thread-line.ts';

export const threadsStreamQueryRoute = defineRoute({
  path: '/threads/stream_query',
  body: 'plain',
  mutates: false,
  answer: 'stream',
  parse: (body) => parseThreadsQuery(body),
  project: (req) => req.project_id,
  run(req, { engine }) {
    const threads = queryThreads(engine, req);
    const lines = new ThreadLineWriter();
    return byteStream(rowChunks(threads, (t, w) => lines.write(w, t)));
  },
});

export const threadsRoutes: Route[] = [threadsStreamQueryRoute];
