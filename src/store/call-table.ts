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
import { mentionsWeaveOrEscape, topLevelValueByteSpans } from '../core/json/byte-spans.ts';
import { extractRefs } from '../core/refs.ts';
import { addToIndex, ByteArena, Float64Column, Int32Column, Interner, MultiIndex, removeFromIndex, SparseColumn, type StringTable } from './columns.ts';
import type { CallTableImage, SparseNumbers, SparseStringLists, SparseStrings } from './snapshot-image.ts';
import type { SnapshotBodies } from './snapshot-bodies.ts';
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
  /** The JSON text to store for attributes and inputs, when the writer spelled it (else JSON of the values). */
  texts?: { attributes: string; inputs: string };
}

/** A call end, engine-side. */
export interface CallEndPart {
  id: string;
  ended_at: number;
  exception: string | null;
  output: unknown;
  summary: Record<string, unknown>;
  run_step_end: number | null;
  /** The JSON text to store for output and summary, when the writer spelled it (else JSON of the values). */
  texts?: { output: string; summary: string };
}

/** A call body from its four parts' JSON texts (semantics.md#writes-number-spelling: stored as written). */
function bodyOfTexts(attributes: string, inputs: string, output: string, summary: string): string {
  return `{"attributes":${attributes},"inputs":${inputs},"output":${output},"summary":${summary}}`;
}

