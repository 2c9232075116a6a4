/**
 * A Target that runs cases in-process: it finds the route in the engine's static route table
 * and calls it with the body as text (so digest routes see `1.0` as sent) and a
 * RequestContext for the case's user. Transport behaviour (credentials on the wire, unknown
 * paths, methods, body limits, headers) does not exist here, so cases tagged `transport` are
 * skipped with that reason.
 */
import { runRoute } from '../api/run-route.ts';
import { allRoutes } from '../routes.ts';
import { routesForPath, type PathParams } from '../api/route-path.ts';
import type { Engine, RequestBody, RequestContext, Route } from '../api/types.ts';
import { PermissionDeniedError, TqError } from '../core/errors.ts';
import { createEngine } from '../engine.ts';
import type { CaseRequest, ConformanceCase } from './case.ts';
import { TRANSPORT_TAG, type Target, type TargetResponse } from './target.ts';
import { otlpRequestBytes, otlpResponseJson, PROTOBUF_TYPE } from './otlp-request.ts';

export interface EngineTargetOptions {
  /** Default: a fresh `createEngine()` (svc_ prefix). */
  engine?: Engine;
  /** The main user's name; default `conformance`. */
  user?: string;
  /** The user with no grant on any case project; default `outsider`. */
  otherUser?: string;
}

const JSON_HEADERS = { 'content-type': 'application/json' };

function requestBody(req: CaseRequest, route: Route): RequestBody {
  if (route.body === 'binary') {
    // What the HTTP server hands a raw-bytes route: the bytes and the headers it reads.
    const sent: Record<string, string> = { ...(req.otlp !== undefined ? { 'content-type': PROTOBUF_TYPE } : { 'content-type': 'application/json' }) };
    for (const [name, value] of Object.entries(req.headers ?? {})) sent[name.toLowerCase()] = value;
    const headers = Object.fromEntries((route.headers ?? []).filter((h) => h in sent).map((h) => [h, sent[h]]));
    const text = req.body_text ?? (req.body !== undefined ? JSON.stringify(req.body) : '');
    return { kind: 'binary', bytes: req.otlp !== undefined ? otlpRequestBytes(req.otlp) : new TextEncoder().encode(text), headers };
  }
  if (req.multipart !== undefined) {
    const fields = new Map<string, string>();
    const files = new Map<string, Uint8Array>();
    for (const [name, value] of Object.entries(req.multipart)) {
      if (typeof value === 'string') fields.set(name, value);
      else files.set(name, new TextEncoder().encode(value.file));
    }
    return { kind: 'multipart', fields, files };
  }
  if (req.body_text !== undefined) return { kind: 'text', text: req.body_text };
  if (req.body !== undefined) return { kind: 'text', text: JSON.stringify(req.body) };
  return { kind: 'text', text: '' };
}

function errorResponse(e: unknown): TargetResponse {
  if (e instanceof TqError) return { status: e.status, headers: JSON_HEADERS, json: e.body() };
  const note = e instanceof Error ? (e.stack ?? e.message) : String(e);
  return { status: 500, headers: JSON_HEADERS, json: { reason: 'Internal server error' }, note: `in-process 500: ${note}` };
}

/** Runs one route; JSON bodies go through JSON text, as they would on the wire. */
function targetResponse(engine: Engine, route: Route, body: RequestBody, ctx: RequestContext, params?: PathParams): TargetResponse {
  try {
    const result = runRoute(route, engine, body, ctx, params);
    if (result.kind === 'json') {
      const text = result.text ?? JSON.stringify(result.body);
      return { status: 200, headers: JSON_HEADERS, ...(text === undefined ? {} : { json: JSON.parse(text), raw: text }) };
    }
    if (result.kind === 'bytes') {
      if (result.contentType === PROTOBUF_TYPE) return { status: 200, headers: { 'content-type': result.contentType }, json: otlpResponseJson(result.bytes) };
      return { status: 200, headers: { 'content-type': result.contentType }, text: new TextDecoder().decode(result.bytes) };
    }
    const lines: unknown[] = [];
    let raw = '';
    for (const line of result.lines) {
      lines.push(JSON.parse(line));
      raw += line.endsWith('\n') ? line : line + '\n';
    }
    return { status: 200, headers: { 'content-type': 'application/jsonl' }, lines, raw };
  } catch (e) {
    return errorResponse(e);
  }
}

export function createEngineTarget(opts: EngineTargetOptions = {}): Target & { engine: Engine } {
  const engine = opts.engine ?? createEngine();
  const user = opts.user ?? 'conformance';
  const otherUser = opts.otherUser ?? 'outsider';
  return {
    name: 'in-process',
    engine,
    fieldPrefix: engine.options.fieldPrefix,
    user,
    skipReason(c: ConformanceCase): string | undefined {
      if (c.tags.includes(TRANSPORT_TAG)) {
        return 'transport-level behaviour (credentials on the wire, routing, methods, headers) needs HTTP';
      }
      return undefined;
    },
    async send(req: CaseRequest): Promise<TargetResponse> {
      const auth = req.auth ?? 'user';
      if (auth !== 'user' && auth !== 'other') {
        throw new Error(`in-process target cannot send auth ${JSON.stringify(auth)}; tag the case '${TRANSPORT_TAG}'`);
      }
      const found = routesForPath(allRoutes(), req.path);
      const route = found?.routes.find((r) => r.method === (req.method ?? 'POST')) ?? found?.routes[0];
      if (route === undefined) return { status: 404, headers: JSON_HEADERS, json: { reason: `Not Found: ${req.path}` } };
      if ((req.method ?? 'POST') !== route.method) return { status: 405, headers: JSON_HEADERS, json: { reason: 'Method Not Allowed' } };
      const userId = auth === 'other' ? otherUser : user;
      const ctx: RequestContext = {
        userId,
        authorize(projectId: string): void {
          if (auth === 'other') throw new PermissionDeniedError('TQ_PROJECT_FORBIDDEN', { user: userId, project: projectId });
        },
        canRead: () => auth !== 'other',
      };
      return targetResponse(engine, route, requestBody(req, route), ctx, found?.params);
    },
  };
}
