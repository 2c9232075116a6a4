/**
 * The one way to define a route. Every route does the same three steps in the same order:
 * validate the whole body into a typed request (422 for the model, 400 for value checks),
 * authorize every project the request names (400 for a malformed id, 403 without a grant), and
 * only then run. `defineRoute` does the first two, so a route states its body kind, how its
 * request is read (a model, typed by `Infer`, or a parser), where its projects are, what it
 * does, and what kind of answer it gives; nothing reaches `run` unvalidated or unauthorized.
 */
import { losslessBody, plainBody, queryBody, spelledBody } from './body.ts';
import type { PathParams } from './route-path.ts';
import type { Engine, FieldPrefix, PreparedRequest, RequestBody, RequestContext, Route, RouteResult, StreamResult } from './types.ts';
import { holdsLosslessNumber, spelledPlain, stringifyExact } from '../core/json/exact.ts';
import { fromPlain, type LosslessValue } from '../core/json/lossless.ts';
import { storedRowText } from '../core/json/stored-text.ts';
import { validateBody, type Schema } from '../core/schema.ts';
import { keepsSpellingNatively } from '../core/json/native-safe.ts';

/**
 * How the body is read before validation: `plain` JSON (big integers kept), `lossless` (the
 * parts that feed a digest keep `1` vs `1.0`, semantics.md#digest-lossless; the model sees
 * plain values in which a float stays as spelled, and `run` can write a part back as the body
 * spelled it, semantics.md#writes-number-spelling), `spelled` (plain values, floats as spelled:
 * a payload stored as sent), `query` (a `query` holding an `$expr` keeps its number lexemes),
 * `none` (no body), or, handed to `parse` as received, `multipart` (a form) and `binary` (raw
 * bytes).
 */
export type BodyKind = 'plain' | 'lossless' | 'spelled' | 'query' | 'none' | 'multipart' | 'binary';

/**
 * What `run` returns: `json`, the answer's value, written here when it holds a number kept as
 * spelled (a stored `1.0`, a big integer), else left to the front end's `JSON.stringify`; `stream`, a
 * StreamResult (api/line-stream.ts); `result`, a RouteResult the route built (bytes, or JSON
 * text it wrote itself to keep stored number spellings).
 */
export type AnswerKind = 'json' | 'stream' | 'result';

/** What `run` gets besides the request. */
export interface RouteCall {
  engine: Engine;
  ctx: RequestContext;
  /** The values of the path's `{name}` segments (empty for exact paths). */
  params: PathParams;
  /** The body parsed losslessly, for `body: 'lossless'` routes (the parts that feed a digest are read from here). */
  lossless: LosslessValue | undefined;
  /**
   * For `body: 'lossless'` routes, the JSON text stored for a part of the validated request (a
   * call's inputs, its summary): a part the model passed on unchanged is written from the body
   * as sent (key order, numbers as Python's `json.dumps` spells them after `json.loads`:
   * semantics.md#writes-number-spelling); what the model rebuilt from its values.
   */
  storedText: ((part: unknown) => string) | undefined;
}

interface Answers {
  json: unknown;
  stream: StreamResult;
  result: RouteResult;
}

interface Steps<R, A extends AnswerKind> {
  path: string;
  /** POST unless said. */
  method?: 'POST' | 'GET';
  body: BodyKind;
  /** Whether the route changes the store (the journal of `tq serve --data` records those). */
  mutates: boolean;
  /** Query-string parameters the route reads (GET routes); they arrive in `params`. */
  query?: readonly string[];
  /** For `binary` routes: the request headers (lower-case names) the route reads. */
  headers?: readonly string[];
  /** Also accept `wandb-api-key: KEY` as the credentials `api:KEY` (the OTLP endpoint). */
  apiKeyHeader?: true;
  /** The projects the request names, each authorized (in order) before `run`; none: `[]`. */
  project: (req: R, params: PathParams) => string | readonly string[];
  /** The project the path names, when it does (Route.pathProject): also authorized before the body is read. */
  pathProject?: (params: PathParams) => string;
  answer: A;
  run: (req: R, call: RouteCall) => Answers[A];
}

