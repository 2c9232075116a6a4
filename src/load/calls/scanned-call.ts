/**
 * Call records from byte scans of calls.jsonl lines (line-scan.ts): the fast
 * path of the fixture load. The top-level fields are decoded from their bytes, the JSON parts
 * stay unparsed, and the record is checked against the same rules as parseCallRecord.
 *
 * The fast path never reports a problem itself: whenever it cannot vouch for the exact result
 * (anything parseCallRecord would refuse, a part of the wrong type, both spellings of a
 * user/run field, an escaped datetime), it answers null and the caller loads the line the
 * slow way, which stores the same row or reports the usual message. The differential tests
 * hold the two paths to the same results.
 *
 * Work is split in two steps so that the first can run on a worker thread: prescan (UTF-8
 * check, JSON scan, datetimes) fills typed arrays per line; scannedCallRecord builds the
 * record from them on the thread that owns the store.
 */
import { isUtf8 } from 'node:buffer';
import { CallLineScan, FIELD, FIELD_COUNT, FLAG, KIND, type CallLineScanArrays } from './line-scan.ts';
import { parseCanonicalUtcBytes, parseIsoMicros } from '../../core/datetime.ts';
import { projectIdProblem } from '../../core/project-id.ts';
import { extractRefs } from '../../core/refs.ts';
import { wrapOutput, type CallRecordPart, type DerivedColumns } from '../../store/call-table.ts';
import { SAME, SAME_WIDTH } from './same-values.ts';

export interface ScannedCall {
  projectId: string;
  record: CallRecordPart;
  derived: DerivedColumns;
}

const latin1 = new TextDecoder('latin1');
const utf8 = new TextDecoder();

/** The datetime fields, in the order of their slots in `micros`. */
const DATETIMES = [FIELD.started_at, FIELD.ended_at, FIELD.deleted_at] as const;

/** Prescans of a run of lines: the JSON scans plus datetimes and a per-line verdict. */
export interface CallLinePrescanArrays extends CallLineScanArrays {
  /** Per slot: 1 when the fast path may take the line. */
  ok: Uint8Array;
  /** Per slot: started_at, ended_at, deleted_at in µs (NaN when absent or null). */
  micros: Float64Array;
  /**
   * Per slot: the refs of inputs and of output, found by parsing the part alone (their order
   * and a repeated key's last value then are exactly JSON.parse's) when the scan flagged a
   * string that may be a ref; unset otherwise.
   */
  inputRefs: Array<string[] | undefined>;
  outputRefs: Array<string[] | undefined>;
}

/**
 * Per slot of a block's prescan, what the scanning thread's GateScreen (one-shot-gate.ts) said
 * of the line (its SCREENED verdict); unless SLOW, the line's `idHashes` are the screen's hash of
 * its id (escaped or not).
 */
export interface ScreenedLines {
  verdicts: Uint8Array;
}

export class CallLinePrescan extends CallLineScan implements CallLinePrescanArrays {
  ok: Uint8Array;
  micros: Float64Array;
  inputRefs: Array<string[] | undefined>;
  outputRefs: Array<string[] | undefined>;
  /** A one-shot gate's verdicts on these lines, when the scanning thread judged them (one-shot-gate.ts). */
  screened: ScreenedLines | null = null;
  /**
   * Per slot i, `[2i]` and `[2i + 1]`: the IdHash of the line's id made by the scanning thread
   * ((0, 0): none, an escaped id the gate's screen did not pass), so the storing thread probes the id index without hashing; null: none made.
   */
  idHashes: Int32Array | null = null;
  /**
   * Per slot i, `[SAME_WIDTH * i + SAME.*]`: the earlier line of the block whose op name, trace
   * id or user id has the same bytes, or whose id is the parent or turn id (-1: none), found by
   * the scanning thread (same-values.ts); null: none found (lines scanned one at a time).
   */
  sameAs: Int32Array | null = null;

  constructor(capacity = 1, arrays?: CallLinePrescanArrays) {
    super(capacity, arrays);
    this.ok = arrays?.ok ?? new Uint8Array(capacity);
    this.micros = arrays?.micros ?? new Float64Array(capacity * 3);
    this.inputRefs = arrays?.inputRefs ?? [];
    this.outputRefs = arrays?.outputRefs ?? [];
  }

