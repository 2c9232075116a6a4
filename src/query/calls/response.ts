/**
 * Building each response line of /calls/stream_query: column selection
 * (semantics.md#calls-columns), the computed summary (semantics.md#calls-summary-response), and the
 * include_* enrichments (semantics.md#calls-include) applied to the returned page only.
 */
import { isPlainObject } from '../../core/plain-object.ts';
import { fieldNotAllowed } from '../../core/errors.ts';
import { formatMicros, timedeltaMillis } from '../../core/datetime.ts';
import { JsonLineWriter, jsonStringRoom, putBytes, putJsonNumber, putJsonString, utf8 } from '../../core/json/line-writer.ts';
import { parseExact, parseSpelled, stringifyExact } from '../../core/json/exact.ts';
import { callRefUri, parseObjectRef } from '../../core/refs.ts';
import { BODY_PARTS, type CallBody, type CallTable } from '../../store/call-table.ts';
import type { FeedbackRow, ProjectStore } from '../../store/project.ts';
import type { Store } from '../../store/store.ts';
import type { DerivedCache } from '../../store/derived.ts';
import { resolveObjectRef, type CanRead } from '../resolve-ref.ts';
import { applyCosts } from './costs.ts';
import { storageSize, traceStorageSize } from './storage-size.ts';
import type { CallsQuery } from './request.ts';
import { DatetimeBytes } from './datetime-json.ts';
import { deriveSummary, derivedWeaveJson, traceName, traceNameCache, type SummaryInputs } from './summary.ts';
import { bytesEqual as sameBytes, CLOSE_OBJ, isJsonSpace, isNullLiteral as isNullBytes, OPEN_OBJ } from '../../core/json/bytes.ts';

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
 * `x_dump` means `x`, unknown names are 422 (ClickHouse's get_field_by_name).
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

  // The trace name of an op as JSON bytes (null: none), computed once per op and query.
  const traceNameOf = (row: number, op: number): Uint8Array | null => {
    let name = op < 0 ? undefined : traceNameBytes[op];
    if (name === undefined) {
      const text = traceName(t.opName(row) ?? '', traceNames);
      name = text === null ? null : utf8(JSON.stringify(text));
      if (op >= 0) traceNameBytes[op] = name;
    }
    return name;
  };

  // The computed `weave` block, from `{"status":` to its closing brace, at b[at] (its room is
  // part of the row's: ROW_ROOM and the trace or display name's); returns the next index.
  const putWeave = (b: Uint8Array, at: number, row: number, endedAt: number, exception: string | null, displayName: string | null, name: Uint8Array | null): number => {
    at = put(b, at, K.status);
    at = put(b, at, exception ? STATUS_BYTES.error : Number.isNaN(endedAt) ? STATUS_BYTES.running : t.statusErrorCount.data[row] > 0 ? STATUS_BYTES.descendant_error : STATUS_BYTES.success);
    if (!Number.isNaN(endedAt)) {
      at = put(b, at, K.latency);
      at = putJsonNumber(b, at, timedeltaMillis(t.startedAt.data[row], endedAt));
    }
    if (displayName) {
      at = put(b, at, K.displayNameKey);
      at = putJsonString(b, at, displayName);
    } else if (name !== null) {
      at = put(b, at, K.traceNameKey);
      at = put(b, at, name);
    }
    b[at] = CLOSE_BRACE;
    return at + 1;
  };

  // Each row is written at a position of its own in the writer's buffer (room reserved once
  // for the whole row: the stored body, every string's escaped size, fixed pieces), so that
  // the ~40 pieces of a line are plain stores and copies rather than ~40 writer calls. What
  // has no byte form (a parsed and re-serialised summary or expanded body) goes through the
  // writer's own methods in between.
  return (row, w) => {
    const op = t.opIndex.data[row];
    let head = op < 0 ? noOpHead : opHeads[op];
    if (head === undefined) head = opHeads[op] = utf8(`${projectHead}${JSON.stringify(t.opName(row) ?? '')},"display_name":`);
    const startedAt = t.startedAt.data[row];
    const endedAt = sel.ended_at ? t.endedAt.data[row] : NaN;
    const exception = sel.exception ? t.exceptions.get(row) : null;
    const displayName = sel.display_name ? t.displayNames.get(row) : null;
    const id = t.id(row), traceId = t.traceId(row);
    const parent = sel.parent_id ? t.parentId(row) : null;
    const thread = sel.thread_id ? t.threadId(row) : null;
    const turn = sel.turn_id ? t.turnId(row) : null;
    const user = sel.user_id ? t.userId(row) : null;
    const run = sel.run_id ? t.runIds.get(row) : null;
    const name = displayName ? null : traceNameOf(row, op);
    const b = needsBody && expandColumns.length === 0 ? t.bodyChunkBytes(row) : null;
    if (b !== null) t.partByteSpans(row, spans);

    // Room for everything written at our own position (see ROW_ROOM).
    const room = ROW_ROOM + head.length + (name === null ? 0 : name.length) + (b === null ? 0 : t.bodyByteLength(row)) +
      stringRoom(id) + stringRoom(traceId) + stringRoom(parent) + stringRoom(thread) + stringRoom(turn) +
      stringRoom(exception) + stringRoom(displayName) * 2 + stringRoom(user) + stringRoom(run);
    let buf = w.room(room);
    let at = w.position;
    at = put(buf, at, K.open);
    at = putJsonString(buf, at, id);
    at = put(buf, at, head);
    at = putNullableThen(buf, at, displayName, K.nullTraceId, K.traceId);
    at = putJsonString(buf, at, traceId);
    at = put(buf, at, K.parentId);
    at = putNullableThen(buf, at, parent, K.nullThreadId, K.threadId);
    at = putNullableThen(buf, at, thread, K.nullTurnId, K.turnId);
    at = putNullableThen(buf, at, turn, K.nullStartedAt, K.startedAt);
    at = dt.put(buf, at, startedAt);

    if (expandColumns.length === 0) {
      at = put(buf, at, K.attributes);
      const attributes = b !== null && sel.attributes && spans[0] >= 0 && !isNullBytes(b, spans[0], spans[1]);
      const inputs = b !== null && sel.inputs && spans[2] >= 0 && !isNullBytes(b, spans[2], spans[3]);
      if (attributes && inputs && spans[2] - spans[1] === INPUTS_SEPARATOR.length && sameBytes(b!, spans[1], INPUTS_SEPARATOR)) {
        // Stored as the response spells them (`A,"inputs":I`, the usual key order): one copy.
        at = putBytes(buf, at, b!, spans[0], spans[3]);
        at = put(buf, at, K.endedAt);
      } else {
        if (attributes) {
          at = putBytes(buf, at, b!, spans[0], spans[1]);
          at = put(buf, at, K.inputs);
        } else at = put(buf, at, K.emptyInputs);
        if (inputs) {
          at = putBytes(buf, at, b!, spans[2], spans[3]);
          at = put(buf, at, K.endedAt);
        } else at = put(buf, at, K.emptyEndedAt);
      }
      at = dt.put(buf, at, endedAt);
      at = put(buf, at, K.exception);
      at = putNullableThen(buf, at, exception, K.nullOutput, K.output);
      if (b !== null && sel.output && spans[4] >= 0) {
        at = putBytes(buf, at, b, spans[4], spans[5]);
        at = put(buf, at, K.summary);
      } else at = put(buf, at, K.nullSummary);
      // The stored summary with the weave block spliced in when its bytes allow (splicedSummary's
      // rules, on bytes), else parsed, computed and re-serialised.
      const sumStart = b !== null && sel.summary ? spans[6] : -1;
      const sumEnd = spans[7];
      let close = -1; // where the weave block goes: the stored summary's closing brace; -2: no stored members
      if (spliceSummary) {
        if (sumStart < 0 || isNullBytes(b!, sumStart, sumEnd)) close = -2;
        else if (b![sumStart] === OPEN_BRACE && !t.summaryMentionsWeave(row)) {
          close = lastCloseBrace(b!, sumStart, sumEnd);
          if (!hasMembers(b!, sumStart + 1, close)) close = -2;
        }
      }
      if (close >= 0) {
        at = putBytes(buf, at, b!, sumStart, close);
        at = put(buf, at, K.weaveKey);
        at = putWeave(buf, at, row, endedAt, exception, displayName, name);
        at = putBytes(buf, at, b!, close, sumEnd);
      } else if (close === -2) {
        at = put(buf, at, K.weaveOnly);
        at = putWeave(buf, at, row, endedAt, exception, displayName, name);
        buf[at++] = CLOSE_BRACE;
      } else {
        const storedText = sumStart >= 0 ? t.bodyPartText(row, 'summary') : null;
        const stored = storedText === null ? null : (parseSpelled(storedText) as Record<string, unknown> | null);
        w.advance(at - w.position);
        w.text(stringifyExact(computedSummary(o, row, stored, endedAt, exception, displayName)));
        buf = w.room(room);
        at = w.position;
      }
    } else {
      // Expanded: parsed, changed and re-serialised, through the writer's methods.
      w.advance(at - w.position);
      const parsed = spelledParts(t, row);
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
      buf = w.room(room);
      at = w.position;
    }

    at = put(buf, at, userKey);
    at = putNullableThen(buf, at, user, nullRunKey, runKey);
    at = putNullableThen(buf, at, run, nullStepKey, stepKey);
    const step = sel.run_step ? t.runStep.get(row) : null;
    if (step === null) at = put(buf, at, nullStepEndKey);
    else {
      at = putJsonNumber(buf, at, step);
      at = put(buf, at, stepEndKey);
    }
    const stepEnd = sel.run_step_end ? t.runStepEnd.get(row) : null;
    at = stepEnd === null ? put(buf, at, K.null) : putJsonNumber(buf, at, stepEnd);
    at = put(buf, at, K.tail);
    if (o.req.include_storage_size) {
      at = putJsonNumber(buf, at, storageSize(o.store, t, row));
      at = put(buf, at, K.totalStorage);
    } else at = put(buf, at, K.nullTotalStorage);
    if (o.req.include_total_storage_size && t.isRoot(row)) {
      at = putJsonNumber(buf, at, traceStorageSize(o.store, t, row));
      at = put(buf, at, K.close);
    } else at = put(buf, at, K.nullClose);
    w.advance(at - w.position);
  };
}