/** A route whose request is a model's value (`Infer` of the model), optionally refined by checks beyond it. */
export interface ModelRouteSpec<T, R, A extends AnswerKind> extends Steps<R, A> {
  body: 'plain' | 'lossless' | 'spelled' | 'query';
  /** The request model for the engine's field prefix. */
  model: (prefix: FieldPrefix) => Schema<T>;
  /** Checks beyond the model (400s), made before authorization; gives the request `run` wants. */
  refine?: (req: T) => R;
}

/**
 * A route whose request a parser reads: the parsed JSON body (`undefined` for `none`), or the
 * RequestBody itself for `multipart` and `binary`; `userId` is who asks (an OTLP export's
 * calls are planned with their user before their projects are authorized).
 */
export interface ParsedRouteSpec<R, A extends AnswerKind> extends Steps<R, A> {
  parse: (body: unknown, prefix: FieldPrefix, params: PathParams, userId: string) => R;
}

/** What a split route's `derive` reads besides the validated request. */
export interface DeriveSource {
  /** The body parsed losslessly (parsed on first read: a route that needs no digest never pays for it). */
  readonly lossless: LosslessValue | undefined;
  /** The JSON text stored for a part of the request, as RouteCall.storedText (undefined: JSON of its value). */
  readonly storedText: ((part: unknown) => string) | undefined;
}

/**
 * A `lossless` model route split in two (Route.prepare / Route.runPrepared): `derive` computes,
 * from the validated (and refined) request and the body alone, what `run` stores (digests,
 * stored texts), so that it can run off the event loop. `derive` reads no store, draws no value,
 * never throws a client error (those belong to the model, `refine`, or `run`), and returns plain
 * data (structured-clone safe; src/api/packed-strings.ts for many strings). `run` gets its result.
 */
export interface DerivedRouteSpec<T, R, D, A extends AnswerKind> extends Omit<Steps<R, A>, 'run'> {
  body: 'lossless';
  model: (prefix: FieldPrefix) => Schema<T>;
  /** Checks beyond the model (400s), made before authorization; gives the request `derive` wants. */
  refine?: (req: T) => R;
  derive: (req: R, source: DeriveSource) => D;
  run: (derived: D, call: RouteCall) => Answers[A];
}

/**
 * A parser route split in two, as DerivedRouteSpec splits a model route: `parse` reads the body
 * as received (a binary body's bytes and headers; all its refusals: 4xx) and `derive` computes
 * from the parsed request what `run` stores, so both can run off the event loop. Unlike
 * ParsedRouteSpec's, this `parse` is not told who asks: neither half may depend on the user,
 * read a store or draw a value, and `derive` throws no client error (a refusal that must come
 * after authorization travels in its result, for `run` to give). `run` gets that result after
 * the projects `project` names from the parsed request are authorized.
 */
export interface DerivedParsedRouteSpec<R, D, A extends AnswerKind> extends Omit<Steps<R, A>, 'run'> {
  parse: (body: unknown, prefix: FieldPrefix, params: PathParams) => R;
  derive: (req: R) => D;
  run: (derived: D, call: RouteCall) => Answers[A];
}

const HTTP_BODY: Record<BodyKind, Route['body']> = { plain: 'json', lossless: 'json', spelled: 'json', query: 'json', none: 'none', multipart: 'multipart', binary: 'binary' };

/** JSON.parse of a body, or NOT_NATIVE when it does not parse (the exact path then reports it). */
const NOT_NATIVE = Symbol('not native');
function nativeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return NOT_NATIVE;
  }
}

const NO_LOSSLESS = (): undefined => undefined;

interface ReadBody {
  value: unknown;
  /** The body parsed losslessly (lossless routes), read when `run` asks for it. */
  lossless: () => LosslessValue | undefined;
  /** Each plain container of `value` mapped back to the body's (lossless routes). */
  origins: Map<object, LosslessValue> | undefined;
}

