/**
 * How every front end runs a route: `route.run`, with one guard. A request nested deeply
 * enough (a query of thousands of `$not`s, an input thousands of arrays deep) exhausts the
 * stack in a recursive step; that is the client's doing, so it is a 400, not a 500.
 */
import { TqError, TransportError } from '../core/errors.ts';
import { findRoute } from './routes.ts';
import type { Engine, RequestBody, RequestContext, Route, RouteResult } from './types.ts';

export function runRoute(route: Route, engine: Engine, body: RequestBody, ctx: RequestContext): RouteResult {
  try {
    return route.run(engine, body, ctx);
  } catch (e) {
    if (e instanceof RangeError && /call stack/i.test(e.message)) throw new TqError('TQ_TOO_DEEP');
    throw e;
  }
}

/**
 * Runs the route at `path` (`/calls/stream_query`, ...) on a body as a client would send it:
 * JSON text, or a RequestBody (multipart routes take `{kind: 'multipart', ...}`). An unknown
 * path is the 404 the HTTP server answers.
 */
export function runPath(engine: Engine, path: string, body: string | RequestBody, ctx: RequestContext): RouteResult {
  const route = findRoute(path);
  if (route === undefined) throw new TransportError('TQ_NOT_FOUND', { reason: 'Not Found' });
  return runRoute(route, engine, typeof body === 'string' ? { kind: 'text', text: body } : body, ctx);
}
