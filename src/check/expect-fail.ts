/**
 * Known gaps without red CI: an expect-fail file (`[{case, reason, link}]`) names the cases a
 * target is known to fail. A listed case that fails is an expected failure; a listed case that
 * passes is an unexpected pass (reported, and failing the run, so the file is kept honest); an
 * unlisted failure fails the run as always. `tq check --write-expect-fail` writes the file from
 * a run, so a regression shows up as a diff of that file in review.
 */
import type { CaseResult } from './runner.ts';

export interface ExpectFailEntry {
  case: string;
  reason: string;
  link?: string;
}

/** The final outcome of a case once the expect-fail list is applied. */
export type ReportedOutcome = CaseResult['outcome'] | 'expected-fail' | 'unexpected-pass';

export interface ReportedResult extends Omit<CaseResult, 'outcome'> {
  outcome: ReportedOutcome;
  /** The expect-fail entry that named this case. */
  expected_fail?: { reason: string; link?: string };
}

/** Longest reason kept when a run writes the file (a diff can be long; the file is for people). */
const MAX_WRITTEN_REASON = 240;

/**
 * Reads an expect-fail document: a JSON array of {case, reason, link?}. Every problem is
 * reported with the entry's index; `known` (the suite's case names) catches typos and renamed cases.
 */
export function parseExpectFail(text: string, known: ReadonlySet<string>, source: string): ExpectFailEntry[] {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new Error(`${source}: not JSON (${(e as Error).message})`);
  }
  if (!Array.isArray(doc)) throw new Error(`${source}: expected a JSON array of {"case", "reason", "link"} entries`);
  const seen = new Set<string>();
  return doc.map((entry, i) => {
    const where = `${source}[${i}]`;
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) throw new Error(`${where}: expected an object {"case", "reason", "link"}`);
    const e = entry as Record<string, unknown>;
    const extra = Object.keys(e).find((k) => k !== 'case' && k !== 'reason' && k !== 'link');
    if (extra !== undefined) throw new Error(`${where}.${extra}: not allowed (an entry has case, reason and link)`);
    if (typeof e.case !== 'string' || e.case === '') throw new Error(`${where}.case: must be a case name`);
    if (typeof e.reason !== 'string' || e.reason === '') throw new Error(`${where}.reason: must say why the case is expected to fail`);
    if (e.link !== undefined && typeof e.link !== 'string') throw new Error(`${where}.link: must be a string (a URL)`);
    if (!known.has(e.case)) throw new Error(`${where}.case: no case is named '${e.case}' in this suite (renamed or removed?)`);
    if (seen.has(e.case)) throw new Error(`${where}.case: '${e.case}' is listed twice`);
    seen.add(e.case);
    return e.link === undefined ? { case: e.case, reason: e.reason } : { case: e.case, reason: e.reason, link: e.link };
  });
}

/** The results with the expectations applied (cases not listed keep their outcome). */
export function applyExpectFail(results: readonly CaseResult[], entries: readonly ExpectFailEntry[]): ReportedResult[] {
  const byCase = new Map(entries.map((e) => [e.case, e]));
  return results.map((r) => {
    const entry = byCase.get(r.name);
    if (entry === undefined || r.outcome === 'skip') return r;
    const expected_fail = entry.link === undefined ? { reason: entry.reason } : { reason: entry.reason, link: entry.link };
    if (r.outcome === 'pass') return { ...r, outcome: 'unexpected-pass', expected_fail, detail: `listed as expected to fail (${entry.reason}) but passed: remove it from the expect-fail file` };
    return { ...r, outcome: 'expected-fail', expected_fail };
  });
}

/** Whether a run with these results is a failure (exit status 1). */
export function runFailed(results: readonly ReportedResult[]): boolean {
  return results.some((r) => r.outcome === 'fail' || r.outcome === 'error' || r.outcome === 'unexpected-pass');
}

/** The expect-fail document a run implies: every case that failed, keeping earlier reasons and links. */
export function expectFailFromRun(results: readonly ReportedResult[], previous: readonly ExpectFailEntry[] = []): string {
  const before = new Map(previous.map((e) => [e.case, e]));
  const entries: ExpectFailEntry[] = results
    .filter((r) => r.outcome === 'fail' || r.outcome === 'error' || r.outcome === 'expected-fail')
    .map((r) => {
      const old = before.get(r.name);
      if (old !== undefined) return old;
      const why = r.detail ?? r.outcome;
      return { case: r.name, reason: why.length > MAX_WRITTEN_REASON ? `${why.slice(0, MAX_WRITTEN_REASON - 1)}…` : why };
    })
    .sort((a, b) => (a.case < b.case ? -1 : a.case > b.case ? 1 : 0));
  return `[\n${entries.map((e) => `  ${JSON.stringify(e)}`).join(',\n')}${entries.length ? '\n' : ''}]\n`;
}
