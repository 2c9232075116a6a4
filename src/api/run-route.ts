/**
 * How every front end runs a route: `route.run`, with one guard. A request nested deeply
 * enough (a query of thousands of `$not`s, an input thousands of arrays deep) exhausts the
 * stack in a recursive step; that is the client's doing, so it is a 400, not a 500.
 */
import { TqError } from '../core/errors.ts';
import type { PathParams } from './route-path.ts';
import type { Engine, RequestBody, RequestContext, Route, RouteResult } from './types.ts';

export function runRoute(route: Route, engine: Engine, body: RequestBody, ctx: RequestContext, params: PathParams = {}): RouteResult {
  try {
    return route.run(engine, body, ctx, params);
  } catch (e) {
    if (e instanceof RangeError && /call stack/i.test(e.message)) throw new TqError('TQ_TOO_DEEP');
    throw e;
  }
}
