/**
 * The calls of one project, stored column-wise.
 *
 * Row r is the r-th call whose start part arrived (insertion order: what `sort_by: []`
 * returns). Scalars the queries filter and sort on sit in typed arrays or plain arrays indexed
 * by row; the JSON bodies (attributes, inputs, output, summary) are kept as UTF-8 text in a
 * byte arena and parsed only when a query needs them. Indexes map ids to rows so that id
 * filters never scan the project.
 */
import { parseExact, stringifyExact } from '../core/json/exact.ts';
import { topLevelValueSpans } from '../core/json/spans.ts';
import { extractRefs } from '../core/refs.ts';
import { addToIndex, ByteArena, Float64Column, Int32Column, Interner, MultiIndex, removeFromIndex, SparseColumn } from './columns.ts';
import { isPlainObject } from '../core/plain-object.ts';

/** The JSON parts of a call, parsed from the stored text. */
export interface CallBody {
  attributes: Record<string, unknown>;
  inputs: Record<string, unknown>;
  output: unknown;
  summary: Record<string, unknown> | null;
}

/** A call start, engine-side (datetimes in µs, prefix-neutral names). */
export interface CallStartPart {
  id: string;
  op_name: string;
  display_name: string | null;
  trace_id: string;
  parent_id: string | null;
  thread_id: string | null;
  turn_id: string | null;
  started_at: number;
  attributes: Record<string, unknown>;
  inputs: Record<string, unknown>;
  user_id: string | null;
  run_id: string | null;
  run_step: number | null;
}

/** A call end, engine-side. */
export interface CallEndPart {
  id: string;
  ended_at: number;
  exception: string | null;
  output: unknown;
  summary: Record<string, unknown>;
  run_step_end: number | null;
}

/** A whole call as a fixture line gives it: start and (optional) end in one record. */
export interface CallRecordPart extends CallStartPart {
  ended_at: number | null;
  exception: string | null;
  output: unknown;
  summary: Record<string, unknown> | null;
  run_step_end: number | null;
  deleted_at: number | null;
}

const NULL_OP = -1;

/** The JSON parts of a call body, in the order of the part spans. */
export const BODY_PARTS = ['attributes', 'inputs', 'output', 'summary'] as const;
const PART_INDEX: Record<keyof CallBody, number> = { attributes: 0, inputs: 1, output: 2, summary: 3 };
/** Span offsets are kept as uint16: longer bodies are scanned every time instead. */
const SPAN_LIMIT = 0xffff;
const ABSENT = 0xffff;

/**
 * What a row's columns take from its JSON parts: the refs in inputs and output (output's null
 * when the call has no end and no output), and `summary.status_counts.error` (NaN when absent
 * or not a number).
 */
export interface DerivedColumns {
  inputRefs: string[];
  outputRefs: string[] | null;
  errorCount: number;
}

/** A complete record whose id is already stored (fixtures hold each call once). */
export class DuplicateCallError extends Error {
  constructor(readonly callId: string) {
    super(`duplicate call id ${callId}`);
  }
}

export class CallTable {
  // Identity and relations.
  readonly ids: string[] = [];
  readonly traceIds: string[] = [];
  readonly parentIds: Array<string | null> = [];
  readonly threadIds: Array<string | null> = [];
  readonly turnIds: Array<string | null> = [];
  readonly opNames = new Interner();
  readonly opIndex = new Int32Column();

  // Hot scalars.
  readonly startedAt = new Float64Column();
  readonly endedAt = new Float64Column();
  readonly deletedAt = new Float64Column();
  /** `summary.status_counts.error` as a number (NaN when absent or not numeric). */
  readonly statusErrorCount = new Float64Column();

  // Mostly-null fields, stored sparsely.
  readonly runStep = new SparseColumn<number>();
  readonly runStepEnd = new SparseColumn<number>();
  readonly displayNames = new SparseColumn<string>();
  readonly exceptions = new SparseColumn<string>();
  readonly runIds = new SparseColumn<string>();
  readonly inputRefs = new SparseColumn<string[]>();
  readonly outputRefs = new SparseColumn<string[]>();
  /** Nullable, but set on nearly every call. */
  readonly userIds: Array<string | null> = [];

  // JSON bodies: arena handle per row.
  private readonly arena = new ByteArena();
  private readonly bodyChunk = new Int32Column();
  private readonly bodyOffset = new Int32Column();
  private readonly bodyLength = new Int32Column();
  /**
   * Where each part's value sits in a row's body text (start, end per part, in UTF-16 units),
   * found on the first read of the row and remembered: rendering a line then slices the parts
   * instead of scanning the whole body again. Allocated on first use.
   */
  private partSpans = new Uint16Array(0);
  private partSpansKnown = new Uint8Array(0);

