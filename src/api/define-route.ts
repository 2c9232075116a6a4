/**
 * The one way to define a route. Every route does the same three steps in the same order:
 * validate the whole body into a typed request (422 for the model, 400 for value checks),
 * authorize every project the request names (400 for a malformed id, 403 without a grant), and
 * only then run. `defineRoute` does the first two, so a route states its body kind, how its
 * request is read (a model, typed by `Infer`, or a parser), where its projects are, what it
 * does, and what kind of answer it gives; nothing reaches `run` unvalidated or unauthorized.
 */
import { losslessBody, plainBody, queryBody } from './body.ts';
import type { PathParams } from './route-path.ts';
import type { Engine, FieldPrefix, RequestBody, RequestContext, Route, RouteResult, StreamResult } from './types.ts';
import { stringifyExact } from '../core/json/exact.ts';
import { toPlain, type LosslessValue } from '../core/json/lossless.ts';
import { validateBody, type Schema } from '../core/schema.ts';

/**
 * How the body is read before validation: `plain` JSON (big integers kept), `lossless` (the
 * parts that feed a digest keep `1` vs `1.0`, semantics.md#digest-lossless; the model sees the
 * plain form), `query` (a `query` holding an `$expr` keeps its number lexemes), `none` (no
 * body), or, handed to `parse` as received, `multipart` (a form) and `binary` (raw bytes).
 */
export type BodyKind = 'plain' | 'lossless' | 'query' | 'none' | 'multipart' | 'binary';

/**
 * What `run` returns: `json`, the answer's value (the front end serialises it); `exact-json`,
 * the same serialised here so that values holding big integers keep every digit; `stream`, a
 * StreamResult (api/line-stream.ts); `result`, a RouteResult the route built (bytes, or JSON
 * text it wrote itself to keep stored number spellings).
 */
export type AnswerKind = 'json' | 'exact-json' | 'stream' | 'result';

/** What `run` gets besides the request. */
export interface RouteCall {
  engine: Engine;
  ctx: RequestContext;
  /** The values of the path's `{name}` segments (empty for exact paths). */
  params: PathParams;
  /** The body parsed losslessly, for `body: 'lossless'` routes (the parts that feed a digest are read from here). */
  lossless: LosslessValue | undefined;
}

interface Answers {
  json: unknown;
  'exact-json': unknown;
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
  answer: A;
  run: (req: R, call: RouteCall) => Answers[A];
}

/** A route whose request is a model's value (`Infer` of the model), optionally refined by checks beyond it. */
export interface ModelRouteSpec<T, R, A extends AnswerKind> extends Steps<R, A> {
  body: 'plain' | 'lossless' | 'query';
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

const HTTP_BODY: Record<BodyKind, Route['body']> = { plain: 'json', lossless: 'json', query: 'json', none: 'none', multipart: 'multipart', binary: 'binary' };

/** The body as the route's kind reads it, and its lossless form when it has one. */
function readBody(kind: BodyKind, body: RequestBody): { value: unknown; lossless: LosslessValue | undefined } {
  switch (kind) {
    case 'plain':
      return { value: plainBody(body), lossless: undefined };
    case 'lossless': {
      const lossless = losslessBody(body);
      return { value: toPlain(lossless), lossless };
    }
    case 'query':
      return { value: queryBody(body), lossless: undefined };
    case 'none':
      return { value: undefined, lossless: undefined };
    case 'multipart':
    case 'binary':
      return { value: body, lossless: undefined };
  }
}

function answerOf(kind: AnswerKind, value: unknown): RouteResult {
  switch (kind) {
    case 'json':
      return { kind: 'json', body: value };
    case 'exact-json':
      return exactJson(value);
    case 'stream':
    case 'result':
      return value as RouteResult;
  }
}

/** A JSON answer written here, so that values holding big integers (object `val`s) keep every digit. */
const exactJson = (body: unknown): RouteResult => ({ kind: 'json', body, text: stringifyExact(body) });

/** The routes defineRoute built (a guard test checks that every served route is one). */
const defined = new WeakSet<Route>();
export const isDefinedRoute = (route: Route): boolean => defined.has(route);

export function defineRoute<T, R, A extends AnswerKind>(spec: ModelRouteSpec<T, R, A> & { refine: (req: T) => R }): Route;
export function defineRoute<T, A extends AnswerKind>(spec: ModelRouteSpec<T, T, A>): Route;
export function defineRoute<R, A extends AnswerKind>(spec: ParsedRouteSpec<R, A>): Route;
export function defineRoute<T, R, A extends AnswerKind>(spec: ModelRouteSpec<T, R, A> | ParsedRouteSpec<R, A>): Route {
  const request: (value: unknown, prefix: FieldPrefix, params: PathParams, userId: string) => R =
    'parse' in spec
      ? spec.parse
      : (value, prefix) => {
          const req = validateBody(spec.model(prefix), value);
          return spec.refine ? spec.refine(req) : (req as unknown as R);
        };
  const route: Route = {
    path: spec.path,
    ...(spec.mutates ? { mutates: true as const } : {}),
    method: spec.method ?? 'POST',
    body: HTTP_BODY[spec.body],
    ...(spec.headers ? { headers: spec.headers } : {}),
    ...(spec.apiKeyHeader ? { apiKeyHeader: spec.apiKeyHeader } : {}),
    ...(spec.query ? { query: spec.query } : {}),
    run(engine, body, ctx, params = {}) {
      const { value, lossless } = readBody(spec.body, body);
      const req = request(value, engine.options.fieldPrefix, params, ctx.userId);
      const projects = spec.project(req, params);
      for (const projectId of typeof projects === 'string' ? [projects] : projects) ctx.authorize(projectId);
      return answerOf(spec.answer, spec.run(req, { engine, ctx, params, lossless }));
    },
  };
  defined.add(route);
  return route;
}
