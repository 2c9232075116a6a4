/**
 * A POST route with a JSON body and a JSON answer, the shape of most Weave endpoints: the
 * handler gets the parsed body (plain JSON unless `parse` says otherwise, e.g. a body whose
 * `query` keeps its number spellings) and returns the answer.
 */
import { stringifyExact } from '../core/json/exact.ts';
import { plainBody } from './body.ts';
import type { PathParams } from './route-path.ts';
import type { Engine, RequestBody, RequestContext, Route } from './types.ts';

export interface JsonRouteOptions {
  /** The route changes the store (the journal records it). */
  mutates?: true;
  parse?: (body: RequestBody) => unknown;
}

export function jsonRoute(
  path: string,
  answer: (engine: Engine, body: unknown, ctx: RequestContext, params: PathParams) => unknown,
  options: JsonRouteOptions = {},
): Route {
  const parse = options.parse ?? plainBody;
  return {
    path,
    ...(options.mutates ? { mutates: true as const } : {}),
    method: 'POST',
    body: 'json',
    run: (engine, body, ctx, params = {}) => {
      const result = answer(engine, parse(body), ctx, params);
      // Written here so that a LosslessNumber in the answer (a big integer, a stored `1.0`) keeps its spelling.
      return { kind: 'json', body: result, text: stringifyExact(result) };
    },
  };
}
