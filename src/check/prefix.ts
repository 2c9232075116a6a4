/**
 * The user/run field prefix (semantics.md#wire-prefix). Cases are written with tq's default `svc_`
 * spelling; a target speaking Weave's `wb_` gets every `svc_` at the start of a word renamed,
 * in object keys and in strings alike (sort fields, `$getField` paths, column names, error
 * messages and raw body text all name fields inside strings). Cases therefore must not use the
 * literal text `svc_` for anything but these fields.
 */
import type { FieldPrefix } from '../api/types.ts';
import type { ConformanceCase } from './case.ts';
import { defineOwn } from '../core/json/lossless.ts';

function renameInString(text: string, from: FieldPrefix, to: FieldPrefix): string {
  return text.replace(new RegExp(`\\b${from}(?=\\w)`, 'g'), to);
}

/** Deep copy of `value` with the prefix `from` renamed to `to` in keys and strings. */
export function renamePrefix<T>(value: T, from: FieldPrefix, to: FieldPrefix): T {
  if (from === to) return value;
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return renameInString(v, from, to);
    if (Array.isArray(v)) return v.map(walk);
    if (typeof v === 'object' && v !== null) {
      const out: Record<string, unknown> = {};
      for (const [k, inner] of Object.entries(v)) defineOwn(out, renameInString(k, from, to), walk(inner));
      return out;
    }
    return v;
  };
  return walk(value) as T;
}

/** The case as a target with `prefix` must see it (cases are authored with `svc_`). */
export function casePrefixed(c: ConformanceCase, prefix: FieldPrefix): ConformanceCase {
  if (prefix === 'svc_') return c;
  return {
    ...c,
    setup: c.setup === undefined ? undefined : renamePrefix(c.setup, 'svc_', prefix),
    request: renamePrefix(c.request, 'svc_', prefix),
    expect: renamePrefix(c.expect, 'svc_', prefix),
  };
}
