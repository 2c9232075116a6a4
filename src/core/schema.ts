/**
 * Request-model validation with pydantic v2's lax rules and FastAPI's 422 wording.
 *
 * Weave's request models are pydantic classes; strict ones forbid unknown keys. A conformance
 * oracle must reject exactly what Weave rejects and accept exactly what it accepts (pydantic's
 * lax mode takes `"5"` for an int, `1` for a bool), so each schema here mirrors one pydantic
 * type. Validation collects every issue, then throws one RequestSchemaError.
 */
import { MAX_ISSUES } from './echo.ts';
import { RequestSchemaError, type ValidationIssue } from './errors.ts';
import { LosslessNumber } from './json/lossless.ts';
import { isPlainObject } from './plain-object.ts';

export type Loc = Array<string | number>;

/** Marker returned by a schema that recorded an issue. */
export const INVALID: unique symbol = Symbol('invalid');
type Out<T> = T | typeof INVALID;

export interface Schema<T> {
  /** Validates `value` found at `loc`; records issues and returns INVALID on failure. */
  check(value: unknown, loc: Loc, issues: ValidationIssue[]): Out<T>;
  /** Optional fields are skipped when absent (pydantic default). */
  readonly optional?: boolean;
  /**
   * The key a model reads this field from, when it is not the field's own name (pydantic's
   * `Field(alias=...)`): the wire spelling, which issue locations use too.
   */
  readonly alias?: string;
}

export type Infer<S> = S extends Schema<infer T> ? T : never;

/**
 * The most issues `issues` may hold: MAX_ISSUES for a request's list; less for the scratch list of
 * a union member (`scratchIssues`), which may only use the room its parent has left.
 */
const capOf = (issues: ValidationIssue[]): number => (issues as ScratchIssues).cap ?? MAX_ISSUES;
type ScratchIssues = ValidationIssue[] & { cap?: number };

/** True once `issues` is full: validation stops looking (work and memory stay bounded). */
export const issuesFull = (issues: ValidationIssue[]): boolean => issues.length >= capOf(issues);

/** An empty issue list for a tentative check (a union member) with the room `parent` has left. */
export function scratchIssues(parent: ValidationIssue[]): ValidationIssue[] {
  return Object.assign([] as ValidationIssue[], { cap: Math.max(0, capOf(parent) - parent.length) });
}

/** Moves the issues of a failed tentative check into `parent`, up to its cap. */
export function keepIssues(parent: ValidationIssue[], scratch: readonly ValidationIssue[]): void {
  for (const entry of scratch) {
    if (issuesFull(parent)) return;
    parent.push(entry);
  }
}

/**
 * Records one issue (pydantic's error-dict shape) and returns INVALID. This is the one place an
 * issue is recorded (keepIssues only moves recorded ones): past the cap an issue still fails
 * validation but is not kept (memory).
 */
export function issue(issues: ValidationIssue[], type: string, loc: Loc, msg: string, input: unknown, ctx?: Record<string, unknown>): typeof INVALID {
  if (issuesFull(issues)) return INVALID;
  const entry: ValidationIssue = { type, loc: [...loc], msg, input };
  if (ctx) entry.ctx = ctx;
  issues.push(entry);
  return INVALID;
}

const characters = (n: number) => `${n} character${n === 1 ? '' : 's'}`;

/** `str`, optionally with `Field(min_length=…, max_length=…)` (counted in code points, as Python does). */
export const str = (limits: { minLength?: number; maxLength?: number } = {}): Schema<string> => ({
  check(v, loc, issues) {
    if (typeof v !== 'string') return issue(issues, 'string_type', loc, 'Input should be a valid string', v);
    if (limits.minLength === undefined && limits.maxLength === undefined) return v;
    const length = [...v].length;
    const { minLength: min, maxLength: max } = limits;
    if (min !== undefined && length < min) return issue(issues, 'string_too_short', loc, `String should have at least ${characters(min)}`, v, { min_length: min });
    if (max !== undefined && length > max) return issue(issues, 'string_too_long', loc, `String should have at most ${characters(max)}`, v, { max_length: max });
    return v;
  },
});