  override reserve(capacity: number, keep: number): void {
    if (capacity <= this.capacity) return;
    super.reserve(capacity, keep);
    const ok = new Uint8Array(capacity);
    ok.set(this.ok.subarray(0, keep));
    const micros = new Float64Array(capacity * 3);
    micros.set(this.micros.subarray(0, keep * 3));
    this.ok = ok;
    this.micros = micros;
  }

  override arrays(count: number): CallLinePrescanArrays {
    return {
      ...super.arrays(count),
      ok: this.ok.slice(0, count),
      micros: this.micros.slice(0, count * 3),
      inputRefs: this.inputRefs.slice(0, count),
      outputRefs: this.outputRefs.slice(0, count),
    };
  }

  /**
   * The first step for the calls line `buf[start, end)` into `slot`: true when the fast path
   * may take it (valid UTF-8, a JSON object the scanner reads, datetimes that parse).
   */
  prescan(buf: Uint8Array, start: number, end: number, slot: number, withRefs = true): boolean {
    const ok = this.isUtf8(buf, start, end) && this.scan(buf, start, end, slot) && this.readDatetimes(buf, slot);
    this.ok[slot] = ok ? 1 : 0;
    if (withRefs) this.readRefs(buf, slot);
    else this.inputRefs[slot] = this.outputRefs[slot] = undefined;
    return ok;
  }

  /**
   * The refs of the line prescanned last (into `slot`, `withRefs` false): a one-shot's scan
   * reads them only for the rows its gate may store.
   */
  readRefs(buf: Uint8Array, slot: number): void {
    const flags = this.ok[slot] === 1 ? this.flags[slot] : 0;
    this.inputRefs[slot] = flags & FLAG.INPUTS_REFS ? this.refsOf(buf, slot, 0) : undefined;
    this.outputRefs[slot] = flags & FLAG.OUTPUT_REFS ? this.refsOf(buf, slot, 1) : undefined;
  }

  /** Whether `buf[start, end)` is valid UTF-8 (a block scan may know it for the whole block). */
  protected isUtf8(buf: Uint8Array, start: number, end: number): boolean {
    return isUtf8(view(buf, start, end));
  }

  /**
   * extractRefs of inputs (part 0) or of the wrapped output (part 1): from the one ref-like
   * string the scan found when it could vouch for it, else from the parsed part.
   */
  private refsOf(buf: Uint8Array, slot: number, part: number): string[] {
    if (this.refCount[part] === 1 && this.refUnsure[part] === 0) {
      const text = utf8.decode(view(buf, this.refFrom[part], this.refTo[part]));
      // Calls name the same few objects over and over: whether a string is a ref is remembered.
      let isRef = knownRefs.get(text);
      if (isRef === undefined) {
        if (knownRefs.size >= KNOWN_REFS_MAX) knownRefs.clear();
        knownRefs.set(text, (isRef = extractRefs(text).length === 1));
      }
      return isRef ? [text] : [];
    }
    if (part === 0) return extractRefs(this.parsePart(buf, slot, FIELD.inputs));
    return extractRefs(wrapOutput(this.parsePart(buf, slot, FIELD.output)));
  }

  private parsePart(buf: Uint8Array, slot: number, field: number): unknown {
    const at = slot * FIELD_COUNT + field;
    return JSON.parse(utf8.decode(buf.subarray(this.starts[at], this.ends[at])));
  }

  private readDatetimes(buf: Uint8Array, slot: number): boolean {
    for (let k = 0; k < 3; k++) {
      const at = slot * FIELD_COUNT + DATETIMES[k];
      const kind = this.kinds[at];
      let us = NaN;
      if (kind === KIND.STRING) {
        const from = this.starts[at] + 1, to = this.ends[at] - 1;
        us = parseCanonicalUtcBytes(buf, from, to);
        if (us < 0) us = parseIsoMicros(ascii(buf, from, to)); // the general parser decides
        if (Number.isNaN(us)) return false;
      } else if (kind !== KIND.ABSENT && kind !== KIND.NULL) {
        return false; // not a datetime, or one spelled with escapes
      }
      this.micros[slot * 3 + k] = us;
    }
    return true;
  }
}

