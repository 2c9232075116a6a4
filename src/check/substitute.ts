/**
 * Placeholders in cases. Every case owns a project; a run suffix keeps repeated runs against
 * one long-lived server from seeing each other's writes: `conf/x` becomes `conf/x-<runid>`.
 * `{{project}}`, `{{entity}}` and `{{user}}` are replaced in every string of the case (keys,
 * values, raw body text, multipart fields); an unknown `{{name}}` is an error, so typos
 * surface instead of being sent verbatim.
 */
import type { ConformanceCase } from './case.ts';
import { defineOwn } from '../core/json/lossless.ts';

interface CaseVariables {
  project: string;
  entity: string;
  user: string;
}

/** A short id that differs between runs (base 36 time plus randomness). */
export function newRunId(): string {
  return `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
}

/** The variables of one case in one run. */
function caseVariables(c: ConformanceCase, runId: string, user: string): CaseVariables {
  const project = c.project === undefined ? '' : `${c.project}-${runId}`;
  return { project, entity: project.split('/')[0] ?? '', user };
}

const PLACEHOLDER = /\{\{([A-Za-z_]+)\}\}/g;

function substituteString(text: string, vars: CaseVariables, caseName: string): string {
  return text.replace(PLACEHOLDER, (_, name: string) => {
    if (name === 'project' || name === 'entity') {
      if (vars.project === '') throw new Error(`case ${caseName}: uses {{${name}}} but names no project`);
      return vars[name];
    }
    if (name === 'user') return vars.user;
    throw new Error(`case ${caseName}: unknown placeholder {{${name}}}`);
  });
}

/** Deep copy of `value` with placeholders replaced in every string and object key. */
function substitute<T>(value: T, vars: CaseVariables, caseName = '?'): T {
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return substituteString(v, vars, caseName);
    if (Array.isArray(v)) return v.map(walk);
    if (typeof v === 'object' && v !== null) {
      const out: Record<string, unknown> = {};
      for (const [k, inner] of Object.entries(v)) defineOwn(out, substituteString(k, vars, caseName), walk(inner));
      return out;
    }
    return v;
  };
  return walk(value) as T;
}

/** The case with its placeholders filled for this run (name, tags and spec are kept). */
export function substituteCase(c: ConformanceCase, runId: string, user: string): ConformanceCase {
  const vars = caseVariables(c, runId, user);
  return {
    ...c,
    project: vars.project === '' ? undefined : vars.project,
    setup: c.setup === undefined ? undefined : substitute(c.setup, vars, c.name),
    request: substitute(c.request, vars, c.name),
    expect: substitute(c.expect, vars, c.name),
  };
}