/** The body as the route's kind reads it, and its lossless form when it has one. */
function readBody(kind: BodyKind, body: RequestBody): ReadBody {
  switch (kind) {
    case 'plain':
      return { value: plainBody(body), lossless: NO_LOSSLESS, origins: undefined };
    case 'lossless': {
      // Most bodies hold no number or key whose spelling the native parser would lose: those are
      // read by it, and their parts stored as JSON.stringify writes them (the call table's
      // default); the exact reading, for a route that wants it (a digest), only on demand.
      const native = body.kind === 'text' && keepsSpellingNatively(body.text) ? nativeParse(body.text) : NOT_NATIVE;
      if (native !== NOT_NATIVE) return { value: native, lossless: () => losslessBody(body), origins: undefined };
      const lossless = losslessBody(body);
      // A float or a big integer stays a LosslessNumber in the plain value: a number the model
      // keeps is then stored as written, one it converts (an int field's `5.0`) as converted.
      // A Map, dropped with the request: much cheaper to fill than a WeakMap.
      const origins = new Map<object, LosslessValue>();
      return { value: spelledPlain(lossless, origins), lossless: () => lossless, origins };
    }
    case 'spelled':
      return { value: spelledBody(body), lossless: NO_LOSSLESS, origins: undefined };
    case 'query':
      return { value: queryBody(body), lossless: NO_LOSSLESS, origins: undefined };
    case 'none':
      return { value: undefined, lossless: NO_LOSSLESS, origins: undefined };
    case 'multipart':
    case 'binary':
      return { value: body, lossless: NO_LOSSLESS, origins: undefined };
  }
}

function answerOf(kind: AnswerKind, value: unknown): RouteResult {
  switch (kind) {
    case 'json':
      return holdsLosslessNumber(value) ? exactJson(value) : { kind: 'json', body: value };
    case 'stream':
    case 'result':
      return value as RouteResult;
  }
}

/** A JSON answer written here, so that numbers kept as spelled (big integers, stored `1.0`) stay so. */
const exactJson = (body: unknown): RouteResult => ({ kind: 'json', body, text: stringifyExact(body) });

/** What the HTTP server reads of a route before running it (everything but `run` and its halves). */
function routeShape(spec: Omit<Steps<unknown, AnswerKind>, 'project' | 'run' | 'answer'>): Omit<Route, 'run'> {
  return {
    path: spec.path,
    ...(spec.mutates ? { mutates: true as const } : {}),
    method: spec.method ?? 'POST',
    body: HTTP_BODY[spec.body],
    ...(spec.headers ? { headers: spec.headers } : {}),
    ...(spec.apiKeyHeader ? { apiKeyHeader: spec.apiKeyHeader } : {}),
    ...(spec.query ? { query: spec.query } : {}),
    ...(spec.pathProject ? { pathProject: spec.pathProject } : {}),
  };
}

/** The routes defineRoute built (a guard test checks that every served route is one). */
const defined = new WeakSet<Route>();
export const isDefinedRoute = (route: Route): boolean => defined.has(route);

export function defineRoute<T, R, D, A extends AnswerKind>(spec: DerivedRouteSpec<T, R, D, A> & { refine: (req: T) => R }): Route;
export function defineRoute<T, D, A extends AnswerKind>(spec: DerivedRouteSpec<T, T, D, A>): Route;
export function defineRoute<T, R, A extends AnswerKind>(spec: ModelRouteSpec<T, R, A> & { refine: (req: T) => R }): Route;
export function defineRoute<T, A extends AnswerKind>(spec: ModelRouteSpec<T, T, A>): Route;
export function defineRoute<R, D, A extends AnswerKind>(spec: DerivedParsedRouteSpec<R, D, A>): Route;
export function defineRoute<R, A extends AnswerKind>(spec: ParsedRouteSpec<R, A>): Route;
export function defineRoute<T, R, A extends AnswerKind>(
  spec: ModelRouteSpec<T, R, A> | ParsedRouteSpec<R, A> | DerivedRouteSpec<T, R, unknown, A> | DerivedParsedRouteSpec<R, unknown, A>,
): Route {
  if ('derive' in spec) return 'model' in spec ? defineDerivedRoute(spec) : defineDerivedParsedRoute(spec);
  const request: (value: unknown, prefix: FieldPrefix, params: PathParams, userId: string) => R =
    'parse' in spec
      ? spec.parse
      : (value, prefix) => {
          const req = validateBody(spec.model(prefix), value);
          return spec.refine ? spec.refine(req) : (req as unknown as R);
        };
  const route: Route = {
    ...routeShape(spec),
    run(engine, body, ctx, params = {}) {
      const { value, lossless, origins } = readBody(spec.body, body);
      const req = request(value, engine.options.fieldPrefix, params, ctx.userId);
      const projects = spec.project(req, params);
      for (const projectId of typeof projects === 'string' ? [projects] : projects) ctx.authorize(projectId);
      const storedText = origins !== undefined ? (part: unknown) => storedRowText(fromPlain(part, origins)) : undefined;
      let exact: LosslessValue | undefined | null = null;
      const call: RouteCall = {
        engine,
        ctx,
        params,
        get lossless() {
          if (exact === null) exact = lossless();
          return exact;
        },
        storedText,
      };
      return answerOf(spec.answer, spec.run(req, call));
    },
  };
  defined.add(route);
  return route;
}

