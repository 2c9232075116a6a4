/**
 * How every front end (HTTP server, CLI, in-process conformance target) runs a route, and so
 * the one place for the checks every route needs, present and future:
 * - the body's nesting depth, before anything parses or recurses into it (400);
 * - the project id's form (semantics.md#project-ids): `ctx.authorize(p)` answers a malformed id
 *   with a 400 before the grant check, and `ctx.canRead(p)` is false for it (refs never reach it);
 * - a stack overflow in a recursive step that the depth bound did not foresee is still the
 *   client's doing: 400, not a 500.
 */
import { invalidRequest, TqError, tqError } from '../core/errors.ts';
import { MAX_BODY_DEPTH, textDepthExceeded, valueDepthExceeded } from '../core/json/depth.ts';
import { projectIdProblem, showProjectId } from '../core/project-id.ts';
import { byteStream } from './line-stream.ts';
import type { PathParams } from './route-path.ts';
import type { Engine, FieldPrefix, PreparedRequest, RequestBody, RequestContext, Route, RouteResult } from './types.ts';

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

/** A stack overflow is the client's doing (400); anything else passes through. */
function clientDepthError(e: unknown): unknown {
  return e instanceof RangeError && /call stack/i.test(e.message) ? tqError('TQ_TOO_DEEP') : e;
}

/**
 * The same guard while a stream is pulled: rendering can nest deeper than any body (an
 * expanded ref puts an object below a call). A plain iterator, not a generator: this runs per chunk.
 */
function guardedChunks(chunks: Iterable<Uint8Array>): Iterable<Uint8Array> {
  return {
    [Symbol.iterator](): Iterator<Uint8Array> {
      const it = chunks[Symbol.iterator]();
      return {
        next() {
          try {
            return it.next();
          } catch (e) {
            throw clientDepthError(e);
          }
        },
        return(value?: unknown) {
          return it.return ? it.return(value) : { done: true, value: undefined };
        },
      };
    },
  };
}

export function runRoute(route: Route, engine: Engine, body: RequestBody, ctx: RequestContext, params: PathParams = {}): RouteResult {
  checkBodyDepth(body);
  let result: RouteResult;
  try {
    result = route.run(engine, body, validatingContext(ctx), params);
  } catch (e) {
    throw clientDepthError(e);
  }
  return result.kind === 'stream' ? byteStream(guardedChunks(result.chunks)) : result;
}

/**
 * The first half of a split route (Route.prepare), with the checks runRoute makes before it:
 * pure, so a front end may run it in a worker thread (src/server/off-loop.ts).
 */
export function prepareRoute(route: Route, body: RequestBody, prefix: FieldPrefix, params: PathParams = {}): PreparedRequest {
  if (!route.prepare) throw new Error(`${route.path} is not a split route`);
  checkBodyDepth(body);
  try {
    return route.prepare(body, prefix, params);
  } catch (e) {
    throw clientDepthError(e);
  }
}

/** The second half (Route.runPrepared): authorizes and writes; the answer runRoute gives. */
export function runPreparedRoute(route: Route, engine: Engine, prepared: PreparedRequest, ctx: RequestContext, params: PathParams = {}): RouteResult {
  if (!route.runPrepared) throw new Error(`${route.path} is not a split route`);
  try {
    return route.runPrepared(prepared, engine, validatingContext(ctx), params);
  } catch (e) {
    throw clientDepthError(e);
  }
}
