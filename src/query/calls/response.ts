/**
 * Building each response line of /calls/stream_query: column selection
 * (semantics.md#calls-columns), the computed summary (semantics.md#calls-summary-response), and the
 * include_* enrichments (semantics.md#calls-include) applied to the returned page only.
 */
import { fieldNotAllowed } from '../../core/errors.ts';
import { formatMicros } from '../../core/datetime.ts';
import { parseExact, stringifyExact } from '../../core/json/exact.ts';
import { callRefUri, parseObjectRef } from '../../core/refs.ts';
import { BODY_PARTS, type CallBody, type CallTable } from '../../store/call-table.ts';
import type { FeedbackRow, ProjectStore } from '../../store/project.ts';
import type { Store } from '../../store/store.ts';
import { resolveObjectRef, type CanRead } from '../resolve-ref.ts';
import { applyCosts } from './costs.ts';
import { storageSize, traceStorageSize } from './storage-size.ts';
import type { CallsQuery } from './request.ts';
import { deriveSummary, derivedWeaveJson, traceNameCache, type SummaryInputs } from './summary.ts';

const ALWAYS = ['id', 'project_id', 'trace_id', 'op_name', 'started_at'];
const FOR_SUMMARY = ['ended_at', 'exception', 'display_name'];

function allowedColumns(prefix: string): Set<string> {
  return new Set([
    'id', 'project_id', 'op_name', 'display_name', 'trace_id', 'parent_id', 'thread_id', 'turn_id',
    'started_at', 'attributes', 'inputs', 'ended_at', 'exception', 'output', 'summary',
    `${prefix}user_id`, `${prefix}run_id`, `${prefix}run_step`, `${prefix}run_step_end`, 'deleted_at',
    'storage_size_bytes', 'total_storage_size_bytes', 'input_refs', 'output_refs',
  ]);
}

/**
 * The set of selected columns (null = all), validated: each entry is cut at its first dot,
 * `x_dump` means `x`, unknown names are 403 (ClickHouse's get_field_by_name).
 */
export function selectColumns(req: CallsQuery, prefix: string): Set<string> | null {
  if (req.columns === null) return null;
  const allowed = allowedColumns(prefix);
  const selected = new Set<string>(ALWAYS);
  req.columns.forEach((col, i) => {
    let name = col.split('.')[0];
    if (name.endsWith('_dump') && allowed.has(name.slice(0, -5))) name = name.slice(0, -5);
    if (!allowed.has(name)) throw fieldNotAllowed(col, ['body', 'columns', i]);
    selected.add(name);
  });
  if (selected.has('summary') || req.include_costs) for (const c of FOR_SUMMARY) selected.add(c);
  if (req.include_costs) selected.add('summary');
  return selected;
}

export interface LineBuilderOptions {
  store: Store;
  project: ProjectStore;
  req: CallsQuery;
  prefix: string;
  selected: Set<string> | null;
  /**
   * Which projects expanded refs may be followed into (the caller's grants;
   * semantics.md#auth-grants-refs).
   */
  canRead: CanRead;
}

/**
 * Makes the function that renders one row as a JSON line, keys in CallSchema order.
 *
 * Fast path (no expansion): `attributes`, `inputs` and `output` are copied from the stored
 * text as they are (CallTable.bodyPartTexts), and only `summary` is parsed, to be recomputed. With
 * `expand_columns` the body is parsed, refs are replaced, and the values are re-serialised.
 */
