/**
 * The calls of one project, stored column-wise.
 *
 * Row r is the r-th call whose start part arrived (insertion order: what `sort_by: []`
 * returns). Scalars the queries filter and sort on sit in typed arrays indexed by row; the id
 * strings in string columns (StringColumn), read one row at a time through id(row),
 * traceId(row), ...; the JSON bodies (attributes, inputs, output, summary) are kept as UTF-8
 * text (CallBodies) and parsed only when a query needs them. Indexes map ids to rows so that id
 * filters never scan the project (CallIndexes).
 *
 * A table restored from a load snapshot is the same table with other backings: each column
 * knows whether it holds its rows or the snapshot's (string numbers, bodies left in the file,
 * indexes built on first use); this class does not. Imaging and restoring go through the
 * columns (src/store/snapshot-table.ts); the fixture load writes through load(),
 * bodyRoom()/loadWritten() (src/load/calls/).
 */
import { stringifyExact } from '../core/json/exact.ts';
import { extractRefs } from '../core/refs.ts';
import { CallBodies, PART_INDEX } from './call-bodies.ts';
import { derivedColumns, errorCount, wrapOutput, type CallBody, type CallEndPart, type CallRecordPart, type CallStartPart, type DerivedColumns } from './call-parts.ts';
import { CallIndexes } from './call-indexes.ts';
import { IdHash, type IdIndex } from './id-index.ts';
import type { CallColumns } from './call-columns.ts';
import { addToIndex, Float64Column, Int32Column, Interner, MultiIndex, removeFromIndex, SparseColumn } from './columns.ts';
import { StringColumn } from './string-column.ts';
import { RenderedLines } from './rendered-lines.ts';

export { BODY_PARTS } from './call-bodies.ts';
export type { CallColumns } from './call-columns.ts';
export { derivedColumns, wrapOutput, type CallBody, type CallEndPart, type CallRecordPart, type CallStartPart, type DerivedColumns } from './call-parts.ts';

/** A call body from its four parts' JSON texts (semantics.md#writes-number-spelling: stored as written). */
function bodyOfTexts(attributes: string, inputs: string, output: string, summary: string): string {
  return `{"attributes":${attributes},"inputs":${inputs},"output":${output},"summary":${summary}}`;
}

const startTexts = (s: CallStartPart) => s.texts ?? { attributes: stringifyExact(s.attributes), inputs: stringifyExact(s.inputs) };
const endTexts = (e: CallEndPart) => e.texts ?? { output: stringifyExact(e.output ?? null), summary: stringifyExact(e.summary) };

const NULL_OP = -1;
/** User ids kept in CallTable.recentUsers before it starts over. */
const RECENT_USERS_MAX = 256;

/**
 * Bits a loader sets when it knows a record's parent (or turn) id names a call already stored in
 * the same table, and hands the id as that call's own id string: the row takes it as it is,
 * without the id lookup that would find that very string (callIdString).
 */
export const STORED_RELATION = { parent: 1, turn: 2 } as const;

/** A complete record whose id is already stored (fixtures hold each call once). */
export class DuplicateCallError extends Error {
  constructor(readonly callId: string) {
    super(`duplicate call id ${callId}`);
  }
}

export class CallTable {
  // Identity and relations: per-row string columns (see StringColumn: loaded, or restored from a
  // load snapshot and made a row at a time). Read through id(row), traceId(row), ...
  private readonly idColumn = new StringColumn<string>(false);
  private readonly traceIdColumn = new StringColumn<string>(false);
  private readonly parentIdColumn = new StringColumn<string | null>(true);
  private readonly threadIdColumn = new StringColumn<string | null>(true);
  private readonly turnIdColumn = new StringColumn<string | null>(true);
  /** Nullable, but set on nearly every call. */
  private readonly userIdColumn = new StringColumn<string | null>(true);

