/**
 * Runs conformance cases against a Target, one after another: fill placeholders for this run,
 * rename the field prefix for the target, send the setup writes (each must answer 2xx), send
 * the request, compare. Every case owns its project, so order does not matter; running them
 * in sequence keeps a failing server's log readable.
 */
import type { CaseRequest, ConformanceCase } from './case.ts';
import { compareResponse, show } from './compare.ts';
import { casePrefixed } from './prefix.ts';
import { newRunId, substituteCase } from './substitute.ts';
import type { Target, TargetResponse } from './target.ts';

export interface RunOptions {
  /** Suffix for case projects; default a fresh id per call. */
  runId?: string;
  /** Cases skipped by name, with the reason (reported as skipped). */
  skips?: Record<string, string>;
  /** Only cases for which this returns true are considered (others are not reported). */
  only?: (c: ConformanceCase) => boolean;
  /** Cases carrying any of these tags are skipped (reported as skipped, with the tag). */
  skipTags?: readonly string[];
  /** Called after each case with its outcome, for progress output. */
  onResult?: (name: string, outcome: 'passed' | 'failed' | 'skipped', detail?: string) => void;
}

export interface RunReport {
  passed: number;
  passedNames: string[];
  failed: Array<{ name: string; diff: string }>;
  skipped: Array<{ name: string; reason: string }>;
}

function describe(req: CaseRequest): string {
  return `${req.method ?? 'POST'} ${req.path}`;
}

function failureOf(res: TargetResponse): string {
  const body = res.json !== undefined ? show(res.json, 300) : res.text !== undefined ? show(res.text, 300) : '<no body>';
  return `status ${res.status}, body ${body}${res.note ? ` [${res.note}]` : ''}`;
}

/** Runs one case (already substituted and prefixed); returns a diff, or undefined when it passes. */
export async function runCase(c: ConformanceCase, target: Target): Promise<string | undefined> {
  const setup = c.setup ?? [];
  for (let i = 0; i < setup.length; i++) {
    let res: TargetResponse;
    try {
      res = await target.send(setup[i]);
    } catch (e) {
      return `setup[${i}] ${describe(setup[i])}: ${e instanceof Error ? e.message : String(e)}`;
    }
    if (res.status < 200 || res.status > 299) return `setup[${i}] ${describe(setup[i])} failed: ${failureOf(res)}`;
  }
  let res: TargetResponse;
  try {
    res = await target.send(c.request);
  } catch (e) {
    return `request ${describe(c.request)}: ${e instanceof Error ? e.message : String(e)}`;
  }
  return compareResponse(c.expect, res);
}

/** Why a case is skipped by tag (`--skip-tags`), or undefined. */
function skippedTag(c: ConformanceCase, skipTags: readonly string[] | undefined): string | undefined {
  const tag = skipTags?.find((t) => c.tags.includes(t));
  return tag === undefined ? undefined : `tagged '${tag}' (skipped by request)`;
}

export async function runCases(cases: readonly ConformanceCase[], target: Target, opts: RunOptions = {}): Promise<RunReport> {
  const runId = opts.runId ?? newRunId();
  const report: RunReport = { passed: 0, passedNames: [], failed: [], skipped: [] };
  for (const original of cases) {
    if (opts.only && !opts.only(original)) continue;
    const skip = opts.skips?.[original.name] ?? skippedTag(original, opts.skipTags) ?? target.skipReason(original);
    if (skip !== undefined) {
      report.skipped.push({ name: original.name, reason: skip });
      opts.onResult?.(original.name, 'skipped', skip);
      continue;
    }
    let diff: string | undefined;
    try {
      const prepared = casePrefixed(substituteCase(original, runId, target.user), target.fieldPrefix);
      diff = await runCase(prepared, target);
    } catch (e) {
      diff = `runner error: ${e instanceof Error ? e.message : String(e)}`;
    }
    if (diff === undefined) {
      report.passed++;
      report.passedNames.push(original.name);
      opts.onResult?.(original.name, 'passed');
    } else {
      report.failed.push({ name: original.name, diff });
      opts.onResult?.(original.name, 'failed', diff);
    }
  }
  return report;
}

/** A short multi-line summary of a report (one line per failure). */
export function formatReport(report: RunReport, targetName: string): string {
  const lines = [`${targetName}: ${report.passed} passed, ${report.failed.length} failed, ${report.skipped.length} skipped`];
  for (const f of report.failed) lines.push(`  FAIL ${f.name}: ${f.diff}`);
  return lines.join('\n');
}
