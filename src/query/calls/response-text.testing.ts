/**
 * For tests: the text renderer of /calls/stream_query lines that rowWriter (response.ts)
 * replaced, unchanged but for its name. The byte renderer must give its bytes exactly
 * (response-bytes.test.ts, render-corpus.test.ts).
 */
import { parseSpelled, stringifyExact } from '../../core/json/exact.ts';
import { topLevelValueSpans } from '../../core/json/spans.testing.ts';
import { callRefUri } from '../../core/refs.ts';
import { BODY_PARTS, type CallBody, type CallTable } from '../../store/call-table.ts';
import { applyCosts } from './costs.ts';
import { datetimeJsonFormatter } from './datetime-json.ts';
import type { Engine } from '../../api/types.ts';
import type { CanRead } from '../resolve-ref.ts';
import { orderRows } from './order.ts';
import { parseCallsQuery } from './request.ts';
import { expandedParts, feedbackItem, selectColumns, splicedSummary, type LineBuilderOptions } from './response.ts';
import { storageSize, traceStorageSize } from './storage-size.ts';
import { queryBody } from '../../api/body.ts';
import { matchingRows, planCallsQuery } from './run.ts';
import { startOrderPage } from './start-walk.ts';
import { deriveSummary } from './summary.ts';

/** The parts' texts as the former renderer found them: the text scanner over the whole body. */
function textPartsOf(t: CallTable, row: number): Array<string | null> {
  const text = t.bodyText(row);
  const spans = topLevelValueSpans(text, BODY_PARTS);
  return [0, 1, 2, 3].map((k) => (spans[2 * k] >= 0 ? text.slice(spans[2 * k], spans[2 * k + 1]) : null));
}

/**
 * The former renderer, kept as the oracle of rowWriter: one row as a JSON line (a string),
 * keys in CallSchema order, parts found by the text scanner on the decoded body.
 *
 * Fast path (no expansion): `attributes`, `inputs` and `output` are copied from the stored
 * text as they are (CallTable.bodyPartTexts), and only `summary` is parsed, to be recomputed. With
 * `expand_columns` the body is parsed, refs are replaced, and the values are re-serialised.
 */
