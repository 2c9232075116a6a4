/**
 * The HTTP front end: finds the route, authenticates, reads the body, runs the route and
 * writes its JSON or JSONL result.
 *
 * Order of checks for a request: unknown path 404, CORS preflight (with --cors), wrong method
 * 405 (with `Allow`), credentials 401 (all but `GET /health`), body over the limit 413, then
 * the route itself (422 / 400 / 403 / 200). Routes validate everything before they return, so every
 * error is a status and a JSON body sent before the first byte of a stream
 * (semantics.md#errors-422, semantics.md#errors-400, semantics.md#errors-422-field,
 * semantics.md#auth-401, semantics.md#errors-transport). Paths are matched exactly (a query string
 * is ignored): the semantics reference names no normalisation, so `//calls/stream_query` (what a
 * trailing slash in WF_TRACE_SERVER_URL produces) is a 404, as in Starlette's routing. Request
 * bodies are taken as JSON whatever their Content-Type; a multipart route reads multipart/form-data
 * and sees no fields for any other type.
 */
import { runPreparedRoute, runRoute } from '../api/run-route.ts';
import { findRoute } from '../routes.ts';
import { routesForPath, type PathParams } from '../api/route-path.ts';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Engine, RequestBody, RequestContext, Route } from '../api/types.ts';
import { invalidRequest, RequestSchemaError, TqError, tqError, TransportError } from '../core/errors.ts';
import { projectIdProblem } from '../core/project-id.ts';
import { isTestControlPath } from '../write/test-control.ts';
import { DOUBLE_SLASH_REASON, queryParams, schemaErrorBody, withoutTracesPrefix } from './weave-compat.ts';
import type { WriteRunner } from '../journal/durable-writes.ts';
import { WWW_AUTHENTICATE, type Users } from './basic-auth.ts';
import { bodyStillComing, BUSY_RETRY_AFTER_SECONDS, ClientGoneError, defaultDrainBounds, discardBody, expectsContinue, readBody, type DrainBounds } from './body-reader.ts';
import { BodyBudget, TakeTurns } from './body-budget.ts';
import { pumpChunks } from './jsonl-stream.ts';
import { MultipartError, multipartBoundary, parseMultipart } from './multipart.ts';
import { corsOriginAllowed } from './cors.ts';
import { createInjector, type Injector } from './inject.ts';
import { OffLoop, OffLoopUnavailable, PreparedRefusal } from './off-loop.ts';
import { countBytes, countLines, logEntry, newStats, observeContext, type RequestLogEntry, type RequestStats } from './request-log.ts';
import type { ViewerAssets } from './viewer-assets.ts';
import { applySocketLimits, DEFAULT_SOCKET_LIMITS, markAuthenticated, socketServerOptions, type SocketLimits } from './socket-limits.ts';

export const DEFAULT_MAX_BODY_BYTES = 32 * 1024 * 1024;

/** The default bound on body bytes read and processed at once: four bodies of the largest size. */
export const defaultMaxBodyBytesInFlight = (maxBodyBytes: number) => 4 * maxBodyBytes;

/**
 * Bodies from this size on run their route one at a time (src/server/body-budget.ts, TakeTurns),
 * and a split route prepares them in a worker thread (src/server/off-loop.ts).
 */
export const TAKE_TURNS_FROM_BYTES = 1024 * 1024;

/** How long a preflight result may be cached by a browser. */
const CORS_MAX_AGE_SECONDS = 600;