/**
 * A `GET` route with no body and no project of its own (`/health`, `/server_info`,
 * `/tq/projects`): `run` answers JSON from the engine and the caller's context; a route that lists
 * projects filters them itself through `ctx.canRead`.
 */
export function defineBodilessGet(path: string, run: (call: RouteCall) => unknown): Route {
  return defineRoute({ path, method: 'GET', body: 'none', mutates: false, answer: 'json', parse: () => undefined, project: () => [], run: (_req, call) => run(call) });
}

function defineDerivedRoute<T, R, D, A extends AnswerKind>(spec: DerivedRouteSpec<T, R, D, A>): Route {
  const prepare = (body: RequestBody, prefix: FieldPrefix, params: PathParams): PreparedRequest => {
    const { value, lossless, origins } = readBody(spec.body, body);
    const valid = validateBody(spec.model(prefix), value);
    const req = spec.refine ? spec.refine(valid) : (valid as unknown as R);
    const projects = spec.project(req, params);
    let exact: LosslessValue | undefined | null = null;
    const source: DeriveSource = {
      get lossless() {
        if (exact === null) exact = lossless();
        return exact;
      },
      storedText: origins !== undefined ? (part: unknown) => storedRowText(fromPlain(part, origins)) : undefined,
    };
    return { projects: typeof projects === 'string' ? [projects] : projects, derived: spec.derive(req, source) };
  };
  return splitRoute(spec, prepare);
}

function defineDerivedParsedRoute<R, D, A extends AnswerKind>(spec: DerivedParsedRouteSpec<R, D, A>): Route {
  const prepare = (body: RequestBody, prefix: FieldPrefix, params: PathParams): PreparedRequest => {
    const req = spec.parse(readBody(spec.body, body).value, prefix, params);
    const projects = spec.project(req, params);
    return { projects: typeof projects === 'string' ? [projects] : projects, derived: spec.derive(req) };
  };
  return splitRoute(spec, prepare);
}

/** A split route from its first half: the second authorizes the projects, then runs. */
function splitRoute<D, A extends AnswerKind>(
  spec: Omit<Steps<unknown, A>, 'run' | 'project'> & { run: (derived: D, call: RouteCall) => Answers[A] },
  prepare: NonNullable<Route['prepare']>,
): Route {
  const runPrepared = (prepared: PreparedRequest, engine: Engine, ctx: RequestContext, params: PathParams): RouteResult => {
    for (const projectId of prepared.projects) ctx.authorize(projectId);
    const call: RouteCall = { engine, ctx, params, lossless: undefined, storedText: undefined };
    return answerOf(spec.answer, spec.run(prepared.derived as D, call));
  };
  const route: Route = {
    ...routeShape(spec),
    prepare,
    runPrepared,
    // The same two steps in one go: every front end gets the answer the split path gives.
    run: (engine, body, ctx, params = {}) => runPrepared(prepare(body, engine.options.fieldPrefix, params), engine, ctx, params),
  };
  defined.add(route);
  return route;
}