/** Ref-like strings seen lately, and whether extractRefs keeps each (a bounded memo). */
const knownRefs = new Map<string, boolean>();
const KNOWN_REFS_MAX = 4096;

/** `buf[from, to)` as a plain view (a Buffer's subarray takes a slow species lookup). */
const view = (buf: Uint8Array, from: number, to: number) => new Uint8Array(buf.buffer, buf.byteOffset + from, to - from);

/** The ASCII text of `buf[from, to)`, or '' (which no datetime parser takes) when a byte is not ASCII. */
function ascii(buf: Uint8Array, from: number, to: number): string {
  for (let i = from; i < to; i++) if (buf[i] >= 0x80) return ''; // the slow path decides on non-ASCII datetimes
  return latin1.decode(buf.subarray(from, to));
}

/** The scanned bytes: a Buffer's own slice methods skip toString's argument handling. */
type Bytes = Buffer & { utf8Slice(start: number, end: number): string; latin1Slice(start: number, end: number): string };

/** Stands in for an object part: the row takes what it needs from `derived`. */
const OBJECT_PART: Record<string, unknown> = Object.freeze({}) as Record<string, unknown>;
/** Stands in for a non-null output whatever its type (only its presence matters to a row). */
const SOME_OUTPUT = 0;
/** Marks a field value the fast path does not take. */
const REFUSED = Symbol('refused');

/** The last project id found valid: a fixture file names one project on nearly every line. */
let lastValidProjectId = '';

/** A string field's value; null when absent or null; REFUSED when not a string. */
function optionalString(p: CallLinePrescan, buf: Bytes, at: number): string | null | typeof REFUSED {
  switch (p.kinds[at]) {
    case KIND.ABSENT:
    case KIND.NULL:
      return null;
    case KIND.STRING:
      return buf.utf8Slice(p.starts[at] + 1, p.ends[at] - 1);
    case KIND.ESCAPED_STRING:
      return JSON.parse(buf.utf8Slice(p.starts[at], p.ends[at])) as string;
    default:
      return REFUSED;
  }
}

/** A required non-empty string field, or REFUSED. */
function requiredString(p: CallLinePrescan, buf: Bytes, at: number): string | typeof REFUSED {
  const v = optionalString(p, buf, at);
  return v === null || v === '' ? REFUSED : v;
}

/** An integer field; null when absent or null; REFUSED otherwise. */
function optionalInteger(p: CallLinePrescan, buf: Bytes, at: number): number | null | typeof REFUSED {
  const kind = p.kinds[at];
  if (kind === KIND.ABSENT || kind === KIND.NULL) return null;
  if (kind !== KIND.NUMBER) return REFUSED;
  const v = Number(buf.latin1Slice(p.starts[at], p.ends[at]));
  return Number.isInteger(v) ? v : REFUSED;
}

/** An object part's stand-in: null when absent or null; REFUSED when not an object. */
function objectPart(p: CallLinePrescan, at: number): Record<string, unknown> | null | typeof REFUSED {
  const kind = p.kinds[at];
  return kind === KIND.ABSENT || kind === KIND.NULL ? null : kind === KIND.OBJECT ? OBJECT_PART : REFUSED;
}

/**
 * The slot of a user/run field under whichever spelling the line uses (`svc_run_id` or
 * `wb_run_id`, as adoptFieldPrefix reads either); -1 when the line gives both.
 */
function spelled(p: CallLinePrescan, base: number, svc: number, wb: number): number {
  const hasSvc = p.kinds[base + svc] !== KIND.ABSENT;
  if (hasSvc && p.kinds[base + wb] !== KIND.ABSENT) return -1;
  return base + (hasSvc ? svc : wb);
}

/** No refs (the store keeps no list for it, and never writes into it): one array for every such row. */
const NO_REFS: string[] = [];