export function lineBuilder(o: LineBuilderOptions): (row: number) => string {
  const t = o.project.calls;
  const traceNames = traceNameCache(o.store);
  const has = (c: string) => o.selected === null || o.selected.has(c);
  const expandColumns = o.req.return_expanded_column_values
    ? [...(o.req.expand_columns ?? [])].sort((a, b) => a.split('.').length - b.split('.').length)
    : [];
  const needsBody = BODY_PARTS.some(has);
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
      parsed = t.body(row);
      storedSummary = sel.summary ? parsed.summary : null;
    } else if (needsBody) {
      const [a, i, out, sum] = t.bodyPartTexts(row);
      if (sel.attributes && a !== null && a !== 'null') attributes = a;
      if (sel.inputs && i !== null && i !== 'null') inputs = i;
      if (sel.output && out !== null) output = out;
      if (sel.summary && sum !== null) storedSummaryText = sum;
    }
    const endedAt = sel.ended_at ? t.endedAt.data[row] : NaN;
    const exception = sel.exception ? t.exceptions.get(row) : null;
    const displayName = sel.display_name ? t.displayNames.get(row) : null;
    const opName = t.opName(row) ?? '';
    const computed = { opName, startedAt: t.startedAt.data[row], endedAt: Number.isNaN(endedAt) ? null : endedAt, exception, displayName, traceNames };
    let summaryJson = spliceSummary ? splicedSummary(storedSummaryText, computed, t.statusErrorCount.data[row]) : null;
    if (summaryJson === null) {
      if (storedSummaryText !== null) storedSummary = parseExact(storedSummaryText) as Record<string, unknown> | null;
      const summary = deriveSummary({ summary: storedSummary, ...computed });
      if (o.req.include_costs) applyCosts(summary, o.store.prices, t.startedAt.data[row], o.project.projectId);
      if (o.req.include_feedback) {
        const rows = o.project.feedbackByRef.get(callRefUri(o.project.projectId, t.ids[row])) ?? [];
        (summary.weave as Record<string, unknown>).feedback = rows.map((f) => feedbackItem(f, p));
      }
      if (parsed === null) summaryJson = stringifyExact(summary);
      else {
        const out = expandedParts(o.store, o.canRead, parsed, summary, sel, expandColumns);
        [attributes, inputs, output, summaryJson] = [stringifyExact(out.attributes), stringifyExact(out.inputs), stringifyExact(out.output), stringifyExact(out.summary)];
      }
    }
    const storage = o.req.include_storage_size ? String(storageSize(o.store, t, row)) : 'null';
    const totalStorage = o.req.include_total_storage_size && t.parentIds[row] === null ? String(traceStorageSize(o.store, t, row)) : 'null';
    return (
      `{"id":${q(t.ids[row])},"project_id":${projectId},"op_name":${q(opName)},"display_name":${q(displayName)}` +
      `,"trace_id":${q(t.traceIds[row])},"parent_id":${q(sel.parent_id ? t.parentIds[row] : null)}` +
      `,"thread_id":${q(sel.thread_id ? t.threadIds[row] : null)},"turn_id":${q(sel.turn_id ? t.turnIds[row] : null)}` +
      `,"started_at":${dt(t.startedAt.data[row])},"attributes":${attributes},"inputs":${inputs}` +
      `,"ended_at":${dt(endedAt)},"exception":${q(exception)},"output":${output},"summary":${summaryJson}` +
      `,${userKey}:${q(sel.user_id ? t.userIds[row] : null)},${runKey}:${q(sel.run_id ? t.runIds.get(row) : null)}` +
      `,${stepKey}:${q(sel.run_step ? t.runStep.get(row) : null)},${stepEndKey}:${q(sel.run_step_end ? t.runStepEnd.get(row) : null)}` +
      `,"deleted_at":null,"storage_size_bytes":${storage},"total_storage_size_bytes":${totalStorage}}`
    );
  };
}

/**
 * The body parts with the expand columns' refs replaced by their values
 * (semantics.md#calls-expand).
 */
function expandedParts(
  store: Store,
  canRead: CanRead,
  body: CallBody,
  summary: Record<string, unknown>,
  sel: { attributes: boolean; inputs: boolean; output: boolean },
  expandColumns: readonly string[],
): Record<string, unknown> {
  const holder: Record<string, unknown> = {
    attributes: sel.attributes ? body.attributes : {},
    inputs: sel.inputs ? body.inputs : {},
    output: sel.output ? body.output : null,
    summary,
  };
  for (const col of expandColumns) expandColumn(store, canRead, holder, col);
  return holder;
}

/**
 * The stored summary text with the computed `weave` block appended, or null when the text
 * is not a plain object without a `weave` key of its own (then the summary is parsed and
 * merged by deriveSummary). No stored summary gives `{"weave":...}`.
 */
