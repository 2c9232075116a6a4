/**
 * For route tests: run the route serving a path (templates included) on a body and get its
 * JSON answer, its lines, or its error as status + body, as a front end would send them.
 */
import { TqError, tqError } from '../core/errors.ts';
import { routesForPath } from './route-path.ts';
import { allRoutes } from '../routes.ts';
import { runRoute } from './run-route.ts';
import type { Engine, RequestBody, RequestContext } from './types.ts';

export type RouteOutcome =
  | { status: 200; body?: unknown; lines?: unknown[]; bytes?: Uint8Array; contentType?: string }
  | { status: number; body: Record<string, unknown> };

/** An all-granting context, except for the projects in `denied`. */
export function grantingContext(userId = 'alice', denied: readonly string[] = []): RequestContext {
  return {
    userId,
    authorize(projectId) {
      if (denied.includes(projectId)) throw tqError('TQ_PROJECT_FORBIDDEN', { user: userId, project: projectId });
    },
    canRead: (projectId) => !denied.includes(projectId),
  };
}

export function callRoute(engine: Engine, path: string, body: unknown, ctx: RequestContext = grantingContext()): RouteOutcome {
  const found = routesForPath(allRoutes(), path);
  if (!found) throw new Error(`no route ${path}`);
  const request: RequestBody = typeof body === 'string' ? { kind: 'text', text: body } : { kind: 'text', text: JSON.stringify(body) };
  try {
    const result = runRoute(found.routes[0], engine, request, ctx, found.params);
    if (result.kind === 'json') return { status: 200, body: JSON.parse(result.text ?? JSON.stringify(result.body)) };
    if (result.kind === 'bytes') return { status: 200, bytes: result.bytes, contentType: result.contentType };
    return { status: 200, lines: [...result.lines].map((l) => JSON.parse(l)) };
  } catch (e) {
    if (e instanceof TqError) return { status: e.status, body: e.body() };
    throw e;
  }
}
