/**
 * The parts a call arrives in (a start, an end, or a whole fixture record), engine-side, and
 * what a row's columns derive from their JSON parts.
 */
import { extractRefs } from '../core/refs.ts';
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
  /** The refs in inputs, when the writer derived them already (src/write/prepared-calls.ts); else read from `inputs`. */
  inputRefs?: string[];
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
  /** The refs in output and `summary.status_counts.error`, when the writer derived them already; else read from the values. */
  outputRefs?: string[];
  errorCount?: number;
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

export function errorCount(summary: Record<string, unknown> | null | undefined): number {
  const counts = summary?.status_counts;
  if (counts === null || typeof counts !== 'object') return NaN;
  const v = (counts as Record<string, unknown>).error;
  return typeof v === 'number' ? v : NaN;
}