  id(row: number): string {
    return this.idColumn.get(row);
  }
  traceId(row: number): string {
    return this.traceIdColumn.get(row);
  }
  parentId(row: number): string | null {
    return this.parentIdColumn.get(row);
  }
  threadId(row: number): string | null {
    return this.threadIdColumn.get(row);
  }
  turnId(row: number): string | null {
    return this.turnIdColumn.get(row);
  }
  userId(row: number): string | null {
    return this.userIdColumn.get(row);
  }
  /** Whether a row is a trace root (parent_id null), without making its parent's string. */
  isRoot(row: number): boolean {
    return this.parentIdColumn.isNull(row);
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

  /** The JSON bodies (attributes, inputs, output, summary) as UTF-8 text, with their part spans. */
  private readonly bodies = new CallBodies();

  /** Built as rows arrive, or (after a snapshot restore) on first use. */
  private readonly indexes: CallIndexes;
  /** `idHash`: how the id index hashes ids (IdIndex; tests inject one that collides). */
  constructor(idHash: IdHash = new IdHash()) {
    this.indexes = new CallIndexes(this, idHash);
  }
  get byId(): IdIndex {
    return this.indexes.byId;
  }
  get byTrace(): MultiIndex<string> {
    return this.indexes.byTrace;
  }
  get byParent(): MultiIndex<string> {
    return this.indexes.byParent;
  }
  get byThread(): MultiIndex<string> {
    return this.indexes.byThread;
  }
  get byTurn(): MultiIndex<string> {
    return this.indexes.byTurn;
  }
  get byOp(): MultiIndex<number> {
    return this.indexes.byOp;
  }
  /** Turn calls (id == turn_id) of each thread, in insertion order. */
  get turnsByThread(): Map<string, number[]> {
    return this.indexes.turnsByThread;
  }

  /**
   * Response lines rendered from rows, kept as bytes (RenderedLines); a row's are forgotten
   * whenever it changes in place (rowChanged). Budget: a quarter of the bytes of the stored
   * bodies, at most 1 GiB (so a table of under about 4 MiB of bodies keeps none: its answers are
   * small and quick to render), or renderedLinesBudget when set.
   */
  readonly renderedLines = new RenderedLines(() => this.renderedLinesBudget ?? Math.min(1024 * 1024 * 1024, this.bodies.arenaBytes / 4));
  renderedLinesBudget: number | null = null;

  /** Ends that arrived before their start; applied when the start comes. */
  private readonly pendingEnds = new Map<string, CallEndPart>();

  /**
   * Bumped on every in-place change of an existing row (an end, a display-name update), so
   * that derived per-row caches know to rebuild. Appends do not bump it.
   */
  version = 0;
  /** Bumped when an existing row's started_at may change (a repeated start): orders rebuild. */
  startVersion = 0;

  /** After an in-place change of `row`: bumps version and drops what was derived from the row. */
  private rowChanged(row: number): void {
    this.version++;
    this.renderedLines.forget(row);
  }

  get size(): number {
    return this.opIndex.length;
  }

  rowOf(id: string): number | undefined {
    return this.byId.get(id);
  }

  /**
   * rowOf for a loader that has the id's hash (IdHash of its UTF-8 bytes, made by the thread
   * that scanned the line; (0, 0): none): -1 when the id is not stored. The next loadWritten of
   * the same id string reuses the hash.
   */
  rowOfHashed(id: string, hashA: number, hashB: number): number {
    return this.byId.rowOfHashed(id, hashA, hashB);
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
    const noEnd = { ended_at: null, exception: null, output: null, summary: null, run_step_end: null, deleted_at: null };
    // A start has no end yet: no output refs, no error count (derivedColumns of these nulls).
    const row = this.appendRow(part, noEnd, part.inputRefs === undefined ? undefined : { inputRefs: part.inputRefs, outputRefs: null, errorCount: NaN });
    this.bodies.setText(row, text);
    const pending = this.pendingEnds.get(part.id);
    if (pending) {
      this.pendingEnds.delete(part.id);
      this.end(pending);
    }
    return row;
  }

  /**
   * A call's start and its end at once (a whole call, as `calls/complete` sends it): one row
   * and one body text, where start() then end() would write the body twice. The same row as
   * start() then end(), which it falls back to when the id is already stored or an end for it
   * is waiting.
   */
  startEnded(s: CallStartPart, e: CallEndPart): void {
    if (this.byId.has(s.id) || this.pendingEnds.has(s.id)) {
      this.start(s);
      this.end(e);
      return;
    }
    // Derived before the row is appended, so a throw appends nothing.
    const started = startTexts(s);
    const ended = endTexts(e);
    const text = bodyOfTexts(started.attributes, started.inputs, ended.output, ended.summary);
    const derived: DerivedColumns = {
      inputRefs: s.inputRefs ?? extractRefs(s.inputs),
      outputRefs: e.outputRefs ?? extractRefs(wrapOutput(e.output)),
      errorCount: e.errorCount ?? errorCount(e.summary),
    };
    // Output and summary are in `text` and `derived`: appendRow reads neither.
    const end = { ended_at: e.ended_at, exception: e.exception, output: null, summary: null, run_step_end: e.run_step_end, deleted_at: null };
    const row = this.appendRow(s, end, derived);
    this.bodies.setText(row, text);
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
    const outputRefs = part.outputRefs ?? extractRefs(wrapOutput(part.output));
    const errors = part.errorCount ?? errorCount(part.summary);
    this.endedAt.data[row] = part.ended_at;
    this.exceptions.set(row, part.exception);
    this.runStepEnd.set(row, part.run_step_end);
    this.statusErrorCount.data[row] = errors;
    this.outputRefs.set(row, this.refList(outputRefs));
    this.bodies.setText(row, text);
    this.rowChanged(row);
  }

  /**
   * A complete record (fixtures). `lineBytes[start, end)` is its JSON text; it is stored as the
   * body as-is, so loading costs one parse and one copy.
   */
  load(record: CallRecordPart, lineBytes: Uint8Array, start: number, end: number): number {
    if (this.byId.has(record.id)) throw new DuplicateCallError(record.id);
    const row = this.appendRow(record, record, undefined, true);
    this.bodies.setBytes(row, lineBytes, start, end);
    return row;
  }

  /**
   * Room for the body of the next loaded record, up to `length` bytes, for a loader that writes
   * it in place (src/load/calls/parts-body.ts): write from bodyRoomStart on, then loadWritten().
   * Nothing written is kept without it.
   */
  bodyRoom(length: number): Uint8Array {
    return this.bodies.room(length);
  }

  get bodyRoomStart(): number {
    return this.bodies.roomStart;
  }

  /**
   * A complete record (fixtures) whose body is the `length` bytes written at bodyRoomStart;
   * `spans` are its parts' (start, end) in bytes from the body's first byte, as
   * setPartByteSpans takes them; `derived` what the row's columns take from the JSON parts;
   * `storedRelations`: STORED_RELATION bits.
   */
  loadWritten(record: CallRecordPart, length: number, spans: ArrayLike<number>, derived?: DerivedColumns, storedRelations = 0): number {
    if (this.byId.has(record.id)) throw new DuplicateCallError(record.id);
    const row = this.appendRow(record, record, derived, true, storedRelations);
    this.bodies.commitRoom(row, length, spans);
    return row;
  }

  /** `calls_delete`: a soft delete; the row stays but is invisible to every query. */
  markDeleted(row: number, atUs: number): void {
    this.deletedAt.data[row] = atUs;
    this.rowChanged(row);
  }

  /** `call_update`: the latest display name wins; the empty string clears it. */
  setDisplayName(row: number, name: string | null): void {
    this.displayNames.set(row, name === '' ? null : name);
    this.rowChanged(row);
  }

  /** The stored JSON parts of a row, parsed (big integers keep their digits). */
  body(row: number): CallBody {
    return this.bodies.parsed(row);
  }
  /** One JSON part of a row, parsed alone (defaults as in body(): `{}` for attributes/inputs). */
  bodyPart(row: number, part: keyof CallBody): unknown {
    return this.bodies.parsedPart(row, part);
  }
  /** The stored JSON text of one part, or null when the body has none. */
  bodyPartText(row: number, part: keyof CallBody): string | null {
    return this.bodies.partTexts(row)[PART_INDEX[part]];
  }
  // A row's stored body, read through CallBodies (see there): its parts' texts, the arena chunk
  // holding it (read-only by contract: the body is [bodyStart, bodyStart + bodyByteLength) of it).
  bodyPartTexts(row: number): Array<string | null> {
    return this.bodies.partTexts(row);
  }
  bodyText(row: number): string {
    return this.bodies.text(row);
  }
  bodyChunkBytes(row: number): Uint8Array {
    return this.bodies.chunkBytes(row);
  }
  bodyStart(row: number): number {
    return this.bodies.start(row);
  }
  bodyByteLength(row: number): number {
    return this.bodies.byteLength(row);
  }
  /** (start, end) of each part in bodyChunkBytes(row), -1 when absent (CallBodies.partByteSpans). */
  partByteSpans(row: number, out: Int32Array): void {
    this.bodies.partByteSpans(row, out);
  }
  /** Part k's (start, end) in bodyChunkBytes(row) and those bytes, null when absent (CallBodies.partBytes). */
  bodyPartBytes(row: number, k: number, out: Int32Array): Uint8Array | null {
    return this.bodies.partBytes(row, k, out);
  }
  /** The part spans of a row's body, found elsewhere (CallBodies.setPartByteSpans). */
  setPartByteSpans(row: number, spans: ArrayLike<number>): void {
    this.bodies.setPartByteSpans(row, spans);
  }
  /** Whether the stored summary's bytes hold `"weave"` or a `\u` escape (remembered per row). */
  summaryMentionsWeave(row: number): boolean {
    return this.bodies.summaryMentionsWeave(row);
  }
  /** Bytes of body text held (memory reports). */
  get arenaBytes(): number {
    return this.bodies.arenaBytes;
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
    for (let i = from; i < end; i++) {
      const row = rows[i];
      sum += this.bodies.touch(row);
      // A restored table's ids are read a row at a time, never made whole for a touch.
      sum += this.id(row).length + this.traceId(row).length + (this.parentId(row)?.length ?? 0);
      sum += this.startedAt.data[row] + this.endedAt.data[row] + this.opIndex.data[row];
    }
    return sum;
  }

  get pendingEndCount(): number {
    return this.pendingEnds.size;
  }

  /** Ends still waiting for their start, in arrival order (what a store dump must keep). */
  pendingEndParts(): CallEndPart[] {
    return [...this.pendingEnds.values()];
  }

  /**
   * The shared copy of a repeated string. JSON.parse gives every occurrence its own string;
   * keeping one copy per distinct value is what keeps the per-call overhead small.
   */
  private share(value: string): string;
  private share(value: string | null): string | null;
  private share(value: string | null): string | null {
    if (value === null) return null;
    const shared = this.indexes.sharedStrings;
    const seen = shared.get(value);
    if (seen !== undefined) return seen;
    shared.set(value, value);
    return value;
  }

  /**
   * share() for a user id: a project has few users, so a small map of them answers first (it
   * stays in the CPU's cache, where the shared strings' map, holding every trace id, does not).
   */
  private shareUser(value: string | null): string | null {
    if (value === null) return null;
    const seen = this.recentUsers.get(value);
    if (seen !== undefined) return seen;
    if (this.recentUsers.size >= RECENT_USERS_MAX) this.recentUsers.clear();
    const shared = this.share(value);
    this.recentUsers.set(shared, shared);
    return shared;
  }
  private readonly recentUsers = new Map<string, string>();

  /** A parent (or turn) id reuses the referenced call's own id string when it is loaded. */
  private callIdString(value: string | null): string | null {
    if (value === null) return null;
    const row = this.byId.get(value);
    return row === undefined ? this.share(value) : this.idColumn.get(row);
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
    /** A fixture record: the trace, op and relation indexes may be built on first use instead (CallIndexes.deferLoadedRow). */
    loaded = false,
    /** STORED_RELATION bits: the parent (turn) id is the stored id string of a row of this table. */
    storedRelations = 0,
  ): number {
    const row = this.idColumn.size;
    // Calls of a trace mostly come together: the previous row's shared string, without a lookup.
    const previousTrace = row > 0 ? this.traceIdColumn.get(row - 1) : null;
    const traceId = previousTrace === s.trace_id ? previousTrace : this.share(s.trace_id);
    this.idColumn.push(s.id);
    this.byId.set(s.id, row);
    this.traceIdColumn.push(traceId);
    this.parentIdColumn.push(storedRelations & STORED_RELATION.parent ? s.parent_id : this.callIdString(s.parent_id));
    this.threadIdColumn.push(this.share(s.thread_id));
    this.turnIdColumn.push(storedRelations & STORED_RELATION.turn ? s.turn_id : this.callIdString(s.turn_id));
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
    this.userIdColumn.push(this.shareUser(s.user_id));
    this.runIds.init(row, this.share(s.run_id));
    this.inputRefs.init(row, this.refList(inputRefs));
    this.outputRefs.init(row, outputRefs === null ? null : this.refList(outputRefs));
    this.bodies.push();

    if (loaded && this.indexes.deferLoadedRow(row)) return row;
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
    const parent = this.parentId(row), thread = this.threadId(row), turn = this.turnId(row);
    if (parent !== null) this.byParent.remove(parent, row);
    if (thread !== null) this.byThread.remove(thread, row);
    if (turn !== null) this.byTurn.remove(turn, row);
    if (thread !== null && turn === this.id(row)) removeFromIndex(this.turnsByThread, thread, row);
  }

  private overwriteStart(row: number, s: CallStartPart): void {
    // Everything derived first: a throw here leaves the row and its indexes as they were.
    const [, , output, summary] = this.bodyPartTexts(row);
    const started = startTexts(s);
    const text = bodyOfTexts(started.attributes, started.inputs, output ?? 'null', summary ?? 'null');
    const inputRefs = s.inputRefs ?? extractRefs(s.inputs);
    this.indexes.buildAll(); // lazily built indexes read the columns this changes
    this.unindexRelations(row);
    this.byTrace.remove(this.traceId(row), row);
    this.byOp.remove(this.opIndex.data[row], row);
    const traceId = this.share(s.trace_id);
    const op = this.opNames.id(s.op_name);
    this.traceIdColumn.set(row, traceId);
    this.parentIdColumn.set(row, this.callIdString(s.parent_id));
    this.threadIdColumn.set(row, this.share(s.thread_id));
    this.turnIdColumn.set(row, this.callIdString(s.turn_id));
    this.opIndex.data[row] = op;
    this.startedAt.data[row] = s.started_at;
    this.runStep.set(row, s.run_step);
    this.displayNames.set(row, s.display_name === '' ? null : s.display_name);
    this.userIdColumn.set(row, this.share(s.user_id));
    this.runIds.set(row, this.share(s.run_id));
    this.inputRefs.set(row, this.refList(inputRefs));
    this.byTrace.add(traceId, row);
    this.byOp.add(op, row);
    this.indexRelations(row, s);
    this.bodies.setText(row, text);
    this.rowChanged(row);
    this.startVersion++;
  }

  /**
   * Reads and checks every body a snapshot restore left in the file (a no-op otherwise), so
   * that no later read can meet a damaged byte: a front end calls it before it writes the first
   * byte of an answer too large to build whole (SnapshotDamagedError when a chunk is damaged).
   */
  readRestoredBodies(): void {
    this.bodies.readRestored();
  }

  /**
   * The columns, for a load snapshot to image (src/store/snapshot-table.ts) through each
   * column's image(). Only a table as a fixture load leaves it can be imaged: no in-place
   * change, no end waiting for its start.
   */
  columnsToImage(): CallColumns {
    if (this.version !== 0 || this.startVersion !== 0 || this.pendingEnds.size !== 0) throw new Error('only a freshly loaded call table can be snapshotted');
    return this.columns();
  }

  /**
   * Fills this empty table from a load snapshot of `rows` rows: `fill` restores each column
   * (through its restore()), and the indexes are then built from them on first use.
   */
  restoreColumns(rows: number, fill: (columns: CallColumns) => void): void {
    if (this.size !== 0 || this.version !== 0) throw new Error('a snapshot restores into an empty call table only');
    fill(this.columns());
    this.indexes.restored(rows);
  }

  private columns(): CallColumns {
    return {
      ids: this.idColumn, traceIds: this.traceIdColumn, parentIds: this.parentIdColumn, threadIds: this.threadIdColumn, turnIds: this.turnIdColumn, userIds: this.userIdColumn,
      opNames: this.opNames, opIndex: this.opIndex,
      startedAt: this.startedAt, endedAt: this.endedAt, deletedAt: this.deletedAt, statusErrorCount: this.statusErrorCount,
      runStep: this.runStep, runStepEnd: this.runStepEnd, displayNames: this.displayNames, exceptions: this.exceptions, runIds: this.runIds, inputRefs: this.inputRefs, outputRefs: this.outputRefs,
      bodies: this.bodies,
    };
  }
}