const INT_TEXT = /^\s*[+-]?\d+(_\d+)*\s*$/;
export const int = (): Schema<number> => ({
  check(v, loc, issues) {
    if (v instanceof LosslessNumber) v = Number(v.lexeme); // an integer beyond 2^53 (core/json/exact.ts)
    if (typeof v === 'number') {
      if (Number.isInteger(v)) return v;
      if (!Number.isFinite(v)) return issue(issues, 'finite_number', loc, 'Input should be a finite number', v);
      return issue(issues, 'int_from_float', loc, 'Input should be a valid integer, got a number with a fractional part', v);
    }
    if (typeof v === 'boolean') return v ? 1 : 0;
    if (typeof v === 'string') {
      if (INT_TEXT.test(v)) return Number(v.replace(/_/g, ''));
      return issue(issues, 'int_parsing', loc, 'Input should be a valid integer, unable to parse string as an integer', v);
    }
    return issue(issues, 'int_type', loc, 'Input should be a valid integer', v);
  },
});

export const num = (): Schema<number> => ({
  check(v, loc, issues) {
    if (v instanceof LosslessNumber) v = Number(v.lexeme);
    if (typeof v === 'number') return v;
    if (typeof v === 'boolean') return v ? 1 : 0;
    if (typeof v === 'string' && v.trim() !== '' && !Number.isNaN(Number(v))) return Number(v);
    if (typeof v === 'string') return issue(issues, 'float_parsing', loc, 'Input should be a valid number, unable to parse string as a number', v);
    return issue(issues, 'float_type', loc, 'Input should be a valid number', v);
  },
});

const TRUE_TEXT = new Set(['1', 'on', 't', 'true', 'y', 'yes']);
const FALSE_TEXT = new Set(['0', 'off', 'f', 'false', 'n', 'no']);
export const bool = (): Schema<boolean> => ({
  check(v, loc, issues) {
    if (typeof v === 'boolean') return v;
    if (v === 0 || v === 1) return v === 1;
    if (typeof v === 'string') {
      const t = v.trim().toLowerCase();
      if (TRUE_TEXT.has(t)) return true;
      if (FALSE_TEXT.has(t)) return false;
      return issue(issues, 'bool_parsing', loc, 'Input should be a valid boolean, unable to interpret input', v);
    }
    if (typeof v === 'number') return issue(issues, 'bool_parsing', loc, 'Input should be a valid boolean, unable to interpret input', v);
    return issue(issues, 'bool_type', loc, 'Input should be a valid boolean', v);
  },
});

/** Any JSON value (pydantic `Any`). */
export const any = (): Schema<unknown> => ({ check: (v) => v });

/** A JSON object of any keys (pydantic `dict`). */
export const dict = (): Schema<Record<string, unknown>> => ({
  check(v, loc, issues) {
    return isPlainObject(v) ? v : issue(issues, 'dict_type', loc, 'Input should be a valid dictionary', v);
  },
});

export function literal<const T extends string>(values: readonly T[]): Schema<T> {
  const expected = values.map((x) => `'${x}'`).join(values.length === 2 ? ' or ' : ', ');
  const text = values.length > 2 ? expected.replace(/, ([^,]*)$/, ' or $1') : expected;
  return {
    check(v, loc, issues) {
      return typeof v === 'string' && (values as readonly string[]).includes(v)
        ? (v as T)
        : issue(issues, 'literal_error', loc, `Input should be ${text}`, v, { expected: text });
    },
  };
}

/**
 * `list[T]`. `tooLong` (a route's own limit on the count, e.g. 1000 call ids) is checked before
 * any item is validated, so a list of millions of bad items costs one comparison. Items stop being
 * validated once the issue list is full: the answer is a 422 either way, and the work stays bounded.
 */
export function list<T>(item: Schema<T>, tooLong?: { max: number; error: () => Error }): Schema<T[]> {
  return {
    check(v, loc, issues) {
      if (!Array.isArray(v)) return issue(issues, 'list_type', loc, 'Input should be a valid list', v);
      if (tooLong !== undefined && v.length > tooLong.max) throw tooLong.error();
      const out: T[] = [];
      let ok = true;
      for (let i = 0; i < v.length; i++) {
        if (!ok && issuesFull(issues)) return INVALID;
        const r = item.check(v[i], [...loc, i], issues);
        if (r === INVALID) ok = false;
        else out.push(r);
      }
      return ok ? out : INVALID;
    },
  };
}

