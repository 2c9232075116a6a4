/**
 * CLI text that points at the fix. The wire bodies stay Weave's (a server sends exactly what
 * production sends); only what a person reads on stderr changes:
 * - a schema error in a union (a `$expr` operation) leads with the alternative whose operator
 *   key the request has, not with eleven "Field required" lines for operators it never named;
 * - `--sort` (or `sort_by`) naming a field calls cannot sort by lists the fields that can be;
 * - a bare op name in `op_names` (which matches no call: entries are op refs) names the ref
 *   form that would match.
 */
import type { Engine, FieldPrefix } from '../api/types.ts';
import type { ValidationIssue } from '../core/errors.ts';
import { COMPUTED_SUMMARY_FIELDS_LISTED, COMPUTED_SUMMARY_PREFIX } from '../query/calls/summary-fields.ts';

/** Longest a hint's list of names gets (a project can have thousands of ops). */
const LISTED = 5;

const ALTERNATIVE = /^[A-Z]\w*Operation$/;

/**
 * A schema error's issues in the order a person should read them: where a union's
 * alternatives all failed, the ones that got past their operator key (the key was present)
 * first; the alternatives whose key is absent are summed up in one clause.
 */
export function schemaErrorText(issues: readonly ValidationIssue[]): string {
  const present: ValidationIssue[] = [];
  const absent = new Map<string, string[]>();
  const rest: ValidationIssue[] = [];
  for (const issue of issues) {
    const at = issue.loc.findIndex((step) => typeof step === 'string' && ALTERNATIVE.test(step));
    if (at < 0) {
      rest.push(issue);
      continue;
    }
    // Missing exactly the operator key itself: this alternative does not apply at all.
    if (issue.type === 'missing' && issue.loc.length === at + 2) {
      const union = issue.loc.slice(0, at).join('.');
      absent.set(union, [...(absent.get(union) ?? []), String(issue.loc[at + 1])]);
    } else present.push(issue);
  }
  const text = (i: ValidationIssue) => `${i.loc.filter((step) => !(typeof step === 'string' && ALTERNATIVE.test(step))).join('.')}: ${i.msg}`;
  if (present.length === 0 || absent.size === 0) return issues.map((i) => `${i.loc.join('.')}: ${i.msg}`).join('; ');
  const others = [...absent.values()].flat();
  return [...present.map(text), ...rest.map(text)].join('; ') + ` (the other ${others.length} operations, ${others.slice(0, LISTED).join(', ')}${others.length > LISTED ? ', …' : ''}, do not apply: the request names none of their keys)`;
}

/** What a calls query can sort by (semantics.md#calls-expr-fields), for the `--sort` hint. */
export function sortableCallFields(prefix: FieldPrefix): string {
  const plain = ['id', 'project_id', 'trace_id', 'parent_id', 'thread_id', 'turn_id', 'op_name', 'display_name', 'exception', 'started_at', 'ended_at', 'deleted_at', `${prefix}user_id`, `${prefix}run_id`, `${prefix}run_step`, `${prefix}run_step_end`];
  return `${plain.join(', ')}; any path under inputs., output., attributes. or summary.; ${COMPUTED_SUMMARY_PREFIX}<${COMPUTED_SUMMARY_FIELDS_LISTED.replaceAll(', ', '|')}>; feedback.[<type>].payload.<path>`;
}

/**
 * For each `op_names` entry that is a bare name (not a `weave:///` ref, so it matches no call):
 * a notice naming the ref form that matches the project's ops of that name.
 */
export function bareOpNameNotices(engine: Engine, body: Record<string, unknown>): string[] {
  const filter = body.filter as { op_names?: unknown } | undefined;
  if (typeof body.project_id !== 'string' || !Array.isArray(filter?.op_names)) return [];
  const project = engine.store.project(body.project_id);
  const ops = project ? project.calls.opNames.values : [];
  const notices: string[] = [];
  for (const entry of filter.op_names.slice(0, 100)) {
    if (typeof entry !== 'string' || entry.startsWith('weave:') || entry === '') continue;
    const refForm = `weave:///${body.project_id}/op/${entry}:*`;
    const matching = ops.filter((op) => typeof op === 'string' && op.startsWith(refForm.slice(0, -1))).length;
    notices.push(
      `tq: op_names entry "${entry}" is a bare name and matches no call (op_names holds op refs); the ref form is "${refForm}"` +
        (matching > 0 ? ` (${matching} version${matching === 1 ? '' : 's'} in ${body.project_id})` : ` (no op of that name in ${body.project_id})`),
    );
  }
  return notices;
}
