/**
 * Runs conformance cases against a Target, one after another: fill placeholders for this run,
 * rename the field prefix for the target, send the setup writes (each must answer 2xx), send
 * the request, compare (with the case's `alternatives`, any one of which passes). Every case
 * owns its project, so order does not matter; running them in sequence keeps a failing
 * server's log readable.
 *
 * Each case ends as one CaseResult: `pass`, `fail` (the answer differs: the diff, its key path,
 * the request sent and the response received), `error` (a setup write failed, the target could
 * not be reached, or the case could not be prepared) or `skip` (with the reason).
 */
import type { CaseGrade, CaseRequest, ConformanceCase } from './case.ts';
import { compareResponse, show } from './compare.ts';
import { casePrefixed } from './prefix.ts';
import { newRunId, substituteCase } from './substitute.ts';
import { DEVIATES_TAG, type Target, type TargetResponse } from './target.ts';

type CaseOutcome = 'pass' | 'fail' | 'error' | 'skip';

export interface CaseResult {
  name: string;
  outcome: CaseOutcome;
  grade: CaseGrade;
  tags: string[];
  /** Wall time of the case's requests, in milliseconds (0 when skipped). */
  duration_ms: number;
  /** fail and error: the one-line difference or problem. skip: why. */
  detail?: string;
  /** fail: where the answer first differs (`line 2 $.summary.x`, `status`, `body $.reason`). */
  key_path?: string;
  /** fail and error: the request as sent (placeholders filled, prefix renamed). */
  request?: CaseRequest;
  /** fail (and an error with an answer): what came back. */
  response?: TargetResponse;
}

export interface RunOptions {
  /** Suffix for case projects; default a fresh id per call. */
  runId?: string;
  /** Cases skipped by name, with the reason (reported as skipped). */
  skips?: Record<string, string>;
  /** Only cases for which this returns true are considered (others are not reported). */
  only?: (c: ConformanceCase) => boolean;
  /** Cases carrying any of these tags (or grades) are skipped (reported as skipped, with the tag). */
  skipTags?: readonly string[];
  /** Called after each case with its outcome, for progress output. */
  onResult?: (name: string, outcome: 'passed' | 'failed' | 'skipped', detail?: string, result?: CaseResult) => void;
}

export interface RunReport {
  passed: number;
  passedNames: string[];
  /** Failures and errors alike (see `results` for which is which). */
  failed: Array<{ name: string; diff: string }>;
  skipped: Array<{ name: string; reason: string }>;
  /** One entry per case considered, in corpus order. */
  results: CaseResult[];
}

/** A case's grade: the bundled one, else what its tags say (a case built in code). */
function gradeOf(c: ConformanceCase): CaseGrade {
  if (c.grade !== undefined) return c.grade;
  if (c.tags.includes(DEVIATES_TAG)) return 'deviates-from-production';
  return c.tags.includes('decision') ? 'should' : 'must';
}

/** The labels `--tags`/`--skip-tags` select on: a case's tags and its grade. */
export function labelsOf(c: ConformanceCase): string[] {
  const grade = gradeOf(c);
  return c.tags.includes(grade) ? c.tags : [...c.tags, grade];
}

function describe(req: CaseRequest): string {
  return `${req.method ?? 'POST'} ${req.path}`;
}

function failureOf(res: TargetResponse): string {
  const body = res.json !== undefined ? show(res.json, 300) : res.text !== undefined ? show(res.text, 300) : '<no body>';
  return `status ${res.status}, body ${body}${res.note ? ` [${res.note}]` : ''}`;
}

const messageOf = (e: unknown) => (e instanceof Error ? (e.cause instanceof Error ? `${e.message} (${e.cause.message})` : e.message) : String(e));

/** Where a diff (compare.ts) says the answer first differs: `line 2 $.summary.x`, `status`, `body $.reason`, ... */
export function keyPathOf(diff: string): string | undefined {
  if (diff.startsWith('status:')) return 'status';
  const header = /^header (\S+?):/.exec(diff);
  if (header) return `header ${header[1]}`;
  const line = /(?:^|; )line (\d+): at (\$.*?): /.exec(diff) ?? /nearest got line (\d+): at (\$.*?): /.exec(diff);
  if (line) return `line ${line[1]} ${line[2]}`;
  const value = /^(body|json|json_texts) at (\$.*?): /.exec(diff);
  if (value) return `${value[1]} ${value[2]}`;
  if (diff.startsWith('body keys:')) return 'body keys';
  if (/^expected \d+ lines/.test(diff)) return 'line count';
  return undefined;
}