export function splicedSummary(stored: string | null, c: Omit<SummaryInputs, 'summary'>, errorCount: number): string | null {
  if (stored !== null && stored !== 'null') {
    // A `weave` key, also one spelled with \u escapes, is merged the parsing way.
    if (stored.charCodeAt(0) !== 0x7b /* { */ || stored.includes('"weave"') || stored.includes('\\u')) return null;
    const close = stored.lastIndexOf('}');
    for (let i = 1; i < close; i++) {
      const ch = stored.charCodeAt(i);
      // Anything but JSON whitespace: the object has members.
      if (ch !== 0x20 && ch !== 0x09 && ch !== 0x0a && ch !== 0x0d) return `${stored.slice(0, close)},"weave":${derivedWeaveJson(c, errorCount)}${stored.slice(close)}`;
    }
  }
  return `{"weave":${derivedWeaveJson(c, errorCount)}}`;
}

const TWO_DIGITS = Array.from({ length: 60 }, (_, i) => String(i).padStart(2, '0'));
const DAY_US = 86_400_000_000;

/**
 * A datetime renderer for one query's lines: formatMicros' output as a JSON string, with the
 * date part reused while rows fall on the same day (most pages span a few days).
 */
export function datetimeJsonFormatter(): (us: number) => string {
  let day = NaN;
  let prefix = '';
  return (us) => {
    if (Number.isNaN(us)) return 'null';
    const d = Math.floor(us / DAY_US);
    if (d !== day) {
      const text = formatMicros(d * DAY_US);
      day = d;
      prefix = `"${text.slice(0, text.indexOf('T') + 1)}`;
    }
    const inDay = us - d * DAY_US;
    const micros = inDay % 1_000_000;
    const secs = (inDay - micros) / 1_000_000;
    const time = `${TWO_DIGITS[Math.floor(secs / 3600)]}:${TWO_DIGITS[Math.floor((secs % 3600) / 60)]}:${TWO_DIGITS[secs % 60]}`;
    return micros === 0 ? `${prefix}${time}Z"` : `${prefix}${time}.${String(micros).padStart(6, '0')}Z"`;
  };
}

function feedbackItem(f: FeedbackRow, prefix: string): Record<string, unknown> {
  return {
    id: f.id,
    feedback_type: f.feedback_type,
    weave_ref: f.weave_ref,
    payload: f.payload,
    creator: f.creator,
    created_at: formatMicros(f.created_at),
    [`${prefix}user_id`]: f.user_id,
    runnable_ref: f.runnable_ref,
    call_ref: f.call_ref,
    trigger_ref: f.trigger_ref,
    annotation_ref: f.annotation_ref,
  };
}

/** Reads `path` from the call dict: a literal top-level key first, then the dotted path through dicts. */
function getNested(obj: Record<string, unknown>, path: string): { parent: Record<string, unknown>; key: string } | null {
  if (Object.prototype.hasOwnProperty.call(obj, path)) return { parent: obj, key: path };
  const parts = path.split('.');
  let cur: unknown = obj;
  for (let i = 0; i < parts.length - 1; i++) {
    if (cur === null || typeof cur !== 'object' || Array.isArray(cur)) return null;
    cur = (cur as Record<string, unknown>)[parts[i]];
  }
  if (cur === null || typeof cur !== 'object' || Array.isArray(cur)) return null;
  const key = parts[parts.length - 1];
  return Object.prototype.hasOwnProperty.call(cur, key) ? { parent: cur as Record<string, unknown>, key } : null;
}

/**
 * Replaces an object/op ref at `path` by its value (semantics.md#calls-expand, ClickHouse
 * write-back): a dict gets a `_ref` key with the original URI when it has none; other values
 * replace the string as is; unresolvable refs stay strings.
 */
function expandColumn(store: Store, canRead: CanRead, call: Record<string, unknown>, path: string): void {
  const at = getNested(call, path);
  if (!at) return;
  const value = at.parent[at.key];
  if (!value || typeof value !== 'string' || !parseObjectRef(value)) return;
  const resolved = resolveObjectRef(store, value, canRead);
  if (!resolved.found || resolved.value === null) return;
  // A copy: deeper expand columns write into it, and the stored value must not change.
  const out = parseExact(stringifyExact(resolved.value));
  if (out !== null && typeof out === 'object' && !Array.isArray(out)) {
    if (!Object.prototype.hasOwnProperty.call(out, '_ref')) (out as Record<string, unknown>)._ref = value;
  }
  at.parent[at.key] = out;
}