export interface TqServerOptions {
  engine: Engine;
  routes: readonly Route[];
  users: Users;
  /** Largest request body accepted; larger is a 413. */
  maxBodyBytes?: number;
  /**
   * Body bytes read and processed at once across all connections (default 4 × maxBodyBytes);
   * a request that does not fit is a 503 with Retry-After, answered before its body is read.
   */
  maxBodyBytesInFlight?: number;
  /**
   * An answer sent before the body was read (401, 403, 404, 413, 503, ...) is followed by reading
   * and discarding the rest of the body within these bounds, so a client still sending receives
   * it; past them the connection is cut (default: 2 × maxBodyBytes, 10 s; body-reader.ts).
   */
  earlyAnswerDrain?: DrainBounds;
  /** Answer CORS preflights and add CORS headers for allowed origins (src/server/cors.ts). */
  cors?: boolean;
  /** Origins allowed besides the loopback ones (`--cors-origin`). */
  corsOrigins?: readonly string[];
  /** When given, receives the stack of every 500 and of every stream that fails midway. */
  log?: (message: string) => void;
  /** When given, receives one entry per request once its response is complete or abandoned. */
  requestLog?: (entry: RequestLogEntry) => void;
  /** Latency and error injection (`--delay`, `Prefer: code=…/delay=…`); default: Prefer only. */
  inject?: Injector;
  /** Runs the `mutates` routes (tq serve --data: answered once journaled and fsync'd). */
  writes?: WriteRunner;
  /** Time and count bounds of connections (src/server/socket-limits.ts); defaults for those not given. */
  socketLimits?: Partial<SocketLimits>;
  /** Serve HTTPS with this certificate and key (PEM) instead of HTTP. */
  tls?: { cert: Buffer | string; key: Buffer | string };
  /** Serve Weave's mock control plane (/test/*), without credentials (src/write/test-control.ts). */
  testControl?: boolean;
  /** Run by the legacy call writes: throws for a project in calls_complete mode (src/server/weave-compat.ts). */
  assertLegacyCallWrite?: (projectId: string) => void;
  /** The trace viewer's page and files at `/` and `/ui/` (docs/viewer.md); none when not given. */
  viewer?: ViewerAssets;
}

export interface TqServer {
  server: Server;
  /** Starts listening; resolves with the bound address (port 0 picks a free port). */
  listen(host: string, port: number): Promise<{ host: string; port: number }>;
  /** Stops accepting connections, lets in-flight requests (streams included) finish. */
  close(): Promise<void>;
  /** Serves `next` from now on; requests already running finish on the engine they started with. */
  swapEngine(next: Engine): void;
}

const JSON_TYPE = 'application/json';
const JSONL_TYPE = 'application/jsonl';

/** The path of a request target, without its query string; not normalised. */
function pathOf(url: string | undefined): string {
  const target = url ?? '/';
  const q = target.search(/[?#]/);
  return q < 0 ? target : target.slice(0, q);
}

/** Does `/health` stay open without credentials (semantics.md#auth-basic)? */
const isPublic = (route: Route) => route.method === 'GET' && route.path === '/health';

const internalError = () => tqError('TQ_INTERNAL');

/** The request headers a binary route reads (single values; repeated headers joined by Node). */
function headersFor(req: IncomingMessage, route: Route): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of route.headers ?? []) {
    const value = req.headers[name];
    if (typeof value === 'string') out[name] = value;
  }
  return out;
}

/**
 * The credentials of a request: its Authorization header, or on routes that take production's
 * `wandb-api-key` header, that key as the password of user `api` (as the Weave SDK's Basic auth).
 */
function authorizationOf(req: IncomingMessage, route: Route): string | undefined {
  const key = req.headers['wandb-api-key'];
  if (req.headers.authorization !== undefined || !route.apiKeyHeader || typeof key !== 'string') return req.headers.authorization;
  return `Basic ${Buffer.from(`api:${key}`, 'utf8').toString('base64')}`;
}

