/**
 * The contract between the engine and its front ends (CLI, HTTP server, in-process test
 * runner). A front end finds a Route by path, hands it the raw body and a RequestContext, and
 * either writes the JSON result or streams the lines. Every check a route makes happens inside
 * `run`, before it returns: a returned stream never fails validation halfway.
 */
import type { Store } from '../store/store.ts';

/**
 * The wire spelling of the user/run fields (semantics.md#wire-prefix). The engine is parameterised
 * by it.
 */
export type FieldPrefix = 'svc_' | 'wb_';

export interface EngineOptions {
  fieldPrefix: FieldPrefix;
  /** Clock for server-assigned timestamps (created_at); injectable for tests. */
  now: () => number;
  /** Id generator for server-assigned ids (UUIDv7-shaped by default). */
  newId: () => string;
}

export interface Engine {
  store: Store;
  options: EngineOptions;
}

/** Who is asking, and what they may touch. */
export interface RequestContext {
  /**
   * The authenticated user name (fills `svc_user_id` when a write omits it;
   * semantics.md#writes-user-id).
   */
  userId: string;
  /** Throws PermissionDeniedError (403) when the user has no grant on the project. */
  authorize(projectId: string): void;
  /**
   * Whether the user holds a grant on a project, without throwing: for everything read on the
   * user's behalf beyond the request's own project (refs into other projects;
   * semantics.md#auth-grants-refs).
   */
  canRead(projectId: string): boolean;
  /**
   * Called by the legacy call writes (`/call/start`, `/call/end`, `/call/upsert_batch`) for each
   * project they write, after its grant and before anything is written: throws
   * CallsCompleteModeRequiredError (400) when `tq serve` keeps that project in calls_complete
   * mode. Absent: every project takes legacy writes.
   */
  assertLegacyCallWrite?(projectId: string): void;
}

/** The `{name}` segments of a templated route path (route-path.ts matches them), by name. */
export type PathParams = Readonly<Record<string, string>>;

/**
 * A request body as the front end received it. Routes that compute digests parse `text`
 * losslessly (so `1` and `1.0` stay distinct); others use JSON.parse. Multipart routes get
 * their fields already split.
 */
export type RequestBody =
  | { kind: 'text'; text: string }
  // A JS value already in hand (tests). Front ends never use it: the CLI, the HTTP server and
  // the conformance runner all pass `text`, which the route parses once.
  | { kind: 'value'; value: unknown }
  | { kind: 'multipart'; fields: Map<string, string>; files: Map<string, Uint8Array> }
  // The raw bytes of a `body: 'binary'` route (OTLP protobuf), with the request headers it reads
  // (lower-case names; only those the route's `headers` lists).
  | { kind: 'binary'; bytes: Uint8Array; headers: Readonly<Record<string, string>> };

export type RouteResult =
  /**
   * A JSON body. `text`, when given, is that body already serialised by the route (to keep
   * stored number spellings such as `1.0` exact); front ends send it as it is.
   */
  | { kind: 'json'; body: unknown; text?: string }
  /** JSON Lines, produced lazily as the consumer pulls (see StreamResult). */
  | StreamResult
  /** Raw bytes (`/file/content`), sent with their content type. */
  | { kind: 'bytes'; bytes: Uint8Array; contentType: string };

/**
 * A JSON Lines answer (semantics.md#wire-jsonl). `chunks` is what every front end sends: UTF-8
 * bytes, each chunk one or more whole lines, each line ending in `\n`; a pulled chunk is the
 * consumer's to keep (it may be queued on a socket as it is) but never to change: it may be a
 * view of lines the engine keeps (CallTable.renderedLines). `lines` is the same bytes decoded,
 * one string per line without its newline, for tests and library callers. A stream is read
 * once, through one of the two. Build one with byteStream / lineStream (src/api/line-stream.ts).
 */
export interface StreamResult {
  kind: 'stream';
  chunks: Iterable<Uint8Array>;
  readonly lines: Iterable<string>;
}

export interface Route {
  /** Exact, or a template with `{name}` segments (src/api/route-path.ts). */
  path: string;
  method: 'POST' | 'GET';
  /** What body the route wants; the HTTP server picks its reader from this. */
  body: 'json' | 'multipart' | 'none' | 'binary';
  /** For `binary` routes: the request headers (lower-case names) the route reads. */
  headers?: readonly string[];
  /**
   * Also accept `wandb-api-key: KEY` as the credentials `api:KEY` (Basic), for the routes where
   * production documents that header (the OTLP endpoint).
   */
  apiKeyHeader?: true;
  /** Set on every route that changes the store (the journal of `tq serve --data` records these). */
  mutates?: true;
  /** Query-string parameters the route reads; the HTTP server passes them in `params` (`/test/getCalls?project_id=`). */
  query?: readonly string[];
  /**
   * The project a templated path names (`/v2/{entity}/{project}/...`): the HTTP server checks
   * the grant on it before reading the body, so a caller without one costs no body memory.
   * `run` authorizes it again (every front end).
   */
  pathProject?: (params: PathParams) => string;
  /** `params` holds the values of the path's `{name}` segments (empty for exact paths). */
  run(engine: Engine, body: RequestBody, ctx: RequestContext, params?: PathParams): RouteResult;
  /**
   * A route whose heavy work needs no store may split `run` in two (`run` is then exactly
   * `runPrepared(prepare(…))`): `prepare` parses, validates and derives (digests, stored texts)
   * from the body alone, touching no store and drawing no value, so the HTTP server can run it
   * in a worker thread (src/server/off-loop.ts); `runPrepared` authorizes and writes, on the
   * event loop, in one turn. What `prepare` returns survives structured clone.
   */
  prepare?(body: RequestBody, prefix: FieldPrefix, params: PathParams): PreparedRequest;
  runPrepared?(prepared: PreparedRequest, engine: Engine, ctx: RequestContext, params: PathParams): RouteResult;
}

/** What a split route's `prepare` gives its `runPrepared`: the projects to authorize, and the rest. */
export interface PreparedRequest {
  projects: readonly string[];
  derived: unknown;
}
