/**
 * Running a route by its path, as a library caller does (the HTTP server matches methods and
 * credentials first; the CLI knows its route). Kept apart from run-route.ts so the CLI does not
 * load every route's module to run one.
 */
import { TransportError } from '../core/errors.ts';
import { runRoute } from './run-route.ts';
import { findRoute } from '../routes.ts';
import type { Engine, RequestBody, RequestContext, RouteResult } from './types.ts';

/**
 * Runs the route at `path` (`/calls/stream_query`, ...) on a body as a client would send it:
 * JSON text, or a RequestBody (`{kind: 'multipart', ...}` for /file/create). An unknown
 * path is the 404 the HTTP server answers.
 */
export function runPath(engine: Engine, path: string, body: string | RequestBody, ctx: RequestContext): RouteResult {
  const route = findRoute(path);
  if (route === undefined) throw new TransportError('TQ_NOT_FOUND', { reason: 'Not Found' });
  return runRoute(route, engine, typeof body === 'string' ? { kind: 'text', text: body } : body, ctx);
}
