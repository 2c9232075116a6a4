/**
 * `/calls/stream_query` (semantics.md#wire-routes, semantics.md#calls-request-model): the body read
 * with its `query` lossless, validated in full and planned, then lines produced lazily. Every
 * error is raised before the stream starts (semantics.md#errors-before-stream).
 */
import { defineRoute } from '../../api/define-route.ts';
import { byteStream } from '../../api/line-stream.ts';
import { parseCallsQuery } from './request.ts';
import { prepareCallsQuery } from './run.ts';

export const callsStreamQueryRoute = defineRoute({
  path: '/calls/stream_query',
  body: 'query',
  mutates: false,
  answer: 'stream',
  parse: parseCallsQuery,
  project: (req) => req.project_id,
  run: (req, { engine, ctx }) => byteStream(prepareCallsQuery(engine, req, (p) => ctx.canRead(p))),
});