interface PreparedOutcome {
  outcome: 'pass' | 'fail' | 'error';
  detail?: string;
  request?: CaseRequest;
  response?: TargetResponse;
}

/** Runs one prepared case (substituted and prefixed) and says how it ended. */
async function runPrepared(c: ConformanceCase, target: Target): Promise<PreparedOutcome> {
  const setup = c.setup ?? [];
  for (let i = 0; i < setup.length; i++) {
    let res: TargetResponse;
    try {
      res = await target.send(setup[i]);
    } catch (e) {
      return { outcome: 'error', detail: `setup[${i}] ${describe(setup[i])}: ${messageOf(e)}`, request: setup[i] };
    }
    if (res.status < 200 || res.status > 299) return { outcome: 'error', detail: `setup[${i}] ${describe(setup[i])} failed: ${failureOf(res)}`, request: setup[i], response: res };
  }
  let res: TargetResponse;
  try {
    res = await target.send(c.request);
  } catch (e) {
    return { outcome: 'error', detail: `request ${describe(c.request)}: ${messageOf(e)}`, request: c.request };
  }
  const diff = compareResponse(c.expect, res);
  if (diff === undefined) return { outcome: 'pass' };
  for (const alternative of c.alternatives ?? []) if (compareResponse(alternative, res) === undefined) return { outcome: 'pass' };
  return { outcome: 'fail', detail: diff, request: c.request, response: res };
}

/** Runs one case (already substituted and prefixed); returns a diff, or undefined when it passes. */
export async function runCase(c: ConformanceCase, target: Target): Promise<string | undefined> {
  const result = await runPrepared(c, target);
  return result.outcome === 'pass' ? undefined : result.detail;
}

/** Why a case is skipped by tag or grade (`--skip-tags`), or undefined. */
function skippedTag(c: ConformanceCase, skipTags: readonly string[] | undefined): string | undefined {
  const labels = labelsOf(c);
  const tag = skipTags?.find((t) => labels.includes(t));
  return tag === undefined ? undefined : `tagged '${tag}' (skipped by request)`;
}

export async function runCases(cases: readonly ConformanceCase[], target: Target, opts: RunOptions = {}): Promise<RunReport> {
  const runId = opts.runId ?? newRunId();
  const report: RunReport = { passed: 0, passedNames: [], failed: [], skipped: [], results: [] };
  for (const original of cases) {
    if (opts.only && !opts.only(original)) continue;
    const base = { name: original.name, grade: gradeOf(original), tags: original.tags };
    const skip = opts.skips?.[original.name] ?? skippedTag(original, opts.skipTags) ?? target.skipReason(original);
    if (skip !== undefined) {
      const result: CaseResult = { ...base, outcome: 'skip', duration_ms: 0, detail: skip };
      report.skipped.push({ name: original.name, reason: skip });
      report.results.push(result);
      opts.onResult?.(original.name, 'skipped', skip, result);
      continue;
    }
    const started = performance.now();
    let ran: PreparedOutcome;
    try {
      const prepared = casePrefixed(substituteCase(original, runId, target.user), target.fieldPrefix);
      ran = await runPrepared(prepared, target);
    } catch (e) {
      ran = { outcome: 'error', detail: `runner error: ${messageOf(e)}` };
    }
    const result: CaseResult = { ...base, outcome: ran.outcome, duration_ms: Math.round((performance.now() - started) * 1000) / 1000 };
    if (ran.detail !== undefined) result.detail = ran.detail;
    if (ran.outcome === 'fail') {
      const path = keyPathOf(ran.detail!);
      if (path !== undefined) result.key_path = path;
    }
    if (ran.request !== undefined) result.request = ran.request;
    if (ran.response !== undefined) result.response = ran.response;
    report.results.push(result);
    if (ran.outcome === 'pass') {
      report.passed++;
      report.passedNames.push(original.name);
      opts.onResult?.(original.name, 'passed', undefined, result);
    } else {
      report.failed.push({ name: original.name, diff: ran.detail! });
      opts.onResult?.(original.name, 'failed', ran.detail, result);
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
