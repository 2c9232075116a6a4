/**
 * A JSON write route from its request model: every such route validates the whole body (422),
 * makes the value checks pydantic does not (400), authorizes every project the request names
 * (400 for a malformed id, 403 without a grant), and only then writes. `defineRoute` does those
 * steps in that order, so a route states only its model, where its projects are, and what it
 * writes; the request reaches `run` typed by the model (user/run fields under their neutral
 * names, src/core/schema.ts `alias`).
 */
import { losslessBody, plainBody } from '../api/body.ts';
import type { PathParams } from '../api/route-path.ts';
import type { Engine, FieldPrefix, RequestContext, Route, RouteResult } from '../api/types.ts';
import { spelledPlain, stringifyExact } from '../core/json/exact.ts';
import { fromPlain, type LosslessValue } from '../core/json/lossless.ts';
import { validateBody, type Schema } from '../core/schema.ts';
import { storedRowText } from './stored-json.ts';

/** What `run` gets besides the validated request. */
export interface WriteCall {
  engine: Engine;
  ctx: RequestContext;
  /** The values of the path's `{name}` segments (empty for exact paths). */
  params: PathParams;
  /**
   * The body parsed losslessly when the route asked for it (`lossless: true`): the parts that feed
   * a digest are read from here so that `1` and `1.0` stay distinct (semantics.md#digest-lossless).
   */
  lossless: LosslessValue | undefined;
  /**
   * The JSON text a lossless route stores for a part of the validated request (a call's inputs,
   * its summary): a part passed on unchanged is written from the body as sent (key order, every
   * number as Python's `json.dumps` spells it after `json.loads`: semantics.md#writes-number-spelling);
   * what the model rebuilt (a summary's typed keys) is written from its values. Undefined for
   * routes that are not lossless.
   */
  storedText: ((part: unknown) => string) | undefined;
}

interface Steps<R> {
  path: string;
  /** The projects the request names, each authorized (in order) before `run`. */
  project: (req: R, params: PathParams) => string | readonly string[];
  /** Writes (or reads) and returns the JSON answer. */
  run: (req: R, call: WriteCall) => unknown;
  /** Parse the body losslessly (digest-feeding routes); the model still sees its plain form. */
  lossless?: boolean;
  /** False for the routes that only read (the journal records the others). */
  mutates?: boolean;
}

export interface RouteSpec<T> extends Steps<T> {
  /** The request model for the engine's field prefix. */
  model: (prefix: FieldPrefix) => Schema<T>;
}

export interface RefinedRouteSpec<T, R> extends Steps<R> {
  model: (prefix: FieldPrefix) => Schema<T>;
  /** Checks beyond the model (400s), made before authorization; gives the request `run` wants. */
  refine: (req: T) => R;
}

/** A JSON answer written here, so that values holding big integers (object `val`s) keep every digit. */
export const exactJson = (body: unknown): RouteResult => ({ kind: 'json', body, text: stringifyExact(body) });

function build<T, R>(steps: Steps<R>, model: (prefix: FieldPrefix) => Schema<T>, refine: (req: T) => R): Route {
  return {
    path: steps.path,
    ...(steps.mutates === false ? {} : { mutates: true as const }),
    method: 'POST',
    body: 'json',
    run(engine, body, ctx, params = {}) {
      const lossless = steps.lossless ? losslessBody(body) : undefined;
      // The model sees plain values in which a float or a big integer stays a LosslessNumber:
      // a number the model keeps is then stored as written, one it converts (an int field's
      // `5.0`) as converted; `origins` maps each plain container back to the body's (a Map,
      // dropped with the request: much cheaper to fill than a WeakMap).
      const origins = lossless !== undefined ? new Map<object, LosslessValue>() : undefined;
      const plain = lossless !== undefined ? spelledPlain(lossless, origins) : plainBody(body);
      const req = refine(validateBody(model(engine.options.fieldPrefix), plain));
      const projects = steps.project(req, params);
      for (const projectId of typeof projects === 'string' ? [projects] : projects) ctx.authorize(projectId);
      const storedText = origins !== undefined ? (part: unknown) => storedRowText(fromPlain(part, origins)) : undefined;
      return exactJson(steps.run(req, { engine, ctx, params, lossless, storedText }));
    },
  };
}

export function defineRoute<T, R>(spec: RefinedRouteSpec<T, R>): Route;
export function defineRoute<T>(spec: RouteSpec<T>): Route;
export function defineRoute<T, R>(spec: RouteSpec<T> | RefinedRouteSpec<T, R>): Route {
  return 'refine' in spec ? build(spec, spec.model, spec.refine) : build(spec, spec.model, (req: T) => req);
}