/**
 * Room a row needs beyond its stored body, strings, op head and trace name: the fixed pieces
 * (under 400 bytes together), two datetimes, five numbers and the weave block's own pieces.
 */
const ROW_ROOM = 1024;
const OPEN_BRACE = OPEN_OBJ, CLOSE_BRACE = CLOSE_OBJ;

/** Room a nullable string column may take (jsonStringRoom, or `null`). */
function stringRoom(s: string | null): number {
  return s === null ? 4 : jsonStringRoom(s);
}

/** Copies all of `piece` (a constant) to `b[at]`; returns the next index. */
function put(b: Uint8Array, at: number, piece: Uint8Array): number {
  return putBytes(b, at, piece, 0, piece.length);
}

/**
 * A nullable string column followed by the next key: `null` + key as one constant piece
 * (`nullThen`), or the string then `key`.
 */
function putNullableThen(b: Uint8Array, at: number, s: string | null, nullThenNext: Uint8Array, next: Uint8Array): number {
  return s === null ? put(b, at, nullThenNext) : put(b, putJsonString(b, at, s), next);
}

/**
 * The index of the last `}` in `b[start, end)`, or -1: a stored object ends in it, so this
 * is a step or two back (Uint8Array.prototype.lastIndexOf costs a call into the engine).
 */
