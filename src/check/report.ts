/**
 * `tq check`'s reports: JSON Lines (`--report`, described by spec-tests/report.schema.json),
 * JUnit XML (`--junit`, for CI dashboards) and Markdown (`--markdown`, a summary table per
 * area for a CI job summary). All three are built from the same results, so they agree.
 *
 * A failing response can be large (thousands of lines): what a report keeps of it is bounded
 * (MAX_REPORTED_LINES lines, MAX_REPORTED_TEXT characters of text), marked `truncated`.
 */
import type { CaseRequest } from './case.ts';
import type { ReportedOutcome, ReportedResult } from './expect-fail.ts';
import type { TargetResponse } from './target.ts';

/** The report format's version (spec-tests/report.schema.json); bumped on incompatible change. */
const REPORT_FORMAT = 1;
const MAX_REPORTED_LINES = 50;
const MAX_REPORTED_TEXT = 64 * 1024;
const MAX_MARKDOWN_FAILURES = 100;
const MAX_MARKDOWN_DETAIL = 300;

export interface ReportHeader {
  type: 'header';
  format: typeof REPORT_FORMAT;
  tq_version: string;
  suite_version: string;
  weave_source: string;
  target: string;
  field_prefix: string;
  /** The target's GET /server_info answer, or null when it has none. */
  server_info: unknown;
  /** `reset`: the target has a test control plane and was reset before the run. */
  control_plane: 'reset' | 'none';
  started_at: string;
  selection: { tags?: string[]; skip_tags?: string[]; smoke: boolean; expect_fail?: string };
}

interface ReportSummary {
  type: 'summary';
  ok: boolean;
  total: number;
  counts: Record<ReportedOutcome, number>;
  duration_ms: number;
}

interface ReportedResponse {
  status: number;
  headers: Record<string, string>;
  lines?: unknown[];
  line_count?: number;
  json?: unknown;
  text?: string;
  truncated?: true;
}

/** What a report keeps of a response (bounded; see the module comment). */
export function reportedResponse(res: TargetResponse): ReportedResponse {
  const out: ReportedResponse = { status: res.status, headers: res.headers };
  if (res.lines !== undefined) {
    out.line_count = res.lines.length;
    out.lines = res.lines.slice(0, MAX_REPORTED_LINES);
    if (res.lines.length > MAX_REPORTED_LINES) out.truncated = true;
  }
  if (res.json !== undefined) {
    const text = JSON.stringify(res.json);
    if (text.length > MAX_REPORTED_TEXT) {
      out.text = text.slice(0, MAX_REPORTED_TEXT);
      out.truncated = true;
    } else out.json = res.json;
  }
  if (res.text !== undefined) {
    out.text = res.text.slice(0, MAX_REPORTED_TEXT);
    if (res.text.length > MAX_REPORTED_TEXT) out.truncated = true;
  }
  return out;
}

function reportedRequest(req: CaseRequest): CaseRequest {
  if (req.body_text !== undefined && req.body_text.length > MAX_REPORTED_TEXT) return { ...req, body_text: req.body_text.slice(0, MAX_REPORTED_TEXT) };
  return req;
}

function countOutcomes(results: readonly ReportedResult[]): Record<ReportedOutcome, number> {
  const counts: Record<ReportedOutcome, number> = { pass: 0, fail: 0, error: 0, skip: 0, 'expected-fail': 0, 'unexpected-pass': 0 };
  for (const r of results) counts[r.outcome]++;
  return counts;
}

/** `N passed, M failed` and the other outcomes that occurred, the line `tq check` ends with. */
export function summaryLine(results: readonly ReportedResult[]): string {
  const c = countOutcomes(results);
  const parts = [`${c.pass} passed`, `${c.fail} failed`];
  if (c.error) parts.push(`${c.error} errors`);
  if (c.skip) parts.push(`${c.skip} skipped`);
  if (c['expected-fail']) parts.push(`${c['expected-fail']} expected failures`);
  if (c['unexpected-pass']) parts.push(`${c['unexpected-pass']} unexpected passes`);
  return parts.join(', ');
}

/** The JSON Lines report: header, one line per case, summary. */
export function jsonlReport(header: ReportHeader, results: readonly ReportedResult[], weaveSourceOf: (name: string) => string, durationMs: number, ok: boolean): string {
  const lines: unknown[] = [header];
  for (const r of results) {
    const line: Record<string, unknown> = { type: 'case', name: r.name, outcome: r.outcome, grade: r.grade, tags: r.tags, weave_source: weaveSourceOf(r.name), duration_ms: r.duration_ms };
    if (r.detail !== undefined) line.detail = r.detail;
    if (r.key_path !== undefined) line.key_path = r.key_path;
    if (r.expected_fail !== undefined) line.expected_fail = r.expected_fail;
    if (r.request !== undefined) line.request = reportedRequest(r.request);
    if (r.response !== undefined) line.response = reportedResponse(r.response);
    lines.push(line);
  }
  const summary: ReportSummary = { type: 'summary', ok, total: results.length, counts: countOutcomes(results), duration_ms: Math.round(durationMs) };
  lines.push(summary);
  return lines.map((l) => JSON.stringify(l)).join('\n') + '\n';
}

/** A case's area: its name up to the first `-` (calls, threads, table, writes, auth, ...). */
const areaOf = (name: string) => name.split('-')[0];