/** The strings made for the lines of one block, by slot (see CallLinePrescan.sameAs). */
interface BlockStrings {
  buf: Uint8Array | null;
  ids: Array<string | undefined>;
  opNames: Array<string | undefined>;
  traceIds: Array<string | undefined>;
  userIds: Array<string | undefined>;
}
let lastBlockStrings: BlockStrings = { buf: null, ids: [], opNames: [], traceIds: [], userIds: [] };

/** The strings made so far for the lines of block `buf` (a new block starts with none). */
function blockStrings(buf: Uint8Array): BlockStrings {
  if (lastBlockStrings.buf !== buf) lastBlockStrings = { buf, ids: [], opNames: [], traceIds: [], userIds: [] };
  return lastBlockStrings;
}

/** Forgets the strings of the last block (its bytes are not to be kept alive). */
export function forgetBlockStrings(): void {
  lastBlockStrings = { buf: null, ids: [], opNames: [], traceIds: [], userIds: [] };
}

/**
 * The string of field slot `at` of line `slot`, which has the same bytes as the same field of
 * line `earlier` (-1: none earlier): the string made for that line, made from this line's bytes
 * when it has none yet. A line with no earlier one keeps its own string for the lines after.
 */
function repeatedString(made: Array<string | undefined>, earlier: number, slot: number, p: CallLinePrescan, buf: Bytes, at: number, required: boolean): string | null | typeof REFUSED {
  if (earlier < 0) {
    const v = required ? requiredString(p, buf, at) : optionalString(p, buf, at);
    if (typeof v === 'string') made[slot] = v;
    return v;
  }
  // A plain non-empty string (the scanning thread matches no other): utf8Slice is what optionalString makes of it.
  let v = made[earlier];
  if (v === undefined) made[earlier] = v = buf.utf8Slice(p.starts[at] + 1, p.ends[at] - 1);
  return v;
}

/**
 * The second step: the record of the prescanned line in `slot` of `p` (scanned from `buf`)
 * with its derived columns, or null to say "load this line the slow way".
 */