function lastCloseBrace(b: Uint8Array, start: number, end: number): number {
  for (let i = end - 1; i >= start; i--) if (b[i] === CLOSE_BRACE) return i;
  return -1;
}

/** Whether `b[start, end)` holds anything but JSON whitespace (an object's members). */
function hasMembers(b: Uint8Array, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const ch = b[i];
    if (!isJsonSpace(ch)) return true;
  }
  return false;
}

/** How far ahead of the row being written pageChunks touches rows (CallTable.touchRows). */
const TOUCH_AHEAD = 16;
/** Where touchRows' meaningless sums go, so that the reads are not optimised away. */
let touched = 0;

/**
 * The key of the lines rowWriter makes for `o` when they depend on the row alone (its columns
 * and body, its op's trace name), so that a line rendered once may be kept and copied the next
 * time (CallTable.renderedLines): the selected columns and the field prefix. Null when a line
 * also depends on other data (expanded refs, costs, feedback, storage sizes of the trace).
 */
export function renderedLineShape(o: Pick<LineBuilderOptions, 'req' | 'prefix' | 'selected'>): string | null {
  const r = o.req;
  if (r.include_costs || r.include_feedback || r.include_storage_size || r.include_total_storage_size) return null;
  if (r.return_expanded_column_values && (r.expand_columns ?? []).length > 0) return null;
  return `${o.prefix}\n${o.selected === null ? '*' : [...o.selected].sort().join(',')}`;
}