function byArea(results: readonly ReportedResult[]): Map<string, ReportedResult[]> {
  const areas = new Map<string, ReportedResult[]>();
  for (const r of results) {
    const list = areas.get(areaOf(r.name)) ?? [];
    list.push(r);
    areas.set(areaOf(r.name), list);
  }
  return new Map([...areas].sort(([a], [b]) => (a < b ? -1 : 1)));
}

// XML 1.0 allows no control characters but tab, LF and CR, even escaped.
const xml = (text: string) =>
  text.replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g, '\uFFFD').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** JUnit XML: one testsuite per area; fail and unexpected-pass are failures, error an error, skip and expected-fail skipped. */
export function junitReport(header: ReportHeader, results: readonly ReportedResult[], durationMs: number): string {
  const c = countOutcomes(results);
  const seconds = (ms: number) => (ms / 1000).toFixed(3);
  const out = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="tq check ${xml(header.target)}" tests="${results.length}" failures="${c.fail + c['unexpected-pass']}" errors="${c.error}" skipped="${c.skip + c['expected-fail']}" time="${seconds(durationMs)}">`,
  ];
  let first = true;
  for (const [area, list] of byArea(results)) {
    const a = countOutcomes(list);
    const time = list.reduce((s, r) => s + r.duration_ms, 0);
    out.push(`  <testsuite name="${xml(area)}" tests="${list.length}" failures="${a.fail + a['unexpected-pass']}" errors="${a.error}" skipped="${a.skip + a['expected-fail']}" time="${seconds(time)}">`);
    if (first) {
      // The run's identity, once (JUnit has no place for it on <testsuites>).
      first = false;
      out.push('    <properties>');
      for (const [name, value] of [['tq_version', header.tq_version], ['suite_version', header.suite_version], ['weave_source', header.weave_source], ['target', header.target]]) out.push(`      <property name="${name}" value="${xml(value)}"/>`);
      out.push('    </properties>');
    }
    for (const r of list) {
      const open = `    <testcase classname="tq.${xml(area)}" name="${xml(r.name)}" time="${seconds(r.duration_ms)}"`;
      const detail = xml(r.detail ?? '');
      if (r.outcome === 'pass') out.push(`${open}/>`);
      else if (r.outcome === 'fail' || r.outcome === 'unexpected-pass') out.push(`${open}>`, `      <failure type="${r.outcome}" message="${detail}">${detail}</failure>`, '    </testcase>');
      else if (r.outcome === 'error') out.push(`${open}>`, `      <error type="error" message="${detail}">${detail}</error>`, '    </testcase>');
      else {
        const why = r.outcome === 'expected-fail' ? `expected failure: ${r.expected_fail?.reason ?? ''}` : (r.detail ?? '');
        out.push(`${open}>`, `      <skipped message="${xml(why)}"/>`, '    </testcase>');
      }
    }
    out.push('  </testsuite>');
  }
  out.push('</testsuites>');
  return out.join('\n') + '\n';
}

const cell = (text: string) => {
  const one = text.replace(/\s+/g, ' ').replace(/\|/g, '\\|').replace(/</g, '&lt;');
  return one.length > MAX_MARKDOWN_DETAIL ? `${one.slice(0, MAX_MARKDOWN_DETAIL - 1)}…` : one;
};

/** Markdown for a CI job summary: the totals, a table per area, then each failure. */
export function markdownReport(header: ReportHeader, results: readonly ReportedResult[], ok: boolean): string {
  const out = [
    `## tq check: ${ok ? 'passed' : 'failed'}`,
    '',
    `Target \`${header.target}\` (field prefix \`${header.field_prefix}\`), suite ${header.suite_version} (${header.weave_source}), tq ${header.tq_version}.`,
    '',
    `**${summaryLine(results)}**`,
    '',
    '| area | passed | failed | errors | skipped | expected failures | unexpected passes |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: |',
  ];
  for (const [area, list] of byArea(results)) {
    const a = countOutcomes(list);
    out.push(`| ${cell(area)} | ${a.pass} | ${a.fail} | ${a.error} | ${a.skip} | ${a['expected-fail']} | ${a['unexpected-pass']} |`);
  }
  const bad = results.filter((r) => r.outcome === 'fail' || r.outcome === 'error' || r.outcome === 'unexpected-pass');
  if (bad.length > 0) {
    out.push('', '### Failures', '', '| case | grade | outcome | where | difference |', '| --- | --- | --- | --- | --- |');
    for (const r of bad.slice(0, MAX_MARKDOWN_FAILURES)) out.push(`| \`${r.name}\` | ${r.grade} | ${r.outcome} | ${cell(r.key_path ?? '')} | ${cell(r.detail ?? '')} |`);
    if (bad.length > MAX_MARKDOWN_FAILURES) out.push('', `…and ${bad.length - MAX_MARKDOWN_FAILURES} more (the --report file has every one).`);
  }
  const expected = results.filter((r) => r.outcome === 'expected-fail');
  if (expected.length > 0) {
    out.push('', '<details><summary>Expected failures</summary>', '', '| case | reason |', '| --- | --- |');
    for (const r of expected.slice(0, MAX_MARKDOWN_FAILURES)) out.push(`| \`${r.name}\` | ${cell(r.expected_fail?.link ? `${r.expected_fail.reason} (${r.expected_fail.link})` : (r.expected_fail?.reason ?? ''))} |`);
    out.push('', '</details>');
  }
  return out.join('\n') + '\n';
}
