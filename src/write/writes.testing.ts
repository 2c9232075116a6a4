/**
 * Shared by the write-path tests: an engine with a fixed clock and counting ids, and a way to
 * call a route with a raw body and get either its JSON result or its error (status + body).
 */
import { runRoute } from '../api/run-route.ts';
import type { Engine, FieldPrefix, RequestBody, RequestContext } from '../api/types.ts';
import { TqError, tqError } from '../core/errors.ts';
import { createEngine } from '../engine.ts';
import { writeRoutes } from './routes.ts';

export const NOW_US = 1_717_243_200_000_000; // 2024-06-01T12:00:00Z

export function testEngine(fieldPrefix: FieldPrefix = 'svc_'): Engine {
  let n = 0;
  return createEngine(undefined, { fieldPrefix, now: () => NOW_US, newId: () => `id-${++n}` });
}

/** A context whose user may touch every project but `x/forbidden`; records what it authorized. */
export function testContext(userId = 'alice'): RequestContext & { authorized: string[] } {
  const authorized: string[] = [];
  return {
    userId,
    authorized,
    authorize(projectId: string) {
      if (projectId === 'x/forbidden') throw tqError('TQ_PROJECT_FORBIDDEN', { user: userId, project: projectId });
      authorized.push(projectId);
    },
    canRead: (projectId: string) => projectId !== 'x/forbidden',
  };
}

export type Outcome = { status: 200; body: unknown } | { status: number; body: Record<string, unknown> };

/** Runs the route at `path` on a text body (or a given RequestBody). */
export function call(engine: Engine, path: string, body: string | unknown | RequestBody, ctx: RequestContext = testContext()): Outcome {
  const route = writeRoutes.find((r) => r.path === path);
  if (!route) throw new Error(`no route ${path}`);
  const request: RequestBody =
    typeof body === 'string'
      ? { kind: 'text', text: body }
      : body !== null && typeof body === 'object' && 'kind' in body && (body as RequestBody).kind === 'multipart'
        ? (body as RequestBody)
        : { kind: 'text', text: JSON.stringify(body) };
  try {
    const result = runRoute(route, engine, request, ctx);
    if (result.kind !== 'json') throw new Error('write routes answer JSON');
    return { status: 200, body: result.body };
  } catch (e) {
    if (e instanceof TqError) return { status: e.status, body: e.body() };
    throw e;
  }
}

/** A CallTable column value, whether the column is a plain array or a sparse column with get(). */
export function cell<T>(column: ArrayLike<T> | { get(row: number): T | null }, row: number): T | null {
  return 'get' in column && typeof column.get === 'function' ? column.get(row) : (column as ArrayLike<T>)[row];
}
