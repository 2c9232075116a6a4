/**
 * Building each response line of /calls/stream_query: column selection
 * (semantics.md#calls-columns), the computed summary (semantics.md#calls-summary-response), and the
 * include_* enrichments (semantics.md#calls-include) applied to the returned page only.
 */
import { isPlainObject } from '../../core/plain-object.ts';
import { fieldNotAllowed } from '../../core/errors.ts';
import { formatMicros, timedeltaMillis } from '../../core/datetime.ts';
import { utf8, type JsonLineWriter } from '../../core/json/line-writer.ts';
import { parseExact, stringifyExact } from '../../core/json/exact.ts';
import { callRefUri, parseObjectRef } from '../../core/refs.ts';
import { BODY_PARTS, type CallBody, type CallTable } from '../../store/call-table.ts';
import type { FeedbackRow, ProjectStore } from '../../store/project.ts';
import type { Store } from '../../store/store.ts';
import { resolveObjectRef, type CanRead } from '../resolve-ref.ts';
import { applyCosts } from './costs.ts';
import { storageSize, traceStorageSize } from './storage-size.ts';
import type { CallsQuery } from './request.ts';
import { DatetimeBytes } from './datetime-json.ts';
import { deriveSummary, derivedWeaveJson, traceName, traceNameCache, type SummaryInputs } from './summary.ts';

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
 * The constant pieces of a line, as bytes: each key with the separator before it, and (`null`
 * + key) for a null value followed by that key, so that a null costs one copy.
 */
const key = (name: string) => utf8(`,"${name}":`);
const nullThen = (name: string) => utf8(`null,"${name}":`);
const K = {
  open: utf8('{"id":'),
  traceId: key('trace_id'),
  nullTraceId: nullThen('trace_id'),
  parentId: key('parent_id'),
  threadId: key('thread_id'),
  nullThreadId: nullThen('thread_id'),
  turnId: key('turn_id'),
  nullTurnId: nullThen('turn_id'),
  startedAt: key('started_at'),
  nullStartedAt: nullThen('started_at'),
  attributes: key('attributes'),
  inputs: key('inputs'),
  emptyInputs: utf8('{},"inputs":'),
  endedAt: key('ended_at'),
  emptyEndedAt: utf8('{},"ended_at":'),
  exception: key('exception'),
  output: key('output'),
  nullOutput: nullThen('output'),
  summary: key('summary'),
  nullSummary: nullThen('summary'),
  tail: utf8(',"deleted_at":null,"storage_size_bytes":'),
  totalStorage: key('total_storage_size_bytes'),
  nullTotalStorage: nullThen('total_storage_size_bytes'),
  close: utf8('}'),
  nullClose: utf8('null}'),
  emptyObject: utf8('{}'),
  null: utf8('null'),
  weaveKey: key('weave'),
  weaveOnly: utf8('{"weave":'),
  status: utf8('{"status":"'),
  latency: key('latency_ms'),
  displayNameKey: key('display_name'),
  traceNameKey: key('trace_name'),
};
const STATUS_BYTES = {
  error: utf8('error"'),
  running: utf8('running"'),
  descendant_error: utf8('descendant_error"'),
  success: utf8('success"'),
};

/**
 * Makes the function that writes one row as a JSON line (keys in CallSchema order, no newline)
 * into a JsonLineWriter. What the text oracle (response-text.testing.ts, the former renderer)
 * gives, byte for byte.
 *
 * Common path (no expansion, costs or feedback): `attributes`, `inputs` and `output` are copied
 * from the stored bytes (CallTable.partByteSpans), the computed `weave` block is spliced into
 * the stored summary bytes, ids and datetimes are written straight into the buffer: no parse,
 * no serialisation, no string per row. Otherwise the summary (and with `expand_columns` the
 * body) is parsed, changed and re-serialised, and that text is written.
 */
