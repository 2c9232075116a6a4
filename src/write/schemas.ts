/**
 * Schema pieces the write models need beyond src/core/schema.ts, each mirroring one pydantic
 * type with its 422 wording (checked against pydantic 2.x): a smart-mode union of models,
 * `dict[str, T]`, and the `SummaryInsertMap` typed dict of call ends.
 */
import type { ValidationIssue } from '../core/errors.ts';
import { int, INVALID, issue, issuesFull, keepIssues, nullable, scratchIssues, type Schema } from '../core/schema.ts';
import { defineOwn } from '../core/json/lossless.ts';
import { isPlainObject } from '../core/plain-object.ts';


/** Which member of a union matched (its class name), and its value. */
export interface UnionMatch<N extends string, T> {
  member: N;
  value: T;
}

type Members = ReadonlyArray<readonly [string, Schema<unknown>]>;
/** One UnionMatch per member, so that checking `member` narrows `value`. */
type MatchOf<M extends Members> = {
  [I in keyof M]: M[I] extends readonly [infer N extends string, Schema<infer T>] ? UnionMatch<N, T> : never;
}[number];

/**
 * A pydantic union of models in smart mode: the leftmost member that validates wins; when none
 * does, every member's issues are reported, each located under the member's class name
 * (`["batch", 0, "CallBatchStartMode", "req", ...]`).
 */
export function unionOf<const M extends Members>(members: M): Schema<MatchOf<M>> {
  return {
    check(v, loc, issues) {
      // Each member's issues go to a scratch list with the room the request's list has left
      // (so a list of a million non-objects cannot grow past the cap); kept only if all fail.
      const failed: ValidationIssue[][] = [];
      for (const [name, schema] of members) {
        const own = scratchIssues(issues);
        const r = schema.check(v, [...loc, name], own);
        if (r !== INVALID && own.length === 0) return { member: name, value: r } as MatchOf<M>;
        failed.push(own);
      }
      for (const own of failed) keepIssues(issues, own);
      return INVALID;
    },
  };
}

/** `dict[str, T]`: every value validated at `[..., key]`. */
export function record<T>(value: Schema<T>): Schema<Record<string, T>> {
  return {
    check(v, loc, issues) {
      if (!isPlainObject(v)) return issue(issues, 'dict_type', loc, 'Input should be a valid dictionary', v);
      const out: Record<string, T> = {};
      let ok = true;
      for (const [k, x] of Object.entries(v)) {
        if (!ok && issuesFull(issues)) return INVALID;
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
      if (!isPlainObject(v)) return issue(issues, 'dict_type', loc, 'Input should be a valid dictionary', v);
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
      if (!isPlainObject(v)) return issue(issues, 'dict_type', loc, 'Input should be a valid dictionary', v);
      const out: Record<string, number> = {};
      let ok = true;
      for (const [k, x] of Object.entries(v)) {
        if (!(TRACE_STATUSES as readonly string[]).includes(k)) {
          ok = false;
          issue(issues, 'enum', [...loc, k, '[key]'], `Input should be ${TRACE_STATUS_TEXT}`, k, { expected: TRACE_STATUS_TEXT });
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