export function scannedCallRecord(p: CallLinePrescan, slot: number, buf: Buffer): ScannedCall | null {
  if (p.ok[slot] !== 1) return null;
  const b = buf as Bytes;
  const base = slot * FIELD_COUNT;
  const projectId = requiredString(p, b, base + FIELD.project_id);
  if (projectId === REFUSED) return null;
  if (projectId !== lastValidProjectId) {
    if (projectIdProblem(projectId) !== null) return null;
    lastValidProjectId = projectId;
  }
  const userAt = spelled(p, base, FIELD.svc_user_id, FIELD.wb_user_id);
  const runAt = spelled(p, base, FIELD.svc_run_id, FIELD.wb_run_id);
  const stepAt = spelled(p, base, FIELD.svc_run_step, FIELD.wb_run_step);
  const stepEndAt = spelled(p, base, FIELD.svc_run_step_end, FIELD.wb_run_step_end);
  if (userAt < 0 || runAt < 0 || stepAt < 0 || stepEndAt < 0) return null;
  const startedAt = p.micros[slot * 3];
  if (Number.isNaN(startedAt)) return null; // missing (a bad one failed the prescan)
  const endedAt = p.micros[slot * 3 + 1];
  const deletedAt = p.micros[slot * 3 + 2];
  const id = requiredString(p, b, base + FIELD.id);
  const same = p.sameAs;
  let opName: string | typeof REFUSED, traceId: string | typeof REFUSED, parentId: string | null | typeof REFUSED, turnId: string | null | typeof REFUSED;
  let userId: string | null | typeof REFUSED;
  if (same === null) {
    opName = requiredString(p, b, base + FIELD.op_name);
    traceId = requiredString(p, b, base + FIELD.trace_id);
    parentId = optionalString(p, b, base + FIELD.parent_id);
    turnId = optionalString(p, b, base + FIELD.turn_id);
    userId = optionalString(p, b, userAt);
  } else {
    // Strings the block's earlier lines made, where the scanning thread found the same bytes.
    const made = blockStrings(buf);
    const at = SAME_WIDTH * slot;
    if (id !== REFUSED) made.ids[slot] = id;
    opName = repeatedString(made.opNames, same[at + SAME.opName], slot, p, b, base + FIELD.op_name, true) as string | typeof REFUSED;
    traceId = repeatedString(made.traceIds, same[at + SAME.traceId], slot, p, b, base + FIELD.trace_id, true) as string | typeof REFUSED;
    userId = repeatedString(made.userIds, same[at + SAME.userId], slot, p, b, userAt, false);
    const parentLine = same[at + SAME.parentId], turnLine = same[at + SAME.turnId];
    parentId = (parentLine >= 0 ? made.ids[parentLine] : undefined) ?? optionalString(p, b, base + FIELD.parent_id);
    turnId = (turnLine >= 0 ? made.ids[turnLine] : undefined) ?? optionalString(p, b, base + FIELD.turn_id);
  }
  const displayName = optionalString(p, b, base + FIELD.display_name);
  const threadId = optionalString(p, b, base + FIELD.thread_id);
  const attributes = objectPart(p, base + FIELD.attributes);
  const inputs = objectPart(p, base + FIELD.inputs);
  const exception = optionalString(p, b, base + FIELD.exception);
  const summary = objectPart(p, base + FIELD.summary);
  const runId = optionalString(p, b, runAt);
  const runStep = optionalInteger(p, b, stepAt);
  const runStepEnd = optionalInteger(p, b, stepEndAt);
  if (
    id === REFUSED || opName === REFUSED || displayName === REFUSED || traceId === REFUSED || parentId === REFUSED || threadId === REFUSED ||
    turnId === REFUSED || attributes === REFUSED || inputs === REFUSED || exception === REFUSED || summary === REFUSED || userId === REFUSED ||
    runId === REFUSED || runStep === REFUSED || runStepEnd === REFUSED
  ) return null;
  const outputKind = p.kinds[base + FIELD.output];
  const record: CallRecordPart = {
    id,
    op_name: opName,
    display_name: displayName,
    trace_id: traceId,
    parent_id: parentId,
    thread_id: threadId,
    turn_id: turnId,
    started_at: startedAt,
    ended_at: Number.isNaN(endedAt) ? null : endedAt,
    deleted_at: Number.isNaN(deletedAt) ? null : deletedAt,
    attributes: attributes ?? OBJECT_PART,
    inputs: inputs ?? OBJECT_PART,
    output: outputKind === KIND.ABSENT || outputKind === KIND.NULL ? null : SOME_OUTPUT,
    exception,
    summary,
    user_id: userId,
    run_id: runId,
    run_step: runStep,
    run_step_end: runStepEnd,
  };
  const inputRefs = p.inputRefs[slot] ?? NO_REFS;
  const outputRefs = record.ended_at === null && record.output === null ? null : (p.outputRefs[slot] ?? NO_REFS);
  const errorCount = summary === null ? NaN : p.errorCounts[slot];
  return { projectId, record, derived: { inputRefs, outputRefs, errorCount } };
}

/** Per field slot: 1 for the optional strings, 2 for the required ones, 3 for the object parts. */
const STRING_FIELDS = [FIELD.display_name, FIELD.parent_id, FIELD.thread_id, FIELD.turn_id, FIELD.exception] as const;
const REQUIRED_FIELDS = [FIELD.id, FIELD.op_name, FIELD.trace_id] as const;
const OBJECT_FIELDS = [FIELD.attributes, FIELD.inputs, FIELD.summary] as const;

const isOptionalStringKind = (kind: number) => kind === KIND.ABSENT || kind === KIND.NULL || kind === KIND.STRING || kind === KIND.ESCAPED_STRING;

/**
 * Whether scannedCallRecord takes the prescanned line in `slot` (gives a record, not null),
 * decided from the scan without making its strings: what a one-shot gate (one-shot-gate.ts)
 * asks of every line it leaves out. The property test holds it to scannedCallRecord.
 */