/**
 * The kept lines of a store's call tables (CallTable.renderedLines) as one of its derived
 * caches: measured with the others, and dropped with them (the bench's cold runs).
 */
class KeptLines implements DerivedCache {
  constructor(private readonly store: Store) {}
  clear(): void {
    for (const p of this.store.projects.values()) p.calls.renderedLines.clear();
  }
  bytes(): number {
    let n = 0;
    for (const p of this.store.projects.values()) n += p.calls.renderedLines.byteSize;
    return n;
  }
}

/** Registers the store's kept lines among its derived caches (once per store; a lookup after that). */
export function registerKeptLines(store: Store): void {
  store.derived.get('calls.rendered_lines', () => new KeptLines(store));
}

/**
 * A stretch of consecutive kept lines shorter than this is copied into the writer's chunk; a
 * longer one is handed on as it is (a view of the kept bytes: no copy).
 */
const HAND_ON_BYTES = 16 * 1024;

/**
 * Chunks of a page's lines (as rowChunks makes them), each stretch of TOUCH_AHEAD rows read
 * ahead of writing it (CallTable.touchRows). One loop, suspended once per chunk rather than
 * once per row (a generator resumed per row cost about a tenth of a row's render). Lazy: a row
 * is written only when the consumer pulls the chunk that holds it.
 *
 * With a `shape` (renderedLineShape), from the second render of that shape on, a row's line
 * kept from an earlier render is used instead of rendering it, and a rendered one is kept
 * (CallTable.renderedLines). Kept
 * lines of consecutive rows lie one after the other when they were rendered in this order (a
 * repeated answer): such a stretch, up to a chunk's size, is handed on as one view of the kept
 * bytes, or copied when short. Rows are touched ahead only while lines are missing.
 */