const startTexts = (s: CallStartPart) => s.texts ?? { attributes: stringifyExact(s.attributes), inputs: stringifyExact(s.inputs) };
const endTexts = (e: CallEndPart) => e.texts ?? { output: stringifyExact(e.output ?? null), summary: stringifyExact(e.summary) };

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
const PART_KEY_BYTES = BODY_PARTS.map((k) => new TextEncoder().encode(k));
/** Span offsets are kept as uint16: longer bodies are scanned every time instead. */
const SPAN_LIMIT = 0xffff;
const ABSENT = 0xffff;
/** Bits of partSpansKnown: spans remembered; summary checked for `"weave"`; and its answer. */
const SPANS_KNOWN = 1, SUMMARY_CHECKED = 2, SUMMARY_MENTIONS_WEAVE = 4;

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
  // Identity and relations: the per-row string columns (ids, trace, parent, thread, turn and
  // user ids). A loaded table holds them as arrays. A table restored from a load snapshot holds
  // string numbers into the snapshot's strings (`restoredText`) instead: id(row), traceId(row),
  // ... make one row's string, and the arrays (ids, traceIds, ...) are made whole when first
  // asked for. A query that reads a page of rows never makes a million strings.
  private idList: string[] | null = [];
  private traceIdList: string[] | null = [];
  private parentIdList: Array<string | null> | null = [];
  private threadIdList: Array<string | null> | null = [];
  private turnIdList: Array<string | null> | null = [];
  private userIdList: Array<string | null> | null = [];
  /** The string numbers of the columns not made into arrays yet (after a restore). */
  private restoredText: RestoredText | null = null;

  get ids(): string[] {
    return this.idList ?? (this.idList = this.madeColumn('ids') as string[]);
  }
  get traceIds(): string[] {
    return this.traceIdList ?? (this.traceIdList = this.madeColumn('traceIds') as string[]);
  }
  get parentIds(): Array<string | null> {
    return this.parentIdList ?? (this.parentIdList = this.madeColumn('parentIds'));
  }
  get threadIds(): Array<string | null> {
    return this.threadIdList ?? (this.threadIdList = this.madeColumn('threadIds'));
  }
  get turnIds(): Array<string | null> {
    return this.turnIdList ?? (this.turnIdList = this.madeColumn('turnIds'));
  }
  /** Nullable, but set on nearly every call. */
  get userIds(): Array<string | null> {
    return this.userIdList ?? (this.userIdList = this.madeColumn('userIds'));
  }

  /** One row's id (no column is made whole for it). */
  id(row: number): string {
    const list = this.idList;
    return list !== null ? list[row] : this.restoredText!.strings.get(this.restoredText!.ids![row]);
  }
  traceId(row: number): string {
    const list = this.traceIdList;
    return list !== null ? list[row] : this.restoredText!.strings.get(this.restoredText!.traceIds![row]);
  }
  parentId(row: number): string | null {
    const list = this.parentIdList;
    return list !== null ? list[row] : this.restoredText!.strings.nullable(this.restoredText!.parentIds![row]);
  }
  threadId(row: number): string | null {
    const list = this.threadIdList;
    return list !== null ? list[row] : this.restoredText!.strings.nullable(this.restoredText!.threadIds![row]);
  }
  turnId(row: number): string | null {
    const list = this.turnIdList;
    return list !== null ? list[row] : this.restoredText!.strings.nullable(this.restoredText!.turnIds![row]);
  }
  userId(row: number): string | null {
    const list = this.userIdList;
    return list !== null ? list[row] : this.restoredText!.strings.nullable(this.restoredText!.userIds![row]);
  }
  /** Whether a row is a trace root (parent_id null), without making its parent's string. */
  isRoot(row: number): boolean {
    const list = this.parentIdList;
    return list !== null ? list[row] === null : this.restoredText!.parentIds![row] === -1;
  }

  /** A restored column made whole (its string numbers are then dropped). */
  private madeColumn(name: RestoredColumn): Array<string | null> {
    const text = this.restoredText!;
    const numbers = text[name]!;
    const strings = text.strings;
    const n = this.restoredRows; // exactly the rows restored: an append makes every column whole first
    const out = new Array<string | null>(n);
    for (let r = 0; r < n; r++) out[r] = strings.nullable(numbers[r]);
    text[name] = null;
    return out;
  }

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

  // JSON bodies: arena handle per row.
  private readonly arena = new ByteArena();
  private readonly bodyChunk = new Int32Column();
  private readonly bodyOffset = new Int32Column();
  private readonly bodyLength = new Int32Column();
  /** After a restore: reads the restored rows' bodies from the snapshot file as they are needed. */
  private restoredBodies: SnapshotBodies | null = null;
  /**
   * Where each part's value sits in a row's stored UTF-8 body: (start, end) per part in
   * BODY_PARTS order, in bytes from the body's first byte, ABSENT for a part the body lacks.
   * Found by a byte scan on the first read of a row (or handed over at load through
   * setPartByteSpans) and remembered as uint16, 16 bytes per row: rendering a line then copies
   * the parts' bytes without looking at the rest of the body. A body of 64 KiB or more is
   * scanned on every read instead. Allocated on first use.
   */
  private partSpans: Uint16Array = new Uint16Array(0);
  private partSpansKnown: Uint8Array = new Uint8Array(0);
  private readonly spanScratch = new Int32Array(8);

  // Indexes (getters: after a snapshot restore each is rebuilt on first use, see restoreImage()).
  get byId(): Map<string, number> {
    return this.indexes.byId ?? this.restoredIndex('byId');
  }
  get byTrace(): MultiIndex<string> {
    return this.indexes.byTrace ?? this.restoredIndex('byTrace');
  }
  get byParent(): MultiIndex<string> {
    return this.indexes.byParent ?? this.restoredIndex('byParent');
  }
  get byThread(): MultiIndex<string> {
    return this.indexes.byThread ?? this.restoredIndex('byThread');
  }
  get byTurn(): MultiIndex<string> {
    return this.indexes.byTurn ?? this.restoredIndex('byTurn');
  }
  get byOp(): MultiIndex<number> {
    return this.indexes.byOp ?? this.restoredIndex('byOp');
  }
  /** Turn calls (id == turn_id) of each thread, in insertion order. */
  get turnsByThread(): Map<string, number[]> {
    return this.indexes.turnsByThread ?? this.restoredIndex('turnsByThread');
  }
  /** null: not built yet over the rows a snapshot restored. */
  private indexes: { [K in keyof CallIndexes]: CallIndexes[K] | null } = newIndexes();
  /** Rows restored from a snapshot (their indexes are built on first use). */
  private restoredRows = 0;

  /** Ends that arrived before their start; applied when the start comes. */
  private readonly pendingEnds = new Map<string, CallEndPart>();
  /** One copy of each repeated id string (trace, thread, turn, parent, user, run ids). */
  private get sharedStrings(): Map<string, string> {
    return this.indexes.sharedStrings ?? this.restoredIndex('sharedStrings');
  }

  /**
   * Bumped on every in-place change of an existing row (an end, a display-name update), so
   * that derived per-row caches know to rebuild. Appends do not bump it.
   */
  version = 0;
  /** Bumped when an existing row's started_at may change (a repeated start): orders rebuild. */
  startVersion = 0;

  get size(): number {
    return this.opIndex.length;
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
    // Derived before the row is appended, so a throw appends nothing.
    const texts = bodyText === undefined ? startTexts(part) : null;
    const text = texts === null ? bodyText! : bodyOfTexts(texts.attributes, texts.inputs, 'null', 'null');
    const row = this.appendRow(part, {
      ended_at: null,
      exception: null,
      output: null,
      summary: null,
      run_step_end: null,
      deleted_at: null,
    });
    this.setBody(row, text);
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
    // Everything derived first: a throw here leaves the row as it was (all or nothing). The
    // start's parts are kept as stored text, so their number spellings survive the end.
    const [attributes, inputs] = this.bodyPartTexts(row);
    const ended = endTexts(part);
    const text = bodyOfTexts(attributes ?? '{}', inputs ?? '{}', ended.output, ended.summary);
    const outputRefs = extractRefs(wrapOutput(part.output));
    const errors = errorCount(part.summary);
    this.endedAt.data[row] = part.ended_at;
    this.exceptions.set(row, part.exception);
    this.runStepEnd.set(row, part.run_step_end);
    this.statusErrorCount.data[row] = errors;
    this.outputRefs.set(row, this.refList(outputRefs));
    this.setBody(row, text);
    this.version++;
  }

  /**
   * A complete record (fixtures). `lineBytes[start, end)` is its JSON text; it is stored as the
   * body as-is, so loading costs one parse and one copy.
   */
  load(record: CallRecordPart, lineBytes: Uint8Array, start: number, end: number): number {
    if (this.byId.has(record.id)) throw new DuplicateCallError(record.id);
    const row = this.appendRow(record, record);
    const [chunk, offset] = this.arena.append(lineBytes, start, end);
    this.bodyChunk.data[row] = chunk;
    this.bodyOffset.data[row] = offset;
    this.bodyLength.data[row] = end - start;
    return row;
  }

  /**
   * load() keeping only the line's four JSON parts: the body stored is
   * `{"attributes":…,"inputs":…,"output":…,"summary":…}` (the parts present, their bytes as they
   * are), which is all that body() and the part readers look at: the line's other fields live in
   * the columns. On a typical call that is about half the line. When the line holds the parts in
   * that order, the body is the line's run of members from the first part's key to the last
   * part's value, in braces: one copy, and the few fields between the parts (a line's
   * `exception`, say) ride along unread, as they do in a body stored whole (load()). `spans`
   * are the parts' (start, end) byte offsets in `line` in BODY_PARTS order, -1 for an absent
   * part, as a scan that validated the line found them (trimmed values, a repeated key's last
   * occurrence: the scan refuses repeated or escaped top-level keys, so each part's key is
   * spelled plainly once); the new body's spans are handed to setPartByteSpans at once.
   * `derived` gives what the row's columns take from the JSON parts, found by the same scan
   * without building them.
   */
  loadParts(record: CallRecordPart, line: Uint8Array, spans: ArrayLike<number>, derived?: DerivedColumns): number {
    if (this.byId.has(record.id)) throw new DuplicateCallError(record.id);
    const bodySpans = this.spanScratch;
    const run = memberRun(line, spans);
    let body: Uint8Array, chunk: number, offset: number, at: number;
    if (run >= 0) {
      // {<the line's bytes from the first part's key to the last part's value>}
      let last = 3;
      while (spans[2 * last] < 0) last--;
      const runEnd = spans[2 * last + 1];
      body = this.arena.reserve(runEnd - run + 2);
      chunk = this.arena.currentChunk;
      offset = this.arena.usedBytes;
      body[offset] = 0x7b; // {
      body.set(line.subarray(run, runEnd), offset + 1);
      at = offset + 1 + runEnd - run;
      body[at++] = 0x7d; // }
      for (let k = 0; k < 8; k++) bodySpans[k] = spans[k] < 0 ? -1 : spans[k] - run + 1;
    } else {
      // {"key":value,"key":value}: braces, and per part its key in quotes, a colon and a comma
      // (one comma too many counted when any part is present: the room is only an upper bound).
      let length = 2;
      for (let k = 0; k < 4; k++) if (spans[2 * k] >= 0) length += PART_KEY_BYTES[k].length + 4 + spans[2 * k + 1] - spans[2 * k];
      body = this.arena.reserve(length);
      chunk = this.arena.currentChunk;
      offset = this.arena.usedBytes;
      at = offset;
      body[at++] = 0x7b; // {
      for (let k = 0; k < 4; k++) {
        const start = spans[2 * k];
        if (start < 0) {
          bodySpans[2 * k] = bodySpans[2 * k + 1] = -1;
          continue;
        }
        if (at > offset + 1) body[at++] = 0x2c; // ,
        body[at++] = 0x22; // "
        const key = PART_KEY_BYTES[k];
        for (let j = 0; j < key.length; j++) body[at++] = key[j];
        body[at++] = 0x22;
        body[at++] = 0x3a; // :
        bodySpans[2 * k] = at - offset;
        const end = spans[2 * k + 1];
        body.set(line.subarray(start, end), at);
        at += end - start;
        bodySpans[2 * k + 1] = at - offset;
      }
      body[at++] = 0x7d; // }
    }
    // Written straight into the arena; kept only once the row is in.
    const row = this.appendRow(record, record, derived);
    this.arena.commit(at - offset);
    this.bodyChunk.data[row] = chunk;
    this.bodyOffset.data[row] = offset;
    this.bodyLength.data[row] = at - offset;
    this.setPartByteSpans(row, bodySpans);
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
    this.bodyReady(row);
    const spans = this.spanScratch;
    this.partByteSpans(row, spans);
    const chunk = this.bodyChunk.data[row];
    const out: Array<string | null> = [null, null, null, null];
    for (let k = 0; k < 4; k++) if (spans[2 * k] >= 0) out[k] = this.arena.text(chunk, spans[2 * k], spans[2 * k + 1] - spans[2 * k]);
    return out;
  }

  /**
   * The arena chunk holding a row's body: the body is the bytes
   * `[bodyStart(row), bodyStart(row) + bodyByteLength(row))` of it. Read-only by contract.
   */
  bodyChunkBytes(row: number): Uint8Array {
    this.bodyReady(row);
    return this.arena.chunkBytes(this.bodyChunk.data[row]);
  }

  bodyStart(row: number): number {
    return this.bodyOffset.data[row];
  }

  bodyByteLength(row: number): number {
    return this.bodyLength.data[row];
  }

  /**
   * Reads one value from each place a rendered row comes from (its id strings, times, part
   * spans, first body byte) for `rows[from, to)`, and returns a sum of them that means
   * nothing. A renderer calls it a few rows ahead: these reads do not depend on each other,
   * so the CPU overlaps their cache misses, where rendering row by row would wait for each in
   * turn (at a million calls most of a row's render time was such waits).
   */
  touchRows(rows: ArrayLike<number>, from: number, to: number): number {
    let sum = 0;
    const end = Math.min(to, rows.length);
    const known = this.partSpansKnown, spans = this.partSpans;
    // A restored table's bodies are read from the snapshot when rendered (bodyReady), not here,
    // and its ids are read a row at a time (id(row), ...), never made whole for a touch.
    const touchBodies = this.restoredBodies === null;
    for (let i = from; i < end; i++) {
      const row = rows[i];
      if (touchBodies) sum += this.arena.chunkBytes(this.bodyChunk.data[row])[this.bodyOffset.data[row]];
      sum += this.id(row).length + this.traceId(row).length + (this.parentId(row)?.length ?? 0);
      sum += this.startedAt.data[row] + this.endedAt.data[row] + this.opIndex.data[row];
      if (row < known.length) sum += known[row] + spans[row * 8];
    }
    return sum;
  }

  /**
   * Where attributes, inputs, output and summary sit in bodyChunkBytes(row): writes (start,
   * end) per part, BODY_PARTS order, into `out[0..8)`, as offsets into the chunk; -1, -1 for
   * a part the body lacks. Scans the body on the first call for a row and remembers.
   */
  partByteSpans(row: number, out: Int32Array): void {
    const base = this.bodyOffset.data[row];
    if (row < this.partSpansKnown.length && (this.partSpansKnown[row] & SPANS_KNOWN) !== 0) {
      const s = this.partSpans;
      for (let k = 0, at = row * 8; k < 8; k += 2, at += 2) {
        if (s[at] === ABSENT) out[k] = out[k + 1] = -1;
        else {
          out[k] = base + s[at];
          out[k + 1] = base + s[at + 1];
        }
      }
      return;
    }
    const length = this.bodyLength.data[row];
    this.bodyReady(row);
    topLevelValueByteSpans(this.arena.chunkBytes(this.bodyChunk.data[row]), base, base + length, PART_KEY_BYTES, out);
    if (length < SPAN_LIMIT) this.setPartByteSpans(row, out);
    for (let k = 0; k < 8; k++) if (out[k] >= 0) out[k] += base;
  }

  /**
   * Hands over the part spans of a row's body, found elsewhere (a loader that scans each line
   * anyway): (start, end) per part in BODY_PARTS order (attributes, inputs, output, summary),
   * in bytes from the body's first byte (the `start` given to load()), -1 for an absent part;
   * values without surrounding whitespace, a repeated key's last occurrence, exactly what
   * topLevelValueByteSpans reports. Ignored for bodies of 64 KiB or more (scanned per read).
   */
  setPartByteSpans(row: number, spans: ArrayLike<number>): void {
    if (this.bodyLength.data[row] >= SPAN_LIMIT) return;
    if (row >= this.partSpansKnown.length) {
      const cap = Math.max(1024, Math.ceil(this.size * 1.25), row + 1);
      const known = new Uint8Array(cap);
      known.set(this.partSpansKnown);
      const s = new Uint16Array(cap * 8);
      s.set(this.partSpans);
      this.partSpansKnown = known;
      this.partSpans = s;
    }
    for (let k = 0; k < 8; k++) this.partSpans[row * 8 + k] = spans[k] < 0 ? ABSENT : spans[k];
    this.partSpansKnown[row] = SPANS_KNOWN;
  }

  /**
   * Whether the stored summary's bytes hold `"weave"` or a `\u` escape anywhere
   * (mentionsWeaveOrEscape; false without a summary): checked once per row body and remembered
   * beside the part spans.
   */
  summaryMentionsWeave(row: number): boolean {
    const known = row < this.partSpansKnown.length ? this.partSpansKnown[row] : 0;
    if ((known & SUMMARY_CHECKED) !== 0) return (known & SUMMARY_MENTIONS_WEAVE) !== 0;
    const spans = this.spanScratch;
    this.partByteSpans(row, spans);
    const mentions = spans[6] >= 0 && mentionsWeaveOrEscape(this.bodyChunkBytes(row), spans[6], spans[7]);
    if (row < this.partSpansKnown.length && (this.partSpansKnown[row] & SPANS_KNOWN) !== 0) {
      this.partSpansKnown[row] |= SUMMARY_CHECKED | (mentions ? SUMMARY_MENTIONS_WEAVE : 0);
    }
    return mentions;
  }

  bodyText(row: number): string {
    this.bodyReady(row);
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

  /** A restored row's body bytes are in the arena (read from the snapshot on first use). */
  private bodyReady(row: number): void {
    if (this.restoredBodies !== null) this.restoredBodies.ensure(row, this.bodyChunk.data[row], this.bodyOffset.data[row], this.bodyLength.data[row]);
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
    // Calls of a trace mostly come together: the previous row's shared string, without a lookup.
    const previousTrace = row > 0 ? this.traceIds[row - 1] : null;
    const traceId = previousTrace === s.trace_id ? previousTrace : this.share(s.trace_id);
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
    // Everything derived first: a throw here leaves the row and its indexes as they were.
    const [, , output, summary] = this.bodyPartTexts(row);
    const started = startTexts(s);
    const text = bodyOfTexts(started.attributes, started.inputs, output ?? 'null', summary ?? 'null');
    const inputRefs = extractRefs(s.inputs);
    this.buildRestoredIndexes(); // lazily built indexes read the columns this changes
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
    this.inputRefs.set(row, this.refList(inputRefs));
    this.byTrace.add(traceId, row);
    this.byOp.add(op, row);
    this.indexRelations(row, s);
    this.setBody(row, text);
    this.version++;
    this.startVersion++;
  }

  /**
   * The table as flat arrays for a load snapshot (src/store/snapshot.ts): strings become
   * numbers through `str`, typed columns and arena chunks are views (not copies). Only a table
   * as a fixture load leaves it can be imaged: no in-place change, no end waiting for its start.
   */
  toImage(str: (s: string) => number): CallTableImage {
    if (this.version !== 0 || this.startVersion !== 0 || this.pendingEnds.size !== 0) throw new Error('only a freshly loaded call table can be snapshotted');
    const n = this.size;
    const strs = (col: ReadonlyArray<string | null>) => {
      const out = new Int32Array(n);
      for (let r = 0; r < n; r++) out[r] = col[r] === null ? -1 : str(col[r]!);
      return out;
    };
    const f64 = (c: Float64Column) => c.data.subarray(0, n);
    const i32 = (c: Int32Column) => c.data.subarray(0, n);
    this.restoredBodies?.readAll(); // the chunks go out whole
    const extents: number[] = new Array(this.arena.chunkCount).fill(0);
    const chunk = i32(this.bodyChunk), offset = i32(this.bodyOffset), length = i32(this.bodyLength);
    for (let r = 0; r < n; r++) extents[chunk[r]] = Math.max(extents[chunk[r]], offset[r] + length[r]);
    return {
      size: n,
      ids: strs(this.ids),
      traceIds: strs(this.traceIds),
      parentIds: strs(this.parentIds),
      threadIds: strs(this.threadIds),
      turnIds: strs(this.turnIds),
      userIds: strs(this.userIds),
      opNames: Int32Array.from(this.opNames.values, str),
      opIndex: i32(this.opIndex),
      startedAt: f64(this.startedAt),
      endedAt: f64(this.endedAt),
      deletedAt: f64(this.deletedAt),
      statusErrorCount: f64(this.statusErrorCount),
      runStep: sparseNumbers(this.runStep),
      runStepEnd: sparseNumbers(this.runStepEnd),
      displayNames: sparseStrings(this.displayNames, str),
      exceptions: sparseStrings(this.exceptions, str),
      runIds: sparseStrings(this.runIds, str),
      inputRefs: sparseStringLists(this.inputRefs, str),
      outputRefs: sparseStringLists(this.outputRefs, str),
      bodyChunk: chunk,
      bodyOffset: offset,
      bodyLength: length,
      arenaChunks: extents.map((end, i) => this.arena.usedChunkBytes(i, end)),
      partSpans: spansOf(this.partSpans, 8 * n),
      partSpansKnown: spansOf(this.partSpansKnown, n),
      arenaChecksums: new Int32Array(0),
      bodyChecksums: new Int32Array(0),
      startOrder: new Int32Array(0),
      rootOrder: new Int32Array(0),
    };
  }

  /**
   * Reads and checks every body a snapshot restore left in the file (a no-op otherwise), so
   * that no later read can meet a damaged byte: a front end calls it before it writes the first
   * byte of an answer too large to build whole (SnapshotDamagedError when a chunk is damaged).
   */
  readRestoredBodies(): void {
    this.restoredBodies?.readAll();
  }

  /**
   * Fills this empty table with the one an image describes, as a fixture load would have built it: the columns are
   * copied in, the indexes rebuilt row by row in insertion order. Derived caches (part spans)
   * start empty and fill on use, as after a load.
   */
  restoreImage(image: CallTableImage, strings: StringTable, arena: ByteArena, bodies: SnapshotBodies | null = null): void {
    if (this.size !== 0 || this.version !== 0) throw new Error('a snapshot restores into an empty call table only');
    const t = this as CallTable;
    const n = image.size;
    const count = strings.count;
    // The string numbers are checked here, once, in a typed loop; strings are made on use.
    const check = (from: Int32Array, nullable: boolean) => {
      if (from.length !== n) throw new RangeError(`snapshot: a string column holds ${from.length} rows, not ${n}`);
      const least = nullable ? -1 : 0;
      for (let r = 0; r < n; r++) {
        const i = from[r];
        if (i < least || i >= count) throw new RangeError(`snapshot: string number ${i} out of range in row ${r}`);
      }
      return from;
    };
    t.restoredText = {
      strings,
      ids: check(image.ids, false),
      traceIds: check(image.traceIds, false),
      parentIds: check(image.parentIds, true),
      threadIds: check(image.threadIds, true),
      turnIds: check(image.turnIds, true),
      userIds: check(image.userIds, true),
    };
    t.idList = t.traceIdList = null;
    t.parentIdList = t.threadIdList = t.turnIdList = t.userIdList = null;
    for (const i of image.opNames) t.opNames.id(strings.get(i));
    // Views of the snapshot's bytes, not copies (an append past them grows into a new array).
    const f64 = (c: Float64Column, from: Float64Array) => {
      c.data = from;
      c.length = n;
    };
    const i32 = (c: Int32Column, from: Int32Array) => {
      c.data = from;
      c.length = n;
    };
    i32(t.opIndex, image.opIndex);
    f64(t.startedAt, image.startedAt);
    f64(t.endedAt, image.endedAt);
    f64(t.deletedAt, image.deletedAt);
    f64(t.statusErrorCount, image.statusErrorCount);
    // Sparse cells are made when first read (most queries read a few rows of them).
    const numbers = (c: SparseColumn<number>, from: SparseNumbers) => c.restore(from.rows, (k) => from.values[k]);
    const texts = (c: SparseColumn<string>, from: SparseStrings) => c.restore(from.rows, (k) => strings.get(from.values[k]));
    const lists = (c: SparseColumn<string[]>, from: SparseStringLists) => {
      const starts = new Int32Array(from.counts.length + 1);
      for (let k = 0; k < from.counts.length; k++) starts[k + 1] = starts[k] + from.counts[k];
      c.restore(from.rows, (k) => {
        const list: string[] = [];
        for (let at = starts[k]; at < starts[k + 1]; at++) list.push(strings.get(from.values[at]));
        return list;
      });
    };
    numbers(t.runStep, image.runStep);
    numbers(t.runStepEnd, image.runStepEnd);
    texts(t.displayNames, image.displayNames);
    texts(t.exceptions, image.exceptions);
    texts(t.runIds, image.runIds);
    lists(t.inputRefs, image.inputRefs);
    lists(t.outputRefs, image.outputRefs);
    (t as unknown as { arena: ByteArena }).arena = arena;
    t.restoredBodies = bodies;
    i32(t.bodyChunk, image.bodyChunk);
    i32(t.bodyOffset, image.bodyOffset);
    i32(t.bodyLength, image.bodyLength);
    if (image.partSpansKnown.length > 0) {
      checkPartSpans(image);
      t.partSpansKnown = image.partSpansKnown;
      t.partSpans = image.partSpans;
    }
    // The indexes and shared strings are built from these columns when first used.
    t.restoredRows = n;
    // The MultiIndexes are handed out unbuilt (a filter takes them before knowing it needs them).
    const deferred = <K>(name: 'byTrace' | 'byParent' | 'byThread' | 'byTurn' | 'byOp') => MultiIndex.deferred<K>(() => t.restoredIndex(name));
    t.indexes = { byId: null, byTrace: deferred('byTrace'), byParent: deferred('byParent'), byThread: deferred('byThread'), byTurn: deferred('byTurn'), byOp: deferred('byOp'), turnsByThread: null, sharedStrings: null };
  }

  /** Builds every index not built yet (before restored rows' indexed columns change). */
  private buildRestoredIndexes(): void {
    if (this.restoredRows === 0) return;
    for (const name of Object.keys(this.indexes) as Array<keyof CallIndexes>) {
      const index = this.indexes[name];
      if (index === null) this.restoredIndex(name);
      else if (index instanceof MultiIndex) void index.size; // a deferred index builds on first use
    }
  }

  /**
   * One index over the rows a snapshot restored, built from their columns in row order as
   * appendRow() would have built it (rows appended since add themselves through the getter).
   */
  private restoredIndex<K extends keyof CallIndexes>(name: K): CallIndexes[K] {
    const built = newIndexes();
    // A deferred MultiIndex is filled in place (it is the object callers already hold).
    const target = this.indexes[name];
    if (target instanceof MultiIndex) (built as unknown as Record<string, unknown>)[name] = target;
    const n = this.restoredRows;
    // Each index reads only its own columns, row by row (no other column is made whole).
    if (name === 'byId') for (let r = 0; r < n; r++) built.byId.set(this.id(r), r);
    else if (name === 'byTrace') for (let r = 0; r < n; r++) built.byTrace.add(this.traceId(r), r);
    else if (name === 'byOp') for (let r = 0, ops = this.opIndex.data; r < n; r++) built.byOp.add(ops[r], r);
    else if (name === 'byParent') for (let r = 0; r < n; r++) this.parentId(r) !== null && built.byParent.add(this.parentId(r)!, r);
    else if (name === 'byThread') for (let r = 0; r < n; r++) this.threadId(r) !== null && built.byThread.add(this.threadId(r)!, r);
    else if (name === 'byTurn') for (let r = 0; r < n; r++) this.turnId(r) !== null && built.byTurn.add(this.turnId(r)!, r);
    else if (name === 'turnsByThread') {
      for (let r = 0; r < n; r++) {
        const thread = this.threadId(r);
        if (thread !== null && thread !== '' && this.turnId(r) === this.id(r)) addToIndex(built.turnsByThread, thread, r);
      }
    } else {
      // Only a dedupe cache for later writes: the distinct shared values, in any order.
      const shared = built.sharedStrings;
      for (const col of [this.traceIds, this.threadIds, this.userIds]) for (let r = 0; r < n; r++) if (col[r] !== null) shared.set(col[r]!, col[r]!);
      for (const [, v] of this.runIds.entries()) shared.set(v, v);
      for (const col of [this.inputRefs, this.outputRefs]) for (const [, refs] of col.entries()) for (const ref of refs) shared.set(ref, ref);
    }
    this.indexes[name] = built[name];
    return built[name];
  }
}