/** `T | None`: null passes through. */
export function nullable<T>(inner: Schema<T>): Schema<T | null> {
  return { check: (v, loc, issues) => (v === null ? null : inner.check(v, loc, issues)) };
}

/** Marks a field as not required. Absent fields are left out of the result. */
export function optional<T>(inner: Schema<T>): Schema<T | undefined> {
  return { check: (v, loc, issues) => inner.check(v, loc, issues), optional: true };
}

/** Optional and nullable: the common `x: T | None = None` field. */
export const maybe = <T>(inner: Schema<T>) => optional(nullable(inner));

/**
 * A field read from the key `wire` (pydantic's `alias`) but named by its shape key inside: the
 * user/run fields are `svc_user_id` or `wb_user_id` on the wire and `user_id` to the engine.
 */
export function alias<T>(wire: string, inner: Schema<T>): Schema<T> {
  return { check: (v, loc, issues) => inner.check(v, loc, issues), optional: inner.optional, alias: wire };
}

type Shape = Record<string, Schema<unknown>>;
type ModelOf<S extends Shape> = { [K in keyof S]: Infer<S[K]> };

/**
 * A pydantic model. `strict` forbids unknown keys (BaseModelStrict); otherwise they are
 * ignored and dropped, as pydantic's default does. `name` is the class name for messages.
 */
export function model<S extends Shape>(name: string, shape: S, opts: { strict: boolean }): Schema<ModelOf<S>> {
  // [name inside, key on the wire, schema], in declaration order (the order issues come in).
  const fields = Object.keys(shape).map((key) => [key, shape[key].alias ?? key, shape[key]] as const);
  const wireKeys = new Set(fields.map(([, wire]) => wire));
  return {
    check(v, loc, issues) {
      if (!isPlainObject(v)) {
        return issue(issues, 'model_type', loc, `Input should be a valid dictionary or instance of ${name}`, v, {
          class_name: name,
        });
      }
      const out: Record<string, unknown> = {};
      let ok = true;
      for (const [key, wire, field] of fields) {
        if (!ok && issuesFull(issues)) return INVALID;
        if (!Object.prototype.hasOwnProperty.call(v, wire)) {
          if (!field.optional) {
            issue(issues, 'missing', [...loc, wire], 'Field required', v);
            ok = false;
          }
          continue;
        }
        const r = field.check(v[wire], [...loc, wire], issues);
        if (r === INVALID) ok = false;
        else out[key] = r;
      }
      if (opts.strict) {
        for (const key in v) {
          if (!Object.prototype.hasOwnProperty.call(v, key)) continue;
          if (!ok && issuesFull(issues)) return INVALID;
          if (!wireKeys.has(key)) {
            issue(issues, 'extra_forbidden', [...loc, key], 'Extra inputs are not permitted', v[key]);
            ok = false;
          }
        }
      }
      return ok ? (out as ModelOf<S>) : INVALID;
    },
  };
}

/**
 * Validates a request body (already parsed JSON) against a top-level model. Locations are
 * prefixed with "body" as FastAPI does. Throws RequestSchemaError with every issue found.
 */
export function validateBody<T>(schema: Schema<T>, body: unknown): T {
  const issues: ValidationIssue[] = [];
  if (!isPlainObject(body)) {
    throw new RequestSchemaError([
      {
        type: 'model_attributes_type',
        loc: ['body'],
        msg: 'Input should be a valid dictionary or object to extract fields from',
        input: body,
      },
    ]);
  }
  const r = schema.check(body, ['body'], issues);
  if (r === INVALID || issues.length > 0) throw new RequestSchemaError(issues);
  return r;
}

/** The 422 for a body that is not JSON at all (FastAPI's json_invalid). */
export function jsonInvalid(position: number, error: string): RequestSchemaError {
  return new RequestSchemaError([
    { type: 'json_invalid', loc: ['body', position], msg: 'JSON decode error', input: {}, ctx: { error } },
  ]);
}
