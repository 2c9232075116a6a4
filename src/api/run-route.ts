/**
 * How every front end (HTTP server, CLI, in-process conformance target) runs a route, and so
 * the one place for the checks every route needs, present and future:
 * - the body's nesting depth, before anything parses or recurses into it (400);
 * - the project id's form (DECISIONS 21): `ctx.authorize(p)` answers a malformed id with a 400
 *   before the grant check, and `ctx.canRead(p)` is false for it (refs never reach it);
 * - a stack overflow in a recursive step that the depth bound did not foresee is still the
 *   client's doing: 400, not a 500.
 */
import { invalidRequest, TqError } from '../core/errors.ts';
import { MAX_BODY_DEPTH, textDepthExceeded, valueDepthExceeded } from '../core/json/depth.ts';
import { projectIdProblem, showProjectId } from '../core/project-id.ts';
import type { Engine, RequestBody, RequestContext, Route, RouteResult } from './types.ts';

/** @throws TqError TQ_BODY_TOO_DEEP when the body nests deeper than MAX_BODY_DEPTH. */
export function checkBodyDepth(body: RequestBody): void {
  if (body.kind === 'text') {
    const offset = textDepthExceeded(body.text);
    if (offset >= 0) throw invalidRequest('TQ_BODY_TOO_DEEP', { max: MAX_BODY_DEPTH, where: ` (at character ${offset})` });
  } else if (body.kind === 'value' && valueDepthExceeded(body.value)) {
    throw invalidRequest('TQ_BODY_TOO_DEEP', { max: MAX_BODY_DEPTH, where: '' });
  }
}

/** `ctx` with the project-id validation in front of its grant checks. */
export function validatingContext(ctx: RequestContext): RequestContext {
  // Spread: whatever else a front end puts in its context reaches the route unchanged.
  return {
    ...ctx,
    authorize(projectId: string): void {
      const problem = projectIdProblem(projectId);
      if (problem !== null) throw invalidRequest('TQ_INVALID_PROJECT_ID', { project: showProjectId(projectId), reason: problem });
      ctx.authorize(projectId);
    },
    canRead: (projectId: string) => projectIdProblem(projectId) === null && ctx.canRead(projectId),
  };
}

export function runRoute(route: Route, engine: Engine, body: RequestBody, ctx: RequestContext): RouteResult {
  checkBodyDepth(body);
  try {
    return route.run(engine, body, validatingContext(ctx));
  } catch (e) {
    if (e instanceof RangeError && /call stack/i.test(e.message)) throw new TqError('TQ_TOO_DEEP');
    throw e;
  }
}