/**
 * Restored part spans must describe the restored bodies: per known row, each part absent or
 * (start, end) inside the body (the renderer copies those bytes as they are).
 */
function checkPartSpans(image: CallTableImage): void {
  const n = image.size, spans = image.partSpans, known = image.partSpansKnown, lengths = image.bodyLength;
  if (known.length !== n || spans.length !== 8 * n) throw new RangeError(`snapshot: part spans for ${known.length} rows, not ${n}`);
  for (let r = 0; r < n; r++) {
    const flags = known[r];
    if (flags === 0) continue;
    if ((flags & ~(SPANS_KNOWN | SUMMARY_CHECKED | SUMMARY_MENTIONS_WEAVE)) !== 0 || (flags & SPANS_KNOWN) === 0) throw new RangeError(`snapshot: row ${r}: bad part span flags`);
    for (let at = 8 * r, end = at + 8; at < end; at += 2) {
      const from = spans[at], to = spans[at + 1];
      if (from === ABSENT && to === ABSENT) continue;
      if (to < from || to > lengths[r]) throw new RangeError(`snapshot: row ${r}: part span outside its body`);
    }
  }
}

/** The first `length` entries of a part-span array (zeros past what was allocated: not known). */
function spansOf<T extends Uint8Array | Uint16Array>(a: T, length: number): T {
  if (a.length >= length) return a.subarray(0, length) as T;
  const out = new (a.constructor as new (n: number) => T)(length);
  out.set(a);
  return out;
}

