/**
 * Validating one fixture call record (a line of calls.jsonl) into a CallRecordPart. Pure: the
 * file reading lives in src/io. Problems are reported as text naming the field, which the
 * loader turns into `file:line: problem`.
 */
import { parseIsoMicros } from '../../core/datetime.ts';
import { projectIdProblem, showProjectId } from '../../core/project-id.ts';
import type { CallRecordPart } from '../../store/call-table.ts';
import { isPlainObject } from '../../core/plain-object.ts';

export class RecordProblem extends Error {}

type Obj = Record<string, unknown>;

export function requireString(rec: Obj, key: string): string {
  const v = rec[key];
  if (typeof v !== 'string' || v === '') throw new RecordProblem(v === undefined || v === null ? `missing ${key}` : `${key} must be a non-empty string`);
  return v;
}

export function optionalString(rec: Obj, key: string): string | null {
  const v = rec[key];
  if (v === undefined || v === null) return null;
  if (typeof v !== 'string') throw new RecordProblem(`${key} must be a string or null`);
  return v;
}

/** The last project id found valid: a fixture file names one project on nearly every line. */
let lastValidProjectId = '';

export function projectIdOf(rec: Obj): string {
  const p = requireString(rec, 'project_id');
  if (p === lastValidProjectId) return p;
  const problem = projectIdProblem(p);
  if (problem !== null) throw new RecordProblem(`invalid project_id '${showProjectId(p)}': ${problem}`);
  lastValidProjectId = p;
  return p;
}

function datetime(rec: Obj, key: string, required: boolean): number | null {
  const v = rec[key];
  if (v === undefined || v === null) {
    if (required) throw new RecordProblem(`missing ${key}`);
    return null;
  }
  const us = typeof v === 'string' ? parseIsoMicros(v) : NaN;
  if (Number.isNaN(us)) throw new RecordProblem(`${key} must be an ISO 8601 date-time, got ${JSON.stringify(v)}`);
  return us;
}

function object(rec: Obj, key: string): Obj | null {
  const v = rec[key];
  if (v === undefined || v === null) return null;
  if (!isPlainObject(v)) throw new RecordProblem(`${key} must be an object or null`);
  return v;
}

function integer(rec: Obj, key: string): number | null {
  const v = rec[key];
  if (v === undefined || v === null) return null;
  if (typeof v !== 'number' || !Number.isInteger(v)) throw new RecordProblem(`${key} must be an integer or null`);
  return v;
}

const PREFIXED_FIELDS = ['user_id', 'run_id', 'run_step', 'run_step_end'];
const PREFIXES = ['svc_', 'wb_'];

/**
 * Fixture files may spell the user/run fields either way (`svc_user_id` or Weave's
 * `wb_user_id`), whatever the engine speaks on the wire: a file is data, and the bundled demo
 * must load under `--field-prefix wb_` too. The record is rewritten in place to `prefix`;
 * both spellings of one field in one record is a problem, not a silent choice.
 */
export function adoptFieldPrefix(rec: Record<string, unknown>, prefix: string): void {
  for (const [foreign, own] of renamesTo(prefix)) {
    if (!(foreign in rec)) continue;
    if (own in rec) throw new RecordProblem(`both ${own} and ${foreign} are given`);
    rec[own] = rec[foreign];
    delete rec[foreign];
  }
}

/** [foreign spelling, own spelling] of every prefixed field, per prefix (computed once). */
const RENAMES = new Map<string, Array<[string, string]>>();
function renamesTo(prefix: string): Array<[string, string]> {
  let pairs = RENAMES.get(prefix);
  if (!pairs) {
    pairs = [];
    for (const field of PREFIXED_FIELDS) for (const other of PREFIXES) if (other !== prefix) pairs.push([other + field, prefix + field]);
    RENAMES.set(prefix, pairs);
  }
  return pairs;
}

/** A complete call record as stored in calls.jsonl; `prefix` spells the user/run fields. */
export function parseCallRecord(value: unknown, prefix: string): { projectId: string; record: CallRecordPart } {
  if (!isPlainObject(value)) throw new RecordProblem('a call record must be a JSON object');
  adoptFieldPrefix(value, prefix);
  const projectId = projectIdOf(value);
  const record: CallRecordPart = {
    id: requireString(value, 'id'),
    op_name: requireString(value, 'op_name'),
    display_name: optionalString(value, 'display_name'),
    trace_id: requireString(value, 'trace_id'),
    parent_id: optionalString(value, 'parent_id'),
    thread_id: optionalString(value, 'thread_id'),
    turn_id: optionalString(value, 'turn_id'),
    started_at: datetime(value, 'started_at', true)!,
    ended_at: datetime(value, 'ended_at', false),
    deleted_at: datetime(value, 'deleted_at', false),
    attributes: object(value, 'attributes') ?? {},
    inputs: object(value, 'inputs') ?? {},
    output: value.output ?? null,
    exception: optionalString(value, 'exception'),
    summary: object(value, 'summary'),
    user_id: optionalString(value, `${prefix}user_id`),
    run_id: optionalString(value, `${prefix}run_id`),
    run_step: integer(value, `${prefix}run_step`),
    run_step_end: integer(value, `${prefix}run_step_end`),
  };
  return { projectId, record };
}
