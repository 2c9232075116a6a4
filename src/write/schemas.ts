/**
 * Schema pieces the write models need beyond src/core/schema.ts, each mirroring one pydantic
 * type with its 422 wording (checked against pydantic 2.x): `datetime`, a smart-mode union of
 * models, `dict[str, T]`, and the `SummaryInsertMap` typed dict of call ends.
 */
import type { ValidationIssue } from '../core/errors.ts';
import { parseDatetimeInput, parseIsoMicros } from '../core/datetime.ts';
import { int, INVALID, nullable, type Schema } from '../core/schema.ts';
import { defineOwn } from '../core/json/lossless.ts';
import { isPlainObject } from '../core/plain-object.ts';


function issue(issues: ValidationIssue[], entry: ValidationIssue): typeof INVALID {
  issues.push(entry);
  return INVALID;
}

const NUMERIC_TEXT = /^[+-]?\d+(\.\d+)?$/;
const DIGITS = /^\d+$/;

/** speedate's reason for refusing a date-time string (the common cases, in its order of checks). */
function datetimeProblem(text: string): string {
  if (text.length < 10) return 'input is too short';
  if (!DIGITS.test(text.slice(0, 4))) return 'invalid character in year';
  if (text[4] !== '-') return 'invalid date separator, expected `-`';
  if (!DIGITS.test(text.slice(5, 7))) return 'invalid character in month';
  const month = Number(text.slice(5, 7));
  if (month < 1 || month > 12) return 'month value is outside expected range of 1-12';
  if (text[7] !== '-') return 'invalid date separator, expected `-`';
  if (!DIGITS.test(text.slice(8, 10))) return 'invalid character in day';
  if (Number.isNaN(parseIsoMicros(text.slice(0, 10)))) return 'day value is outside expected range';
  return 'unexpected extra characters at the end of the input';
}

/**
 * pydantic `datetime` (lax): an ISO 8601 string (naive means UTC, as Weave assumes), or a unix
 * timestamp as a number or numeric string. The result is µs since the epoch.
 */
export const datetime = (): Schema<number> => ({
  check(v, loc, issues) {
    if (typeof v === 'string') {
      // pydantic takes no surrounding whitespace; parseIsoMicros would.
      const us = v.trim() === v ? (NUMERIC_TEXT.test(v) ? parseDatetimeInput(v) : parseIsoMicros(v)) : NaN;
      if (!Number.isNaN(us)) return us;
      const error = datetimeProblem(v);
      return issue(issues, {
        type: 'datetime_from_date_parsing',
        loc: [...loc],
        msg: `Input should be a valid datetime or date, ${error}`,
        input: v,
        ctx: { error },
      });
    }
    if (typeof v === 'number' && Number.isFinite(v)) return parseDatetimeInput(v);
    return issue(issues, { type: 'datetime_type', loc: [...loc], msg: 'Input should be a valid datetime', input: v });
  },
});

/** Which member of a union matched, and its value. */
export interface UnionMatch<T> {
  member: string;
  value: T;
}

/**
 * A pydantic union of models in smart mode: the leftmost member that validates wins; when none
 * does, every member's issues are reported, each located under the member's class name
 * (`["batch", 0, "CallBatchStartMode", "req", ...]`).
 */
export function unionOf<T>(members: ReadonlyArray<readonly [string, Schema<T>]>): Schema<UnionMatch<T>> {
  return {
    check(v, loc, issues) {
      const all: ValidationIssue[] = [];
      for (const [name, schema] of members) {
        const own: ValidationIssue[] = [];
        const r = schema.check(v, [...loc, name], own);
        if (r !== INVALID && own.length === 0) return { member: name, value: r };
        all.push(...own);
      }
      issues.push(...all);
      return INVALID;
    },
  };
}

/** `dict[str, T]`: every value validated at `[..., key]`. */
export function record<T>(value: Schema<T>): Schema<Record<string, T>> {
  return {
    check(v, loc, issues) {
      if (!isPlainObject(v)) return issue(issues, { type: 'dict_type', loc: [...loc], msg: 'Input should be a valid dictionary', input: v });
      const out: Record<string, T> = {};
      let ok = true;
      for (const [k, x] of Object.entries(v)) {
        const r = value.check(x, [...loc, k], issues);
        if (r === INVALID) ok = false;
        else defineOwn(out, k, r);
      }
      return ok ? out : INVALID;
    },
  };
}

/**
 * A TypedDict with `total=False`: declared keys are validated and come first, in declaration
 * order; other keys follow unchanged (pydantic keeps them for these dicts).
 */
function typedDict(declared: Record<string, Schema<unknown>>): Schema<Record<string, unknown>> {
  return {
    check(v, loc, issues) {
      if (!isPlainObject(v)) return issue(issues, { type: 'dict_type', loc: [...loc], msg: 'Input should be a valid dictionary', input: v });
      const out: Record<string, unknown> = {};
      let ok = true;
      for (const [key, schema] of Object.entries(declared)) {
        if (!Object.prototype.hasOwnProperty.call(v, key)) continue;
        const r = schema.check(v[key], [...loc, key], issues);
        if (r === INVALID) ok = false;
        else out[key] = r;
      }
      for (const [key, x] of Object.entries(v)) if (!Object.prototype.hasOwnProperty.call(declared, key)) defineOwn(out, key, x);
      return ok ? out : INVALID;
    },
  };
}

const TRACE_STATUSES = ['success', 'error', 'running', 'descendant_error'] as const;
const TRACE_STATUS_TEXT = "'success', 'error', 'running' or 'descendant_error'";

/** `dict[TraceStatus, int]`: a bad key is reported at `[..., key, "[key]"]`. */
const statusCounts = (): Schema<Record<string, number>> => {
  const count = int();
  return {
    check(v, loc, issues) {
      if (!isPlainObject(v)) return issue(issues, { type: 'dict_type', loc: [...loc], msg: 'Input should be a valid dictionary', input: v });
      const out: Record<string, number> = {};
      let ok = true;
      for (const [k, x] of Object.entries(v)) {
        if (!(TRACE_STATUSES as readonly string[]).includes(k)) {
          ok = false;
          issue(issues, {
            type: 'enum',
            loc: [...loc, k, '[key]'],
            msg: `Input should be ${TRACE_STATUS_TEXT}`,
            input: k,
            ctx: { expected: TRACE_STATUS_TEXT },
          });
        }
        const r = count.check(x, [...loc, k], issues);
        if (r === INVALID) ok = false;
        else defineOwn(out, k, r);
      }
      return ok ? out : INVALID;
    },
  };
};

const USAGE_KEYS = ['prompt_tokens', 'input_tokens', 'completion_tokens', 'output_tokens', 'requests', 'total_tokens'];

/** `LLMUsageSchema`: the token counts are `int | None` (so `"5"` becomes 5); other keys stay. */
const llmUsage = (): Schema<Record<string, unknown>> =>
  typedDict(Object.fromEntries(USAGE_KEYS.map((k) => [k, nullable(int())])));

/**
 * `SummaryInsertMap` (the `summary` of a call end, semantics.md#writes-call-end): `usage` and
 * `status_counts` are typed.
 */
export const summaryInsertMap = (): Schema<Record<string, unknown>> =>
  typedDict({ usage: record(llmUsage()), status_counts: statusCounts() });