  // Indexes.
  readonly byId = new Map<string, number>();
  readonly byTrace = new MultiIndex<string>();
  readonly byParent = new MultiIndex<string>();
  readonly byThread = new MultiIndex<string>();
  readonly byTurn = new MultiIndex<string>();
  readonly byOp = new MultiIndex<number>();
  /** Turn calls (id == turn_id) of each thread, in insertion order. */
  readonly turnsByThread = new Map<string, number[]>();

  /** Ends that arrived before their start; applied when the start comes. */
  private readonly pendingEnds = new Map<string, CallEndPart>();
  /** One copy of each repeated id string (trace, thread, turn, parent, user, run ids). */
  private readonly sharedStrings = new Map<string, string>();

  /**
   * Bumped on every in-place change of an existing row (an end, a display-name update), so
   * that derived per-row caches know to rebuild. Appends do not bump it.
   */
  version = 0;
  /** Bumped when an existing row's started_at may change (a repeated start): orders rebuild. */
  startVersion = 0;

  get size(): number {
    return this.ids.length;
  }

  rowOf(id: string): number | undefined {
    return this.byId.get(id);
  }

  opName(row: number): string | null {
    const i = this.opIndex.data[row];
    return i === NULL_OP ? null : this.opNames.values[i];
  }

  isDeleted(row: number): boolean {
    return !Number.isNaN(this.deletedAt.data[row]);
  }

  /** A call start (write path). Merges an end that arrived first. Returns the row. */
  start(part: CallStartPart, bodyText?: string): number {
    const existing = this.byId.get(part.id);
    if (existing !== undefined) {
      // A repeated start: the latest start wins, as a merge of appended parts would give.
      this.overwriteStart(existing, part);
      return existing;
    }
    const row = this.appendRow(part, {
      ended_at: null,
      exception: null,
      output: null,
      summary: null,
      run_step_end: null,
      deleted_at: null,
    });
    this.setBody(row, bodyText ?? stringifyExact({ attributes: part.attributes, inputs: part.inputs, output: null, summary: null }));
    const pending = this.pendingEnds.get(part.id);
    if (pending) {
      this.pendingEnds.delete(part.id);
      this.end(pending);
    }
    return row;
  }

  /** A call end (write path). Waits for the start when it is not there yet. */
  end(part: CallEndPart): void {
    const row = this.byId.get(part.id);
    if (row === undefined) {
      this.pendingEnds.set(part.id, part);
      return;
    }
    const body = this.body(row);
    this.endedAt.data[row] = part.ended_at;
    this.exceptions.set(row, part.exception);
    this.runStepEnd.set(row, part.run_step_end);
    this.statusErrorCount.data[row] = errorCount(part.summary);
    this.outputRefs.set(row, this.refList(extractRefs(wrapOutput(part.output))));
    this.setBody(row, stringifyExact({ attributes: body.attributes, inputs: body.inputs, output: part.output, summary: part.summary }));
    this.version++;
  }

  /**
   * A complete record (fixtures). `lineBytes[start, end)` is its JSON text; it is stored as the
   * body as-is, so loading costs one parse and one copy. `derived` gives what the row's
   * columns take from the JSON parts when the caller found it without building them (the
   * byte scanner of the fixture load); without it, it is taken from the record's parts.
   */
  load(record: CallRecordPart, lineBytes: Uint8Array, start: number, end: number, derived?: DerivedColumns): number {
    if (this.byId.has(record.id)) throw new DuplicateCallError(record.id);
    const row = this.appendRow(record, record, derived);
    const [chunk, offset] = this.arena.append(lineBytes, start, end);
    this.bodyChunk.data[row] = chunk;
    this.bodyOffset.data[row] = offset;
    this.bodyLength.data[row] = end - start;
    return row;
  }

  /**
   * load() for a line in a block of lines the caller hands over (a parallel load's block, never
   * changed again): the table keeps the block as a chunk of its arena instead of copying the
   * line.
   */
  loadFromBlock(record: CallRecordPart, block: Buffer, start: number, end: number, derived?: DerivedColumns): number {
    if (this.byId.has(record.id)) throw new DuplicateCallError(record.id);
    const row = this.appendRow(record, record, derived);
    this.bodyChunk.data[row] = this.arena.adopt(block);
    this.bodyOffset.data[row] = start;
    this.bodyLength.data[row] = end - start;
    return row;
  }

  /** `calls_delete`: a soft delete; the row stays but is invisible to every query. */
  markDeleted(row: number, atUs: number): void {
    this.deletedAt.data[row] = atUs;
    this.version++;
  }