type RestoredColumn = 'ids' | 'traceIds' | 'parentIds' | 'threadIds' | 'turnIds' | 'userIds';
/** A restored table's string columns not made whole yet: string numbers (-1: null) into `strings`. */
type RestoredText = { strings: StringTable } & { [K in RestoredColumn]: Int32Array | null };

function sparseNumbers(c: SparseColumn<number>): SparseNumbers {
  const rows: number[] = [], values: number[] = [];
  for (const [r, v] of c.entries()) rows.push(r), values.push(v);
  return { rows: Int32Array.from(rows), values: Float64Array.from(values) };
}

function sparseStrings(c: SparseColumn<string>, str: (s: string) => number): SparseStrings {
  const rows: number[] = [], values: number[] = [];
  for (const [r, v] of c.entries()) rows.push(r), values.push(str(v));
  return { rows: Int32Array.from(rows), values: Int32Array.from(values) };
}

function sparseStringLists(c: SparseColumn<string[]>, str: (s: string) => number): SparseStringLists {
  const rows: number[] = [], counts: number[] = [], values: number[] = [];
  for (const [r, list] of c.entries()) {
    rows.push(r);
    counts.push(list.length);
    for (const v of list) values.push(str(v));
  }
  return { rows: Int32Array.from(rows), counts: Int32Array.from(counts), values: Int32Array.from(values) };
}