export function* pageChunks(
  t: CallTable,
  page: ArrayLike<number>,
  write: (row: number, w: JsonLineWriter) => void,
  writer = new JsonLineWriter(),
  shape: string | null = null,
): Generator<Uint8Array, void, undefined> {
  const kept = shape === null ? null : t.renderedLines.shape(shape);
  // The first render of a shape keeps nothing: a process that answers one query (a one-shot
  // from a shell) would pay the copies and the memory for nothing.
  if (kept === null || kept.uses < 2) {
    touched += t.touchRows(page, 0, TOUCH_AHEAD);
    for (let i = 0; i < page.length; i++) {
      if (i % TOUCH_AHEAD === 0) touched += t.touchRows(page, i + TOUCH_AHEAD, i + 2 * TOUCH_AHEAD);
      write(page[i], writer);
      if (writer.endLine()) yield writer.take();
    }
    if (writer.size > 0) yield writer.take();
    return;
  }
  const lines = t.renderedLines;
  const target = writer.chunkTarget;
  // The stretch of kept lines not yet handed on: run[runStart, runEnd).
  let run: Uint8Array | null = null;
  let runStart = 0, runEnd = 0;
  let missed = false;
  for (let i = 0; i < page.length; i++) {
    if (i % TOUCH_AHEAD === 0 && missed) {
      touched += t.touchRows(page, i + TOUCH_AHEAD, i + 2 * TOUCH_AHEAD);
      missed = false;
    }
    const row = page[i];
    const found = lines.find(kept, row);
    if (found !== null && found === run && lines.foundStart === runEnd && runEnd - runStart < target) {
      runEnd = lines.foundEnd;
      continue;
    }
    if (run !== null) {
      yield* handOnKept(writer, run, runStart, runEnd);
      run = null;
    }
    if (found !== null) {
      run = found;
      runStart = lines.foundStart;
      runEnd = lines.foundEnd;
      continue;
    }
    if (!missed) touched += t.touchRows(page, i + 1, i + TOUCH_AHEAD);
    missed = true;
    const start = writer.position;
    write(row, writer);
    const due = writer.endLine();
    lines.keep(kept, row, writer.room(0), start, writer.position);
    if (due) yield writer.take();
  }
  if (run !== null) yield* handOnKept(writer, run, runStart, runEnd);
  if (writer.size > 0) yield writer.take();
}

/**
 * A stretch of kept lines, `run[start, end)`, handed on as it is when long (after what the
 * writer holds), else copied into the writer, whose chunk is taken once it is full.
 */
function* handOnKept(writer: JsonLineWriter, run: Uint8Array, start: number, end: number): Generator<Uint8Array, void, undefined> {
  if (end - start >= HAND_ON_BYTES) {
    if (writer.size > 0) yield writer.take();
    yield run.subarray(start, end);
  } else {
    writer.bytes(run, start, end);
    if (writer.size >= writer.chunkTarget) yield writer.take();
  }
}

/**
 * The response summary of a row, parsed and computed (semantics.md#calls-summary-response), with
 * costs and feedback when asked for (semantics.md#calls-include).
 */
function computedSummary(o: LineBuilderOptions, row: number, stored: Record<string, unknown> | null, endedAt: number, exception: string | null, displayName: string | null): Record<string, unknown> {
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
    if (stored.charCodeAt(0) !== OPEN_OBJ || stored.includes('"weave"') || stored.includes('\\u')) return null;
    const close = stored.lastIndexOf('}');
    for (let i = 1; i < close; i++) {
      const ch = stored.charCodeAt(i);
      // Anything but JSON whitespace: the object has members.
      if (!isJsonSpace(ch)) return `${stored.slice(0, close)},"weave":${derivedWeaveJson(c, errorCount)}${stored.slice(close)}`;
    }
  }
  return `{"weave":${derivedWeaveJson(c, errorCount)}}`;
}

/**
 * A row's parts as body() gives them, parsed so that writing them back keeps their number
 * spellings (`1.0` stays a float: semantics.md#writes-number-spelling), for the lines that
 * re-serialise the parts.
 */
function spelledParts(t: CallTable, row: number): CallBody {
  const [attributes, inputs, output, summary] = t.bodyPartTexts(row).map((text) => (text === null ? null : parseSpelled(text)));
  return {
    attributes: (attributes as Record<string, unknown> | null) ?? {},
    inputs: (inputs as Record<string, unknown> | null) ?? {},
    output: output ?? null,
    summary: (summary as Record<string, unknown> | null) ?? null,
  };
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
