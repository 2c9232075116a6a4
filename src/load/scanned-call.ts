/**
 * A call record from a byte scan of its calls.jsonl line (core/json/call-line-scan.ts), for
 * the fast path of the fixture load: the top-level fields are decoded from their bytes, the
 * JSON parts stay unparsed, and the record is validated by the same parseCallRecord as a
 * parsed line (on a stand-in object holding the scalar fields and a placeholder per part).
 *
 * Returns null whenever the fast path cannot vouch for the exact result (a record problem,
 * a part of the wrong type, both spellings of a user/run field): the caller then loads the
 * line the slow way, which stores the same row or reports the usual message.
 */
import { isUtf8 } from 'node:buffer';
import { FIELD, FLAG, KIND, type CallLineScan } from '../core/json/call-line-scan.ts';
import { extractRefs } from '../core/refs.ts';
import { wrapOutput, type CallRecordPart, type DerivedColumns } from '../store/call-table.ts';
import { parseCallRecord, RecordProblem } from './call-record.ts';

export interface ScannedCall {
  projectId: string;
  record: CallRecordPart;
  derived: DerivedColumns;
}

/** The scanned bytes: a Buffer's own slice methods skip toString's argument handling. */
type Bytes = Buffer & { utf8Slice(start: number, end: number): string; latin1Slice(start: number, end: number): string };

/** Stands in for an object part: parseCallRecord only checks that it is an object. */
const OBJECT_PART: Record<string, unknown> = Object.freeze({}) as Record<string, unknown>;
/** Stands in for a non-null output whatever its type (only its presence matters to a row). */
const SOME_OUTPUT = 0;
/** Marks a value the fast path does not take (the slow path names the problem). */
const REFUSED = Symbol('refused');

/** A scalar field's value as JSON.parse gives it; undefined when absent. */
function scalar(scan: CallLineScan, buf: Bytes, f: number): unknown {
  const s = scan.starts[f], e = scan.ends[f];
  switch (scan.kinds[f]) {
    case KIND.ABSENT:
      return undefined;
    case KIND.STRING:
      return buf.utf8Slice(s + 1, e - 1);
    case KIND.NULL:
      return null;
    case KIND.ESCAPED_STRING:
      return JSON.parse(buf.utf8Slice(s, e)) as string;
    case KIND.NUMBER:
      return Number(buf.latin1Slice(s, e));
    case KIND.TRUE:
      return true;
    case KIND.FALSE:
      return false;
    default:
      return REFUSED; // an object or array where a scalar belongs
  }
}

/** An object part's stand-in: undefined when absent, null, or OBJECT_PART. */
function objectPart(scan: CallLineScan, f: number): unknown {
  const kind = scan.kinds[f];
  return kind === KIND.ABSENT ? undefined : kind === KIND.NULL ? null : kind === KIND.OBJECT ? OBJECT_PART : REFUSED;
}

/**
 * One of the user/run fields under either spelling (`svc_run_id`, `wb_run_id`), as
 * adoptFieldPrefix would leave it; REFUSED when both are given (the slow path reports it).
 */
function prefixed(scan: CallLineScan, buf: Bytes, svc: number, wb: number): unknown {
  if (scan.kinds[svc] !== KIND.ABSENT && scan.kinds[wb] !== KIND.ABSENT) return REFUSED;
  return scalar(scan, buf, scan.kinds[svc] !== KIND.ABSENT ? svc : wb);
}

/**
 * The fast path for the calls line `buf[start, end)`: its record from a byte scan (into
 * `scan`, whose spans stay valid until the next scan), or null for "take the slow path".
 */
export function fastCallRecord(scan: CallLineScan, buf: Buffer, start: number, end: number, prefix: 'svc_' | 'wb_'): ScannedCall | null {
  if (!isUtf8(buf.subarray(start, end))) return null;
  if (!scan.scan(buf, start, end)) return null;
  return scannedCallRecord(scan, buf, prefix);
}

/**
 * The record `scan` (a successful scan of `buf`) describes, with its derived columns, or null
 * to say "load this line the slow way".
 */
export function scannedCallRecord(scan: CallLineScan, buf: Buffer, prefix: 'svc_' | 'wb_'): ScannedCall | null {
  const b = buf as Bytes;
  const kinds = scan.kinds;
  const value: Record<string, unknown> = {
    id: scalar(scan, b, FIELD.id),
    project_id: scalar(scan, b, FIELD.project_id),
    op_name: scalar(scan, b, FIELD.op_name),
    display_name: scalar(scan, b, FIELD.display_name),
    trace_id: scalar(scan, b, FIELD.trace_id),
    parent_id: scalar(scan, b, FIELD.parent_id),
    thread_id: scalar(scan, b, FIELD.thread_id),
    turn_id: scalar(scan, b, FIELD.turn_id),
    started_at: scalar(scan, b, FIELD.started_at),
    ended_at: scalar(scan, b, FIELD.ended_at),
    deleted_at: scalar(scan, b, FIELD.deleted_at),
    attributes: objectPart(scan, FIELD.attributes),
    inputs: objectPart(scan, FIELD.inputs),
    output: kinds[FIELD.output] === KIND.ABSENT ? undefined : kinds[FIELD.output] === KIND.NULL ? null : SOME_OUTPUT,
    exception: scalar(scan, b, FIELD.exception),
    summary: objectPart(scan, FIELD.summary),
  };
  value[`${prefix}user_id`] = prefixed(scan, b, FIELD.svc_user_id, FIELD.wb_user_id);
  value[`${prefix}run_id`] = prefixed(scan, b, FIELD.svc_run_id, FIELD.wb_run_id);
  value[`${prefix}run_step`] = prefixed(scan, b, FIELD.svc_run_step, FIELD.wb_run_step);
  value[`${prefix}run_step_end`] = prefixed(scan, b, FIELD.svc_run_step_end, FIELD.wb_run_step_end);
  for (const k in value) if (value[k] === REFUSED) return null;
  let parsed: ReturnType<typeof parseCallRecord>;
  try {
    parsed = parseCallRecord(value, prefix);
  } catch (e) {
    if (e instanceof RecordProblem) return null;
    throw e;
  }
  const { record } = parsed;
  const inputRefs = scan.flags & FLAG.INPUTS_REFS ? extractRefs(parsePart(scan, b, FIELD.inputs)) : [];
  let outputRefs: string[] | null;
  if (record.ended_at === null && record.output === null) outputRefs = null;
  else outputRefs = scan.flags & FLAG.OUTPUT_REFS ? extractRefs(wrapOutput(parsePart(scan, b, FIELD.output))) : [];
  const errorCount = kinds[FIELD.summary] === KIND.OBJECT ? scan.errorCount : NaN;
  return { projectId: parsed.projectId, record, derived: { inputRefs, outputRefs, errorCount } };
}

/** One part parsed alone, as JSON.parse of the whole line would give it. */
function parsePart(scan: CallLineScan, buf: Bytes, field: number): unknown {
  return JSON.parse(buf.utf8Slice(scan.starts[field], scan.ends[field]));
}