function textLineBuilder(o: LineBuilderOptions): (row: number) => string {
  const t = o.project.calls;
  const has = (c: string) => o.selected === null || o.selected.has(c);
  const expandColumns = o.req.return_expanded_column_values
    ? [...(o.req.expand_columns ?? [])].sort((a, b) => a.split('.').length - b.split('.').length)
    : [];
  const needsBody = has('attributes') || has('inputs') || has('output') || has('summary');
  const p = o.prefix;
  const q = (v: unknown) => JSON.stringify(v);
  const dt = datetimeJsonFormatter();
  const userKey = q(`${p}user_id`), runKey = q(`${p}run_id`), stepKey = q(`${p}run_step`), stepEndKey = q(`${p}run_step_end`);
  const projectId = q(o.project.projectId);
  // Column selection, decided once per query rather than per row.
  const sel = {
    attributes: has('attributes'), inputs: has('inputs'), output: has('output'), summary: has('summary'),
    ended_at: has('ended_at'), exception: has('exception'), display_name: has('display_name'),
    parent_id: has('parent_id'), thread_id: has('thread_id'), turn_id: has('turn_id'),
    user_id: has(`${p}user_id`), run_id: has(`${p}run_id`), run_step: has(`${p}run_step`), run_step_end: has(`${p}run_step_end`),
  };

  // Without costs or feedback the computed `weave` block is spliced into the stored summary
  // text (copied as is, like inputs) instead of parsing and re-serialising the summary.
  const spliceSummary = expandColumns.length === 0 && !o.req.include_costs && !o.req.include_feedback;

  return (row) => {
    let attributes = '{}', inputs = '{}', output = 'null';
    let storedSummary: Record<string, unknown> | null = null;
    let storedSummaryText: string | null = null;
    let parsed: CallBody | null = null;
    if (expandColumns.length > 0) {
      // Parsed with their number spellings kept (semantics.md#writes-number-spelling).
      const [a, i, out, sum] = t.bodyPartTexts(row).map((text) => (text === null ? null : parseSpelled(text)));
      parsed = { attributes: (a ?? {}) as Record<string, unknown>, inputs: (i ?? {}) as Record<string, unknown>, output: out ?? null, summary: (sum ?? null) as Record<string, unknown> | null };
      storedSummary = sel.summary ? parsed.summary : null;
    } else if (needsBody) {
      const [a, i, out, sum] = textPartsOf(t, row);
      if (sel.attributes && a !== null && a !== 'null') attributes = a;
      if (sel.inputs && i !== null && i !== 'null') inputs = i;
      if (sel.output && out !== null) output = out;
      if (sel.summary && sum !== null) storedSummaryText = sum;
    }
    const endedAt = sel.ended_at ? t.endedAt.data[row] : NaN;
    const exception = sel.exception ? t.exceptions.get(row) : null;
    const displayName = sel.display_name ? t.displayNames.get(row) : null;
    const opName = t.opName(row) ?? '';
    const computed = { opName, startedAt: t.startedAt.data[row], endedAt: Number.isNaN(endedAt) ? null : endedAt, exception, displayName };
    let summaryJson = spliceSummary ? splicedSummary(storedSummaryText, computed, t.statusErrorCount.data[row]) : null;
    if (summaryJson === null) {
      if (storedSummaryText !== null) storedSummary = parseSpelled(storedSummaryText) as Record<string, unknown> | null;
      const summary = deriveSummary({ summary: storedSummary, ...computed });
      if (o.req.include_costs) applyCosts(summary, o.store.prices, t.startedAt.data[row], o.project.projectId);
      if (o.req.include_feedback) {
        const rows = o.project.feedbackByRef.get(callRefUri(o.project.projectId, t.id(row))) ?? [];
        (summary.weave as Record<string, unknown>).feedback = rows.map((f) => feedbackItem(f, p));
      }
      if (parsed === null) summaryJson = stringifyExact(summary);
      else {
        const out = expandedParts(o.store, o.canRead, parsed, summary, sel, expandColumns);
        [attributes, inputs, output, summaryJson] = [stringifyExact(out.attributes), stringifyExact(out.inputs), stringifyExact(out.output), stringifyExact(out.summary)];
      }
    }
    const storage = o.req.include_storage_size ? String(storageSize(o.store, t, row)) : 'null';
    const totalStorage = o.req.include_total_storage_size && t.parentId(row) === null ? String(traceStorageSize(o.store, t, row)) : 'null';
    return (
      `{"id":${q(t.id(row))},"project_id":${projectId},"op_name":${q(opName)},"display_name":${q(displayName)}` +
      `,"trace_id":${q(t.traceId(row))},"parent_id":${q(sel.parent_id ? t.parentId(row) : null)}` +
      `,"thread_id":${q(sel.thread_id ? t.threadId(row) : null)},"turn_id":${q(sel.turn_id ? t.turnId(row) : null)}` +
      `,"started_at":${dt(t.startedAt.data[row])},"attributes":${attributes},"inputs":${inputs}` +
      `,"ended_at":${dt(endedAt)},"exception":${q(exception)},"output":${output},"summary":${summaryJson}` +
      `,${userKey}:${q(sel.user_id ? t.userId(row) : null)},${runKey}:${q(sel.run_id ? t.runIds.get(row) : null)}` +
      `,${stepKey}:${q(sel.run_step ? t.runStep.get(row) : null)},${stepEndKey}:${q(sel.run_step_end ? t.runStepEnd.get(row) : null)}` +
      `,"deleted_at":null,"storage_size_bytes":${storage},"total_storage_size_bytes":${totalStorage}}`
    );
  };
}


/**
 * A /calls/stream_query body answered the former way: the same validation, plan and page as
 * the route, each row rendered by textLineBuilder. Lines without newlines.
 */
export function textCallsQueryLines(engine: Engine, bodyText: string, canRead: CanRead): string[] {
  const prefix = engine.options.fieldPrefix;
  const req = parseCallsQuery(queryBody({ kind: 'text', text: bodyText }), prefix);
  const plan = planCallsQuery(engine, req, canRead);
  if (plan.filter === null) return [];
  const offset = req.offset ?? 0;
  const page = startOrderPage(plan.project.calls, plan.filter, plan.expr, plan.terms, offset, req.limit) ?? orderRows(matchingRows(plan), plan.terms, plan.resolver, offset, req.limit);
  const render = textLineBuilder({ store: engine.store, project: plan.project, req, prefix, selected: selectColumns(req, prefix), canRead });
  return page.map((row) => render(row));
}