interface CallIndexes {
  byId: Map<string, number>;
  byTrace: MultiIndex<string>;
  byParent: MultiIndex<string>;
  byThread: MultiIndex<string>;
  byTurn: MultiIndex<string>;
  byOp: MultiIndex<number>;
  turnsByThread: Map<string, number[]>;
  sharedStrings: Map<string, string>;
}

function newIndexes(): CallIndexes {
  return { byId: new Map(), byTrace: new MultiIndex(), byParent: new MultiIndex(), byThread: new MultiIndex(), byTurn: new MultiIndex(), byOp: new MultiIndex(), turnsByThread: new Map(), sharedStrings: new Map() };
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

/**
 * Where the run of members holding a line's parts starts (the opening quote of the first part's
 * key) when the parts present appear in BODY_PARTS order; -1 when they do not (or none is).
 * `spans` as loadParts takes them: the key before each value is spelled plainly.
 */
function memberRun(line: Uint8Array, spans: ArrayLike<number>): number {
  let first = -1, previousEnd = -1;
  for (let k = 0; k < 4; k++) {
    const start = spans[2 * k];
    if (start < 0) continue;
    if (start < previousEnd) return -1;
    previousEnd = spans[2 * k + 1];
    if (first < 0) first = k;
  }
  if (first < 0) return -1;
  // Back from the value over `"key"` ws `:` ws.
  let j = spans[2 * first] - 1;
  while (j >= 0 && isJsonSpace(line[j])) j--;
  if (j < 0 || line[j] !== 0x3a) return -1;
  j--;
  while (j >= 0 && isJsonSpace(line[j])) j--;
  const key = PART_KEY_BYTES[first];
  const quote = j - key.length - 1;
  if (quote < 0 || line[j] !== 0x22 || line[quote] !== 0x22) return -1;
  for (let k = 0; k < key.length; k++) if (line[quote + 1 + k] !== key[k]) return -1;
  return quote;
}

const isJsonSpace = (c: number) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