  /** `call_update`: the latest display name wins; the empty string clears it. */
  setDisplayName(row: number, name: string | null): void {
    this.displayNames.set(row, name === '' ? null : name);
    this.version++;
  }

  /** The stored JSON parts of a row. */
  body(row: number): CallBody {
    const text = this.bodyText(row);
    const obj = parseExact(text) as Partial<CallBody>; // big integers keep their digits
    return {
      attributes: (obj.attributes as Record<string, unknown>) ?? {},
      inputs: (obj.inputs as Record<string, unknown>) ?? {},
      output: obj.output ?? null,
      summary: (obj.summary as Record<string, unknown> | null) ?? null,
    };
  }

  /**
   * One JSON part of a row, parsed alone: the part's text is located without parsing the rest
   * (a call body is mostly inputs and output; a query reading `inputs.x` need not parse output).
   * Defaults as in body(): `{}` for attributes/inputs, null for output/summary.
   */
  bodyPart(row: number, part: keyof CallBody): unknown {
    const text = this.bodyPartTexts(row)[PART_INDEX[part]];
    const value = text === null ? null : parseExact(text);
    return value === null && (part === 'attributes' || part === 'inputs') ? {} : value;
  }

  /** The stored JSON text of one part, or null when the body has none. */
  bodyPartText(row: number, part: keyof CallBody): string | null {
    return this.bodyPartTexts(row)[PART_INDEX[part]];
  }

  /** The stored JSON text of attributes, inputs, output and summary (null when absent), as they are. */
  bodyPartTexts(row: number): Array<string | null> {
    const text = this.bodyText(row);
    const out: Array<string | null> = [null, null, null, null];
    if (row < this.partSpansKnown.length && this.partSpansKnown[row] === 1) {
      const s = this.partSpans;
      for (let k = 0, at = row * 8; k < 4; k++, at += 2) if (s[at] !== ABSENT) out[k] = text.slice(s[at], s[at + 1]);
      return out;
    }
    const spans = topLevelValueSpans(text, BODY_PARTS);
    for (let k = 0; k < 4; k++) if (spans[2 * k] >= 0) out[k] = text.slice(spans[2 * k], spans[2 * k + 1]);
    if (text.length < SPAN_LIMIT) this.rememberSpans(row, spans);
    return out;
  }

  private rememberSpans(row: number, spans: Int32Array): void {
    if (row >= this.partSpansKnown.length) {
      const cap = Math.max(1024, Math.ceil(this.ids.length * 1.25), row + 1);
      const known = new Uint8Array(cap);
      known.set(this.partSpansKnown);
      const s = new Uint16Array(cap * 8);
      s.set(this.partSpans);
      this.partSpansKnown = known;
      this.partSpans = s;
    }
    for (let k = 0; k < 8; k++) this.partSpans[row * 8 + k] = spans[k] < 0 ? ABSENT : spans[k];
    this.partSpansKnown[row] = 1;
  }

  bodyText(row: number): string {
    return this.arena.text(this.bodyChunk.data[row], this.bodyOffset.data[row], this.bodyLength.data[row]);
  }

  /** Bytes of body text held (memory reports). */
  get arenaBytes(): number {
    return this.arena.byteSize;
  }

  get pendingEndCount(): number {
    return this.pendingEnds.size;
  }

  /** Ends still waiting for their start, in arrival order (what a store dump must keep). */
  pendingEndParts(): CallEndPart[] {
    return [...this.pendingEnds.values()];
  }

  private setBody(row: number, text: string): void {
    if (row < this.partSpansKnown.length) this.partSpansKnown[row] = 0;
    const [chunk, offset, length] = this.arena.appendString(text);
    this.bodyChunk.data[row] = chunk;
    this.bodyOffset.data[row] = offset;
    this.bodyLength.data[row] = length;
  }

  /**
   * The shared copy of a repeated string. JSON.parse gives every occurrence its own string;
   * keeping one copy per distinct value is what keeps the per-call overhead small.
   */
  private share(value: string): string;
  private share(value: string | null): string | null;
  private share(value: string | null): string | null {
    if (value === null) return null;
    const seen = this.sharedStrings.get(value);
    if (seen !== undefined) return seen;
    this.sharedStrings.set(value, value);
    return value;
  }

  /** A parent (or turn) id reuses the referenced call's own id string when it is loaded. */
  private callIdString(value: string | null): string | null {
    if (value === null) return null;
    const row = this.byId.get(value);
    return row === undefined ? this.share(value) : this.ids[row];
  }

  /** Extracted refs with shared strings; null when there are none. */
  private refList(refs: string[]): string[] | null {
    if (refs.length === 0) return null;
    for (let i = 0; i < refs.length; i++) refs[i] = this.share(refs[i]);
    return refs;
  }