export function scannedCallTaken(p: CallLinePrescan, slot: number, buf: Buffer): boolean {
  if (p.ok[slot] !== 1) return false;
  const base = slot * FIELD_COUNT;
  const kinds = p.kinds;
  const projectAt = base + FIELD.project_id;
  const projectKind = kinds[projectAt];
  if (projectKind === KIND.STRING) {
    if (p.ends[projectAt] - p.starts[projectAt] <= 2) return false;
  } else if (projectKind !== KIND.ESCAPED_STRING) return false;
  if (!sameAsLastValidProject(p, buf as Bytes, projectAt)) {
    const projectId = optionalString(p, buf as Bytes, projectAt) as string;
    if (projectIdProblem(projectId) !== null) return false;
    lastValidProjectId = projectId;
  }
  const userAt = spelled(p, base, FIELD.svc_user_id, FIELD.wb_user_id);
  const runAt = spelled(p, base, FIELD.svc_run_id, FIELD.wb_run_id);
  const stepAt = spelled(p, base, FIELD.svc_run_step, FIELD.wb_run_step);
  const stepEndAt = spelled(p, base, FIELD.svc_run_step_end, FIELD.wb_run_step_end);
  if (userAt < 0 || runAt < 0 || stepAt < 0 || stepEndAt < 0) return false;
  if (Number.isNaN(p.micros[slot * 3])) return false;
  for (let i = 0; i < REQUIRED_FIELDS.length; i++) {
    const at = base + REQUIRED_FIELDS[i];
    const kind = kinds[at];
    if (kind === KIND.STRING ? p.ends[at] - p.starts[at] <= 2 : kind !== KIND.ESCAPED_STRING) return false;
  }
  for (let i = 0; i < STRING_FIELDS.length; i++) if (!isOptionalStringKind(kinds[base + STRING_FIELDS[i]])) return false;
  if (!isOptionalStringKind(kinds[userAt]) || !isOptionalStringKind(kinds[runAt])) return false;
  for (let i = 0; i < OBJECT_FIELDS.length; i++) {
    const kind = kinds[base + OBJECT_FIELDS[i]];
    if (kind !== KIND.ABSENT && kind !== KIND.NULL && kind !== KIND.OBJECT) return false;
  }
  return optionalInteger(p, buf as Bytes, stepAt) !== REFUSED && optionalInteger(p, buf as Bytes, stepEndAt) !== REFUSED;
}

/** Whether a plain project_id string's bytes spell the last project id found valid. */
function sameAsLastValidProject(p: CallLinePrescan, buf: Bytes, at: number): boolean {
  if (p.kinds[at] !== KIND.STRING) return false;
  const last = lastValidProjectId;
  const from = p.starts[at] + 1, to = p.ends[at] - 1;
  if (to - from !== last.length) return false;
  // Byte for character: only an ASCII id compares this way.
  for (let i = 0; i < last.length; i++) {
    const c = last.charCodeAt(i);
    if (c >= 0x80 || buf[from + i] !== c) return false;
  }
  return true;
}

/**
 * Both steps for one line (slot 0 of `p`): the fast path's record of the calls line
 * `buf[start, end)`, or null for "take the slow path".
 */
export function fastCallRecord(p: CallLinePrescan, buf: Buffer, start: number, end: number): ScannedCall | null {
  return p.prescan(buf, start, end, 0) ? scannedCallRecord(p, 0, buf) : null;
}

/** The four JSON parts of a call body, in the order the store keeps their spans (BODY_PARTS). */
const PART_FIELDS = [FIELD.attributes, FIELD.inputs, FIELD.output, FIELD.summary] as const;

/**
 * Where attributes, inputs, output and summary sit in the stored body of the prescanned line in
 * `slot` (`lineStart`: the body's first byte in the scanned buffer): `out[2k], out[2k + 1]` are
 * the byte start and end of part k within the body, -1 when the line has no such key. Valid for
 * lines the fast path took (scannedCallRecord gave a record); for the store's part spans.
 */
export function partByteSpans(p: CallLinePrescan, slot: number, lineStart: number, out: Int32Array): Int32Array {
  const base = slot * FIELD_COUNT;
  for (let k = 0; k < 4; k++) {
    const at = base + PART_FIELDS[k];
    const absent = p.kinds[at] === KIND.ABSENT;
    out[2 * k] = absent ? -1 : p.starts[at] - lineStart;
    out[2 * k + 1] = absent ? -1 : p.ends[at] - lineStart;
  }
  return out;
}
