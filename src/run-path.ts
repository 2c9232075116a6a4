/**
 * Running a route by its path, as a library caller does (the HTTP server matches methods and
 * credentials first; the CLI knows its route). Kept apart from run-route.ts so the CLI does not
 * load every route's module to run one. Beside routes.ts, whose table it reads: api/ is the
 * route contract below every route module, so it cannot reach the table.
 */
import { TransportError } from './core/errors.ts';
import { runRoute } from './api/run-route.ts';
import { findRoute } from './routes.ts';
import type { Engine, RequestBody, RequestContext, RouteResult } from './api/types.ts';

/** A RequestBody exactly (not a request object that happens to have a `kind` field). */
function isRequestBody(body: object): body is RequestBody {
  const b = body as Record<string, unknown>;
  const keys = Object.keys(b).sort().join(',');
  if (b.kind === 'text') return keys === 'kind,text' && typeof b.text === 'string';
  if (b.kind === 'value') return keys === 'kind,value';
  if (b.kind === 'multipart') return b.fields instanceof Map && b.files instanceof Map;
  return false;
}

/**
 * Runs the route at `path` (`/calls/stream_query`, ...) on a body as a client would send it:
 * JSON text, a plain JavaScript object (sent as its JSON text, as fetch would), or a RequestBody
 * (`{kind: 'multipart', ...}` for /file/create). No body is an empty one (the route's 422, as
 * over HTTP). An unknown path is the 404 the HTTP server answers.
 */
export function runPath(engine: Engine, path: string, body: string | RequestBody | Record<string, unknown> | undefined, ctx: RequestContext): RouteResult {
  const route = findRoute(path);
  if (route === undefined) throw new TransportError('TQ_NOT_FOUND', { reason: 'Not Found' });
  return runRoute(route, engine, requestBodyOf(body), ctx);
}

function requestBodyOf(body: unknown): RequestBody {
  if (typeof body === 'string') return { kind: 'text', text: body };
  if (body === undefined || body === null) return { kind: 'text', text: body === null ? 'null' : '' };
  if (typeof body === 'object' && isRequestBody(body)) return body;
  let text: string | undefined;
  try {
    text = JSON.stringify(body);
  } catch (e) {
    throw new TypeError(`runPath: the body cannot be sent as JSON (${(e as Error).message}); pass JSON text, a plain object, or a RequestBody`);
  }
  if (text === undefined) throw new TypeError(`runPath: a ${typeof body} is not a request body; pass JSON text, a plain object, or a RequestBody`);
  return { kind: 'text', text };
}
