/**
 * `POST /otel/v1/traces` (semantics.md#otel-endpoint): an OTLP/HTTP trace export becomes calls.
 * Production takes protobuf (`application/x-protobuf`); tq also takes OTLP/JSON
 * (`application/json`) as an extension. Credentials as on every route (Basic), plus production's
 * `wandb-api-key` header. The whole export is checked (415/413/400 for the body, 400 for a
 * missing or malformed project, 403 without a grant on every project it writes to) before the
 * first call is stored; the answer is production's (partial success when spans are rejected),
 * in the request's format.
 */
import { defineRoute } from '../api/define-route.ts';
import type { RequestBody, RouteResult } from '../api/types.ts';
import { decodeBody, exportResponse, formatOf, inflateBody, MAX_INFLATED_BYTES, planExport, prepareExport, storeExport } from './export.ts';

const OTEL_TRACES_PATH = '/otel/v1/traces';

/** The request headers the route reads (and the journal keeps, and the off-loop worker gets). */
const HEADERS = ['content-type', 'content-encoding', 'project_id'] as const;

/**
 * A split route (define-route.ts DerivedParsedRouteSpec): for a large body the server runs
 * `parse` and `derive` (inflate, decode, convert every span, the answer) in its worker
 * (src/server/off-loop.ts), and only `run` (the grant checks, the op objects, the stores) on
 * the event loop.
 */
export const otelTracesRoute = defineRoute({
  path: OTEL_TRACES_PATH,
  body: 'binary',
  headers: HEADERS,
  apiKeyHeader: true,
  mutates: true,
  answer: 'result',
  parse(raw) {
    const body = raw as RequestBody;
    // Front ends that only send text (the library's runPath, the CLI) reach here with OTLP/JSON.
    const text = body.kind === 'text' ? body.text : body.kind === 'value' ? JSON.stringify(body.value) : '';
    const bytes = body.kind === 'binary' ? body.bytes : new TextEncoder().encode(text);
    const headers: Record<string, string | undefined> = body.kind === 'binary' ? body.headers : { 'content-type': 'application/json' };
    const format = formatOf(headers['content-type']);
    const inflated = inflateBody(bytes, headers['content-encoding'], MAX_INFLATED_BYTES);
    const request = decodeBody(inflated, format);
    return { format, plan: planExport(request, headers.project_id) };
  },
  project: ({ plan }) => plan.projects,
  // The answer is decided by the body alone: rejected spans are known before anything is stored.
  derive: ({ format, plan }) => ({ answer: exportResponse(plan, format), prepared: prepareExport(plan) }),
  run({ answer, prepared }, { engine, ctx }): RouteResult {
    storeExport(engine, prepared, ctx.userId);
    return 'json' in answer ? { kind: 'json', body: answer.json } : { kind: 'bytes', bytes: answer.bytes, contentType: 'application/x-protobuf' };
  },
});