export function rowWriter(o: LineBuilderOptions): (row: number, w: JsonLineWriter) => void {
  const t = o.project.calls;
  const traceNames = traceNameCache(o.store);
  const has = (c: string) => o.selected === null || o.selected.has(c);
  const expandColumns = o.req.return_expanded_column_values
    ? [...(o.req.expand_columns ?? [])].sort((a, b) => a.split('.').length - b.split('.').length)
    : [];
  const needsBody = BODY_PARTS.some(has);
  const p = o.prefix;
  const dt = new DatetimeBytes();
  const userKey = key(`${p}user_id`), runKey = key(`${p}run_id`), nullRunKey = nullThen(`${p}run_id`);
  const stepKey = key(`${p}run_step`), nullStepKey = nullThen(`${p}run_step`);
  const stepEndKey = key(`${p}run_step_end`), nullStepEndKey = nullThen(`${p}run_step_end`);
  const projectHead = `,"project_id":${JSON.stringify(o.project.projectId)},"op_name":`;
  const sel = {
    attributes: has('attributes'), inputs: has('inputs'), output: has('output'), summary: has('summary'),
    ended_at: has('ended_at'), exception: has('exception'), display_name: has('display_name'),
    parent_id: has('parent_id'), thread_id: has('thread_id'), turn_id: has('turn_id'),
    user_id: has(`${p}user_id`), run_id: has(`${p}run_id`), run_step: has(`${p}run_step`), run_step_end: has(`${p}run_step_end`),
  };
  // Without expansion, costs or feedback the computed `weave` block is spliced into the stored
  // summary bytes instead of parsing and re-serialising the summary.
  const spliceSummary = expandColumns.length === 0 && !o.req.include_costs && !o.req.include_feedback;
  // Per op (interned), computed once per query: the bytes from the project id to the display
  // name's key (the op name in the middle), and the trace name as JSON.
  const opHeads: Array<Uint8Array | undefined> = [];
  const traceNameBytes: Array<Uint8Array | null | undefined> = [];
  const noOpHead = utf8(`${projectHead}"","display_name":`);
  const spans = new Int32Array(8);

  const writeWeave = (w: JsonLineWriter, row: number, op: number, endedAt: number, exception: string | null, displayName: string | null) => {
    const errorCount = t.statusErrorCount.data[row];
    w.bytes(K.status);
    w.bytes(exception ? STATUS_BYTES.error : Number.isNaN(endedAt) ? STATUS_BYTES.running : errorCount > 0 ? STATUS_BYTES.descendant_error : STATUS_BYTES.success);
    if (!Number.isNaN(endedAt)) {
      w.bytes(K.latency);
      w.num(timedeltaMillis(t.startedAt.data[row], endedAt));
    }
    if (displayName) {
      w.bytes(K.displayNameKey);
      w.str(displayName);
    } else {
      let name = op < 0 ? undefined : traceNameBytes[op];
      if (name === undefined) {
        const text = traceName(t.opName(row) ?? '', traceNames);
        name = text === null ? null : utf8(JSON.stringify(text));
        if (op >= 0) traceNameBytes[op] = name;
      }
      if (name !== null) {
        w.bytes(K.traceNameKey);
        w.bytes(name);
      }
    }
    w.bytes(K.close);
  };

  // The stored summary with the weave block spliced in, or false when it must be parsed
  // (splicedSummary's rules, on bytes).
  const writeSplicedSummary = (w: JsonLineWriter, b: Uint8Array, start: number, end: number, row: number, op: number, endedAt: number, exception: string | null, displayName: string | null): boolean => {
    if (start >= 0 && !isNullBytes(b, start, end)) {
      if (b[start] !== 0x7b || t.summaryMentionsWeave(row)) return false;
      const close = b.lastIndexOf(0x7d, end - 1);
      for (let i = start + 1; i < close; i++) {
        const ch = b[i];
        if (ch !== 0x20 && ch !== 0x09 && ch !== 0x0a && ch !== 0x0d) {
          w.bytes(b, start, close);
          w.bytes(K.weaveKey);
          writeWeave(w, row, op, endedAt, exception, displayName);
          w.bytes(b, close, end);
          return true;
        }
      }
    }
    w.bytes(K.weaveOnly);
    writeWeave(w, row, op, endedAt, exception, displayName);
    w.bytes(K.close);
    return true;
  };

  return (row, w) => {
    const op = t.opIndex.data[row];
    let head = op < 0 ? noOpHead : opHeads[op];
    if (head === undefined) head = opHeads[op] = utf8(`${projectHead}${JSON.stringify(t.opName(row) ?? '')},"display_name":`);
    const endedAt = sel.ended_at ? t.endedAt.data[row] : NaN;
    const exception = sel.exception ? t.exceptions.get(row) : null;
    const displayName = sel.display_name ? t.displayNames.get(row) : null;

    w.bytes(K.open);
    w.str(t.id(row));
    w.bytes(head);
    if (displayName === null) w.bytes(K.nullTraceId);
    else {
      w.str(displayName);
      w.bytes(K.traceId);
    }
    w.str(t.traceId(row));
    w.bytes(K.parentId);
    const parent = sel.parent_id ? t.parentId(row) : null;
    if (parent === null) w.bytes(K.nullThreadId);
    else {
      w.str(parent);
      w.bytes(K.threadId);
    }
    const thread = sel.thread_id ? t.threadId(row) : null;
    if (thread === null) w.bytes(K.nullTurnId);
    else {
      w.str(thread);
      w.bytes(K.turnId);
    }
    const turn = sel.turn_id ? t.turnId(row) : null;
    if (turn === null) w.bytes(K.nullStartedAt);
    else {
      w.str(turn);
      w.bytes(K.startedAt);
    }
    dt.write(w, t.startedAt.data[row]);

    if (expandColumns.length === 0) {
      let b: Uint8Array | null = null;
      if (needsBody) {
        b = t.bodyChunkBytes(row);
        t.partByteSpans(row, spans);
      }
      w.bytes(K.attributes);
      const attributes = b !== null && sel.attributes && spans[0] >= 0 && !isNullBytes(b, spans[0], spans[1]);
      const inputs = b !== null && sel.inputs && spans[2] >= 0 && !isNullBytes(b, spans[2], spans[3]);
      if (attributes && inputs && spans[2] - spans[1] === INPUTS_SEPARATOR.length && sameBytes(b!, spans[1], INPUTS_SEPARATOR)) {
        // Stored as the response spells them (`A,"inputs":I`, the usual key order): one copy.
        w.bytes(b!, spans[0], spans[3]);
        w.bytes(K.endedAt);
      } else {
        if (attributes) {
          w.bytes(b!, spans[0], spans[1]);
          w.bytes(K.inputs);
        } else w.bytes(K.emptyInputs);
        if (inputs) {
          w.bytes(b!, spans[2], spans[3]);
          w.bytes(K.endedAt);
        } else w.bytes(K.emptyEndedAt);
      }
      dt.write(w, endedAt);
      w.bytes(K.exception);
      if (exception === null) w.bytes(K.nullOutput);
      else {
        w.str(exception);
        w.bytes(K.output);
      }
      if (b !== null && sel.output && spans[4] >= 0) {
        w.bytes(b, spans[4], spans[5]);
        w.bytes(K.summary);
      } else w.bytes(K.nullSummary);
      const sumStart = b !== null && sel.summary ? spans[6] : -1;
      if (!(spliceSummary && writeSplicedSummary(w, b!, sumStart, spans[7], row, op, endedAt, exception, displayName))) {
        const storedText = sumStart >= 0 ? t.bodyPartText(row, 'summary') : null;
        const stored = storedText === null ? null : (parseExact(storedText) as Record<string, unknown> | null);
        w.text(stringifyExact(computedSummary(o, row, stored, endedAt, exception, displayName)));
      }
    } else {
      const parsed = t.body(row);
      const summary = computedSummary(o, row, sel.summary ? parsed.summary : null, endedAt, exception, displayName);
      const out = expandedParts(o.store, o.canRead, parsed, summary, sel, expandColumns);
      w.bytes(K.attributes);
      w.text(stringifyExact(out.attributes));
      w.bytes(K.inputs);
      w.text(stringifyExact(out.inputs));
      w.bytes(K.endedAt);
      dt.write(w, endedAt);
      w.bytes(K.exception);
      w.str(exception);
      w.bytes(K.output);
      w.text(stringifyExact(out.output));
      w.bytes(K.summary);
      w.text(stringifyExact(out.summary));
    }

    w.bytes(userKey);
    const user = sel.user_id ? t.userId(row) : null;
    if (user === null) w.bytes(nullRunKey);
    else {
      w.str(user);
      w.bytes(runKey);
    }
    const run = sel.run_id ? t.runIds.get(row) : null;
    if (run === null) w.bytes(nullStepKey);
    else {
      w.str(run);
      w.bytes(stepKey);
    }
    const step = sel.run_step ? t.runStep.get(row) : null;
    if (step === null) w.bytes(nullStepEndKey);
    else {
      w.num(step);
      w.bytes(stepEndKey);
    }
    w.num(sel.run_step_end ? t.runStepEnd.get(row) : null);
    w.bytes(K.tail);
    if (o.req.include_storage_size) {
      w.num(storageSize(o.store, t, row));
      w.bytes(K.totalStorage);
    } else w.bytes(K.nullTotalStorage);
    if (o.req.include_total_storage_size && t.isRoot(row)) {
      w.num(traceStorageSize(o.store, t, row));
      w.bytes(K.close);
    } else w.bytes(K.nullClose);
  };
}

