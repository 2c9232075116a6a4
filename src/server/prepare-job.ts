/**
 * What the off-loop worker (prepare-worker.mjs, started by off-loop.ts) does with one request:
 * the first half of a split route (Route.prepare: parse, validate, digest), from the body's
 * bytes (as text for a JSON route; as bytes with the headers it reads for a binary one). A refusal (a TqError: 422, 400) comes back as the status and JSON text the server
 * would send for it, so the event loop does no work for a refused body either.
 */
import { prepareRoute } from '../api/run-route.ts';
import type { FieldPrefix, PreparedRequest, RequestBody } from '../api/types.ts';
import { RequestSchemaError, TqError } from '../core/errors.ts';
import { findRoute } from '../routes.ts';
import { schemaErrorBody } from './weave-compat.ts';

export interface PrepareJob {
  id: number;
  path: string;
  bytes: Uint8Array;
  prefix: FieldPrefix;
  params: Record<string, string>;
  /** A binary route's request headers (Route.headers): the body is its bytes and these. */
  headers?: Record<string, string>;
}

export type PrepareOutcome =
  | { id: number; kind: 'prepared'; prepared: PreparedRequest }
  | { id: number; kind: 'refused'; status: number; text: string }
  // Anything else (a bug): the server runs the route on the event loop, which reports it as usual.
  | { id: number; kind: 'failed'; message: string };

export function runPrepareJob(job: PrepareJob): PrepareOutcome {
  const route = findRoute(job.path);
  try {
    if (!route?.prepare) throw new Error(`${job.path} is not a split route`);
    const body: RequestBody =
      route.body === 'binary'
        ? { kind: 'binary', bytes: job.bytes, headers: job.headers ?? {} }
        : { kind: 'text', text: Buffer.from(job.bytes.buffer, job.bytes.byteOffset, job.bytes.byteLength).toString('utf8') };
    return { id: job.id, kind: 'prepared', prepared: prepareRoute(route, body, job.prefix, job.params) };
  } catch (e) {
    if (e instanceof TqError) {
      const body = e instanceof RequestSchemaError ? schemaErrorBody(e, job.prefix) : e.body();
      return { id: job.id, kind: 'refused', status: e.status, text: JSON.stringify(body) };
    }
    return { id: job.id, kind: 'failed', message: e instanceof Error ? e.message : String(e) };
  }
}