  private appendRow(
    s: CallStartPart,
    e: Omit<CallRecordPart, keyof CallStartPart>,
    { inputRefs, outputRefs, errorCount: statusErrors }: DerivedColumns = derivedColumns(s, e),
  ): number {
    const row = this.ids.length;
    const traceId = this.share(s.trace_id);
    this.ids.push(s.id);
    this.byId.set(s.id, row);
    this.traceIds.push(traceId);
    this.parentIds.push(this.callIdString(s.parent_id));
    this.threadIds.push(this.share(s.thread_id));
    this.turnIds.push(this.callIdString(s.turn_id));
    const op = this.opNames.id(s.op_name);
    this.opIndex.push(op);
    this.startedAt.push(s.started_at);
    this.endedAt.push(e.ended_at ?? NaN);
    this.deletedAt.push(e.deleted_at ?? NaN);
    this.statusErrorCount.push(statusErrors);
    this.runStep.init(row, s.run_step);
    this.runStepEnd.init(row, e.run_step_end);
    this.displayNames.init(row, s.display_name === '' ? null : s.display_name);
    this.exceptions.init(row, e.exception);
    this.userIds.push(this.share(s.user_id));
    this.runIds.init(row, this.share(s.run_id));
    this.inputRefs.init(row, this.refList(inputRefs));
    this.outputRefs.init(row, outputRefs === null ? null : this.refList(outputRefs));
    this.bodyChunk.push(0);
    this.bodyOffset.push(0);
    this.bodyLength.push(0);

    this.byTrace.add(traceId, row);
    this.byOp.add(op, row);
    this.indexRelations(row, s);
    return row;
  }

  private indexRelations(row: number, s: CallStartPart): void {
    if (s.parent_id !== null) this.byParent.add(s.parent_id, row);
    if (s.thread_id !== null) this.byThread.add(s.thread_id, row);
    if (s.turn_id !== null) this.byTurn.add(s.turn_id, row);
    if (s.thread_id !== null && s.thread_id !== '' && s.turn_id === s.id) addToIndex(this.turnsByThread, s.thread_id, row);
  }

  private unindexRelations(row: number): void {
    const parent = this.parentIds[row], thread = this.threadIds[row], turn = this.turnIds[row];
    if (parent !== null) this.byParent.remove(parent, row);
    if (thread !== null) this.byThread.remove(thread, row);
    if (turn !== null) this.byTurn.remove(turn, row);
    if (thread !== null && turn === this.ids[row]) removeFromIndex(this.turnsByThread, thread, row);
  }

  private overwriteStart(row: number, s: CallStartPart): void {
    this.unindexRelations(row);
    this.byTrace.remove(this.traceIds[row], row);
    this.byOp.remove(this.opIndex.data[row], row);
    const traceId = this.share(s.trace_id);
    const op = this.opNames.id(s.op_name);
    this.traceIds[row] = traceId;
    this.parentIds[row] = this.callIdString(s.parent_id);
    this.threadIds[row] = this.share(s.thread_id);
    this.turnIds[row] = this.callIdString(s.turn_id);
    this.opIndex.data[row] = op;
    this.startedAt.data[row] = s.started_at;
    this.runStep.set(row, s.run_step);
    this.displayNames.set(row, s.display_name === '' ? null : s.display_name);
    this.userIds[row] = this.share(s.user_id);
    this.runIds.set(row, this.share(s.run_id));
    this.inputRefs.set(row, this.refList(extractRefs(s.inputs)));
    this.byTrace.add(traceId, row);
    this.byOp.add(op, row);
    this.indexRelations(row, s);
    const body = this.body(row);
    this.setBody(row, stringifyExact({ attributes: s.attributes, inputs: s.inputs, output: body.output, summary: body.summary }));
    this.version++;
    this.startVersion++;
  }
}

/** What a row's columns take from the parts of a start and an end (see DerivedColumns). */
export function derivedColumns(s: Pick<CallStartPart, 'inputs'>, e: Pick<CallRecordPart, 'ended_at' | 'output' | 'summary'>): DerivedColumns {
  return {
    inputRefs: extractRefs(s.inputs),
    outputRefs: e.ended_at === null && e.output == null ? null : extractRefs(wrapOutput(e.output)),
    errorCount: errorCount(e.summary),
  };
}

/** Output refs are extracted from `{"output": value}` when the output is not an object. */
export function wrapOutput(output: unknown): unknown {
  return isPlainObject(output) ? output : { output };
}

function errorCount(summary: Record<string, unknown> | null | undefined): number {
  const counts = summary?.status_counts;
  if (counts === null || typeof counts !== 'object') return NaN;
  const v = (counts as Record<string, unknown>).error;
  return typeof v === 'number' ? v : NaN;
}