export function createTqServer(options: TqServerOptions): TqServer {
  const { users, cors = false, log, requestLog, testControl = false, assertLegacyCallWrite } = options;
  // The control plane wipes data: it exists only when asked for.
  const routes = testControl ? options.routes : options.routes.filter((r) => !isTestControlPath(r.path));
  let engine = options.engine;
  const inject = options.inject ?? createInjector(undefined);
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const budget = new BodyBudget(options.maxBodyBytesInFlight ?? defaultMaxBodyBytesInFlight(maxBodyBytes));
  const turns = new TakeTurns();
  const offLoop = new OffLoop();
  const drainBounds = options.earlyAnswerDrain ?? defaultDrainBounds(maxBodyBytes);
  /** Connections whose unread body is being discarded after an early answer. */
  let draining = 0;
  /** Requests with `Expect: 100-continue` that were told `100 Continue` (their body is coming). */
  const continued = new WeakSet<IncomingMessage>();
  /** Whether `req` asked `Expect: 100-continue` and was not told to send its body yet (so holds it back). */
  const awaitingContinue = (req: IncomingMessage) => expectsContinue(req) && !continued.has(req);

  /** Responses not yet complete; graceful close waits for them. */
  const inFlight = new Set<ServerResponse>();
  let closing = false;

  function allowOf(candidates: Route[]): string {
    const methods: string[] = candidates.map((r) => r.method);
    if (cors) methods.push('OPTIONS');
    return [...new Set(methods)].join(', ');
  }

  function corsHeaders(req: IncomingMessage, res: ServerResponse): void {
    if (!cors) return;
    const origin = req.headers.origin;
    if (origin === undefined) {
      res.setHeader('Access-Control-Allow-Origin', '*');
      return;
    }
    res.setHeader('Vary', 'Origin');
    // An origin not on the allow-list gets no CORS header: the browser keeps the answer from it.
    if (!corsOriginAllowed(origin, options.corsOrigins)) return;
    // Echo the origin (not `*`) so a browser may send the Authorization header with it.
    res.setHeader('Access-Control-Allow-Origin', origin);
    res.setHeader('Access-Control-Allow-Credentials', 'true');
  }

  function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}, serialised?: string): void {
    const text = serialised ?? JSON.stringify(body);
    for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
    const req = res.req;
    if (!bodyStillComing(req)) {
      res.writeHead(status, { 'Content-Type': JSON_TYPE, 'Content-Length': Buffer.byteLength(text) });
      res.end(text);
      return;
    }
    // Answered before the body was read: closing now would make the kernel reset the connection
    // under the unread bytes, and a client still sending would see EPIPE or ECONNRESET instead
    // of this answer. So the answer goes out whole at once, the rest of the body is read and
    // dropped within bounds, and only then is the response ended (and the connection closed).
    res.setHeader('Connection', 'close');
    res.writeHead(status, { 'Content-Type': JSON_TYPE, 'Content-Length': Buffer.byteLength(text) });
    // A client waiting for `100 Continue` (which it will not get) holds its body back: nothing
    // is left unread. Past the drain bound, enough bodies are being drained already. Either way:
    // answer and close at once.
    if (awaitingContinue(req) || draining >= drainBounds.connections) {
      res.end(text);
      return;
    }
    draining++;
    res.write(text);
    void discardBody(req, drainBounds).then((whole) => {
      draining--;
      res.end();
      // Past the bounds (or gone): cut off.
      if (!whole) res.destroy();
    });
  }

  function sendError(res: ServerResponse, error: TqError, extra: Record<string, string> = {}): void {
    const headers = { ...extra };
    if (error.status === 401) headers['WWW-Authenticate'] = WWW_AUTHENTICATE;
    const body = error instanceof RequestSchemaError ? schemaErrorBody(error, engine.options.fieldPrefix) : error.body();
    sendJson(res, error.status, body, headers);
  }

  function preflight(req: IncomingMessage, res: ServerResponse, candidates: Route[]): void {
    res.setHeader('Access-Control-Allow-Methods', allowOf(candidates));
    res.setHeader(
      'Access-Control-Allow-Headers',
      req.headers['access-control-request-headers'] ?? 'Authorization, Content-Type',
    );
    res.setHeader('Access-Control-Max-Age', String(CORS_MAX_AGE_SECONDS));
    // Private Network Access: a public page's preflight to a private address asks for this; it
    // is granted only to an allowed origin (Chrome then sends the request).
    if (req.headers['access-control-request-private-network'] === 'true' && res.hasHeader('Access-Control-Allow-Origin') && req.headers.origin !== undefined) {
      res.setHeader('Access-Control-Allow-Private-Network', 'true');
    }
    res.writeHead(204);
    res.end();
  }

  /** The body as the route takes it (`bytes`: the body read, for every route but a 'none' one). */
  function requestBodyOf(req: IncomingMessage, route: Route, bytes: Buffer): RequestBody {
    if (route.body === 'none') return { kind: 'text', text: '' };
    if (route.body === 'binary') return { kind: 'binary', bytes, headers: headersFor(req, route) };
    if (route.body === 'json') return { kind: 'text', text: bytes.toString('utf8') };
    const boundary = multipartBoundary(req.headers['content-type']);
    // Not multipart at all: no fields, so the route reports what is missing (FastAPI: 422).
    if (boundary === undefined) return { kind: 'multipart', fields: new Map(), files: new Map() };
    try {
      return { kind: 'multipart', ...parseMultipart(bytes, boundary) };
    } catch (e) {
      // Starlette's wording for a body its multipart parser rejects.
      if (e instanceof MultipartError) throw invalidRequest('TQ_INVALID_REQUEST', { reason: 'There was an error parsing the body' });
      throw e;
    }
  }

  /** A file of the viewer (no credentials: the page holds no data, it reads through the API). */
  function sendViewer(req: IncomingMessage, res: ServerResponse, viewer: ViewerAssets, path: string): void {
    const { status, headers, body } = viewer.answer(req.method, path);
    res.writeHead(status, { ...headers, 'Content-Length': typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength });
    res.end(req.method === 'HEAD' ? undefined : body);
  }

  /** Runs the route and writes its result; returns once the response is complete or abandoned. */
  async function respond(req: IncomingMessage, res: ServerResponse, route: Route, ctx: RequestContext, params: PathParams, stats: RequestStats): Promise<void> {
    // The body's bytes count against the budget from before they are read until the route has
    // answered (parsing and validating them is what costs memory).
    const reservation = budget.reserve();
    let result;
    // A large body of a split route is parsed, validated and digested in the worker; only
    // its store step runs here. (findRoute: the worker knows the routes by their path.) Its
    // bytes are read into shared memory, so handing them to the worker copies nothing.
    const splitRoute = route.prepare !== undefined && (route.body === 'json' || route.body === 'binary') && findRoute(route.path) === route;
    try {
      const bytes = route.body === 'none' ? Buffer.alloc(0) : await readBody(req, maxBodyBytes, budget, reservation, () => {
            // Only now, with the credentials, the route and the declared size accepted, is a
            // client that asked `Expect: 100-continue` told to send its body.
            if (awaitingContinue(req)) {
              continued.add(req);
              res.writeContinue();
            }
          }, splitRoute ? TAKE_TURNS_FROM_BYTES : Infinity);
      const runOnLoop = () => {
        const body = requestBodyOf(req, route, bytes);
        return route.mutates && options.writes ? options.writes.runWrite(route, body, ctx, params) : runRoute(route, engine, body, ctx, params);
      };
      const run = async () => {
        // The engine of the request's turn: it finishes there, even if swapEngine runs meanwhile.
        const current = engine;
        if (!splitRoute) return runOnLoop();
        let prepared;
        try {
          prepared = await offLoop.prepare(route.path, bytes, current.options.fieldPrefix, params, route.body === 'binary' ? headersFor(req, route) : undefined);
        } catch (e) {
          if (e instanceof OffLoopUnavailable) return runOnLoop();
          throw e;
        }
        // Receiving the prepared request (its structured clone) took a turn of its own: requests
        // waiting meanwhile are answered before the store step takes the next one.
        await new Promise((resolve) => setImmediate(resolve));
        if (route.mutates && options.writes) return options.writes.runWrite(route, requestBodyOf(req, route, bytes), ctx, params, prepared);
        return runPreparedRoute(route, current, prepared, ctx, params);
      };
      // A large body waits its turn, so requests waiting meanwhile are answered between two.
      result = bytes.length >= TAKE_TURNS_FROM_BYTES ? await turns.run(run) : await runOnLoop();
    } finally {
      reservation.release();
    }
    if (result.kind === 'json') {
      // The text when the route wrote it: its value is then not read (a route may build it only on demand).
      sendJson(res, 200, result.text === undefined ? result.body : undefined, {}, result.text);
      return;
    }
    if (result.kind === 'bytes') {
      res.writeHead(200, { 'Content-Type': result.contentType, 'Content-Length': result.bytes.byteLength });
      res.end(result.bytes);
      return;
    }
    const it = result.chunks[Symbol.iterator]();
    const chunks = requestLog ? countLines(it, stats) : it;
    // Pull the first chunk before the headers: a failure there is still a clean error status.
    const first = chunks.next();
    if (first.done) {
      res.writeHead(200, { 'Content-Type': JSONL_TYPE, 'Content-Length': 0 });
      res.end();
      return;
    }
    res.writeHead(200, { 'Content-Type': JSONL_TYPE });
    try {
      await pumpChunks(res, chunks, first.value);
    } catch (e) {
      // The status is already sent: cut the connection so the client sees a truncated body,
      // never a short result that looks complete.
      log?.(`stream failed mid-response on ${req.method} ${req.url}: ${(e as Error)?.stack ?? String(e)}`);
      res.destroy();
    }
  }

  async function handle(req: IncomingMessage, res: ServerResponse, stats: RequestStats): Promise<void> {
    // Set first, so every answer (errors included) carries them.
    corsHeaders(req, res);
    const path = pathOf(req.url);
    if (options.viewer?.owns(path)) return sendViewer(req, res, options.viewer, path);
    const bare = withoutTracesPrefix(path);
    const found = routesForPath(routes, path) ?? (bare === undefined ? null : routesForPath(routes, bare));
    if (!found) {
      // Not read: the body (if any) is discarded within bounds after the answer (sendJson).
      return sendError(res, new TransportError('TQ_NOT_FOUND', { reason: path.includes('//') ? DOUBLE_SLASH_REASON : 'Not Found' }));
    }
    const candidates = found.routes;
    if (cors && req.method === 'OPTIONS') return preflight(req, res, candidates);
    const route = candidates.find((r) => r.method === req.method);
    if (!route) return sendError(res, new TransportError('TQ_METHOD_NOT_ALLOWED'), { Allow: allowOf(candidates) });
    const open = isPublic(route) || (testControl && isTestControlPath(route.path));
    // Credentials are checked before a byte of the body is read: a request without them costs
    // no body memory, and its connection may give way to others (socket-limits.ts).
    const authenticated: RequestContext = open ? { userId: '', authorize() {}, canRead: () => true } : users.authenticate(authorizationOf(req, route));
    if (!open) markAuthenticated(req.socket);
    const ctx: RequestContext = assertLegacyCallWrite ? { ...authenticated, assertLegacyCallWrite } : authenticated;
    const injected = await inject.apply(req.headers.prefer);
    if (injected) return sendError(res, injected);
    const params = route.query ? { ...queryParams(route, req.url), ...found.params } : found.params;
    // A project named by the path is checked before the body is read (a valid id only: a bad
    // one is the route's 400, semantics.md#project-ids).
    const observed = observeContext(ctx, stats);
    const pathProjectId = route.pathProject?.(params);
    if (pathProjectId !== undefined && projectIdProblem(pathProjectId) === null) observed.authorize(pathProjectId);
    await respond(req, res, route, observed, params, stats);
  }

  function onRequest(req: IncomingMessage, res: ServerResponse): void {
    const started = performance.now();
    const stats = newStats();
    if (requestLog) countBytes(res, stats);
    inFlight.add(res);
    if (closing) res.setHeader('Connection', 'close');
    res.on('close', () => {
      inFlight.delete(res);
      requestLog?.(logEntry(req.method, pathOf(req.url), res, stats, started));
      // A response that ends during a graceful close leaves an idle keep-alive socket behind;
      // it counts as idle once Node has finished with it, hence the deferral.
      if (closing) setImmediate(() => server.closeIdleConnections());
    });
    handle(req, res, stats).catch((e: unknown) => {
      if (e instanceof ClientGoneError || res.destroyed) return;
      if (res.headersSent) {
        res.destroy();
        return;
      }
      // Refused in the off-loop worker: its answer, already rendered.
      if (e instanceof PreparedRefusal) return sendJson(res, e.status, undefined, {}, e.text);
      if (e instanceof TqError) {
        // Over the body limit, or no room: the connection is closed once the rest of the
        // body has been discarded (sendJson), never kept for a next request.
        if (e.status === 413) res.setHeader('Connection', 'close');
        if (e.code === 'TQ_SERVER_BUSY') {
          res.setHeader('Retry-After', String(BUSY_RETRY_AFTER_SECONDS));
          res.setHeader('Connection', 'close');
        }
        return sendError(res, e);
      }
      log?.(`internal error on ${req.method} ${req.url}: ${(e as Error)?.stack ?? String(e)}`);
      sendError(res, internalError());
    }).catch(() => {
      // Even the error answer failed: cut this connection rather than the process.
      res.destroy();
    });
  }

  const socketLimits = { ...DEFAULT_SOCKET_LIMITS, ...options.socketLimits };
  const server: Server = options.tls
    ? (createTlsServer({ ...socketServerOptions(socketLimits), cert: options.tls.cert, key: options.tls.key }, onRequest) as unknown as Server)
    : createServer(socketServerOptions(socketLimits), onRequest);
  applySocketLimits(server, socketLimits);
  // With a listener here Node no longer answers `Expect: 100-continue` by itself: the request
  // goes through every 'request' listener, and `100 Continue` is sent only when its body is
  // wanted (respond), so a refused client never sends it.
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => server.emit('request', req, res));

  return {
    server,
    listen(host, port) {
      return new Promise((resolve, reject) => {
        const onError = (e: Error) => reject(e);
        server.once('error', onError);
        server.listen(port, host, () => {
          server.off('error', onError);
          const address = server.address() as AddressInfo;
          resolve({ host: address.address, port: address.port });
        });
      });
    },
    swapEngine(next) {
      engine = next;
    },
    close() {
      closing = true;
      void offLoop.close();
      // Responses that have not started yet will close their connection when done.
      for (const res of inFlight) if (!res.headersSent) res.setHeader('Connection', 'close');
      return new Promise((resolve) => {
        if (!server.listening) {
          resolve();
          return;
        }
        server.close(() => resolve());
        server.closeIdleConnections();
      });
    },
  };
}