/**
 * The response summary of a row, parsed and computed (semantics.md#calls-summary-response), with
 * costs and feedback when asked for (semantics.md#calls-include).
 */
export function computedSummary(o: LineBuilderOptions, row: number, stored: Record<string, unknown> | null, endedAt: number, exception: string | null, displayName: string | null): Record<string, unknown> {
  const t = o.project.calls;
  const summary = deriveSummary({ summary: stored, opName: t.opName(row) ?? '', startedAt: t.startedAt.data[row], endedAt: Number.isNaN(endedAt) ? null : endedAt, exception, displayName, traceNames: traceNameCache(o.store) });
  if (o.req.include_costs) applyCosts(summary, o.store.prices, t.startedAt.data[row], o.project.projectId);
  if (o.req.include_feedback) {
    const rows = o.project.feedbackByRef.get(callRefUri(o.project.projectId, t.id(row))) ?? [];
    (summary.weave as Record<string, unknown>).feedback = rows.map((f) => feedbackItem(f, o.prefix));
  }
  return summary;
}

const INPUTS_SEPARATOR = utf8(',"inputs":');

/** Whether `b` holds `piece` at `at`. */
function sameBytes(b: Uint8Array, at: number, piece: Uint8Array): boolean {
  for (let i = 0; i < piece.length; i++) if (b[at + i] !== piece[i]) return false;
  return true;
}

/** Whether `b[start, end)` is the literal `null`. */
function isNullBytes(b: Uint8Array, start: number, end: number): boolean {
  return end - start === 4 && b[start] === 0x6e && b[start + 1] === 0x75 && b[start + 2] === 0x6c && b[start + 3] === 0x6c;
}


/**
 * The body parts with the expand columns' refs replaced by their values
 * (semantics.md#calls-expand).
 */
export function expandedParts(
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

export function feedbackItem(f: FeedbackRow, prefix: string): Record<string, unknown> {
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
    if (!isPlainObject(cur)) return null;
    cur = cur[parts[i]];
  }
  if (!isPlainObject(cur)) return null;
  const key = parts[parts.length - 1];
  return Object.prototype.hasOwnProperty.call(cur, key) ? { parent: cur, key } : null;
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
  if (isPlainObject(out) && !Object.prototype.hasOwnProperty.call(out, '_ref')) out._ref = value;
  at.parent[at.key] = out;
}
