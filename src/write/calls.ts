/**
 * Call writes (semantics.md#writes-call-start, semantics.md#writes-call-end,
 * semantics.md#writes-upsert-batch, semantics.md#calls-related-writes): a start and an end are
 * merged per call id in either arrival order (an end that comes first waits in the CallTable until
 * its start arrives), a repeated start replaces the start fields, and a batch applies its items in
 * order, as if each were sent alone.
 */
import type { Engine } from '../api/types.ts';
import { invalidRequest, tqError } from '../core/errors.ts';
import type { CallEndPart, CallStartPart } from '../store/call-table.ts';

/** A validated `StartedCallSchemaForInsert`, prefix-neutral (datetimes in µs). */
export interface CallStartInput {
  project_id: string;
  id?: string | null;
  op_name: string;
  display_name?: string | null;
  trace_id?: string | null;
  parent_id?: string | null;
  thread_id?: string | null;
  turn_id?: string | null;
  started_at: number;
  attributes: Record<string, unknown>;
  inputs: Record<string, unknown>;
  user_id?: string | null;
  run_id?: string | null;
  run_step?: number | null;
}

/** A validated `EndedCallSchemaForInsert`, prefix-neutral. */
export interface CallEndInput {
  project_id: string;
  id: string;
  ended_at: number;
  exception?: string | null;
  output?: unknown;
  summary: Record<string, unknown>;
  run_step_end?: number | null;
}

export interface CallStartResult {
  id: string;
  trace_id: string;
}

export type BatchItem = { mode: 'start'; start: CallStartInput } | { mode: 'end'; end: CallEndInput };

/**
 * The stored JSON text of a call's part as its write route spells it (define-route.ts
 * `storedText`: semantics.md#writes-number-spelling); without one (the OTel ingest, library
 * callers) the part is stored as the JSON of its value.
 */
export type PartText = (part: unknown) => string;

/**
 * `call_start`: missing `id` / `trace_id` are generated (UUIDv7, as ClickHouse's server does);
 * a missing user id is the authenticated user's (semantics.md#writes-user-id).
 */
export function startCall(engine: Engine, start: CallStartInput, userId: string, partText?: PartText): CallStartResult {
  const part = startPart(engine, start, userId, partText);
  engine.store.projectForWrite(start.project_id).calls.start(part);
  return { id: part.id, trace_id: part.trace_id };
}

/** The row part a start writes, with its generated ids drawn (nothing is changed yet). */
function startPart(engine: Engine, start: CallStartInput, userId: string, partText?: PartText): CallStartPart {
  const id = start.id ?? engine.options.newId();
  const traceId = start.trace_id ?? engine.options.newId();
  const part: CallStartPart = {
    id,
    op_name: start.op_name,
    display_name: start.display_name ?? null,
    trace_id: traceId,
    parent_id: start.parent_id ?? null,
    thread_id: start.thread_id ?? null,
    turn_id: start.turn_id ?? null,
    started_at: start.started_at,
    attributes: start.attributes,
    inputs: start.inputs,
    user_id: start.user_id ?? userId,
    run_id: start.run_id ?? null,
    run_step: start.run_step ?? null,
  };
  if (partText) part.texts = { attributes: partText(start.attributes), inputs: partText(start.inputs) };
  return part;
}

/**
 * `call_end`: sets the end fields; the summary replaces any earlier one
 * (semantics.md#writes-call-end).
 */
export function endCall(engine: Engine, end: CallEndInput, partText?: PartText): Record<string, never> {
  engine.store.projectForWrite(end.project_id).calls.end(endPart(end, partText));
  return {};
}

function endPart(end: CallEndInput, partText?: PartText): CallEndPart {
  const part: CallEndPart = {
    id: end.id,
    ended_at: end.ended_at,
    exception: end.exception ?? null,
    output: end.output ?? null,
    summary: end.summary,
    run_step_end: end.run_step_end ?? null,
  };
  if (partText) part.texts = { output: partText(part.output), summary: partText(end.summary) };
  return part;
}

/**
 * `call_update`: only `display_name` can change, and it must be given; the latest value wins
 * and the empty string clears it. An unknown call id changes nothing (no error, as Weave).
 */
export function updateCall(engine: Engine, projectId: string, callId: string, displayName: string | null | undefined): Record<string, never> {
  if (displayName === null || displayName === undefined) {
    throw invalidRequest('TQ_INVALID_REQUEST', { reason: 'One of [display_name] is required for call update' });
  }
  const calls = engine.store.project(projectId)?.calls;
  const row = calls?.rowOf(callId);
  if (calls && row !== undefined) calls.setDisplayName(row, displayName);
  return {};
}

/** Weave's MAX_DELETE_CALLS_COUNT (ClickHouse server). */
const MAX_DELETE_CALLS = 1000;

/**
 * `calls_delete`: soft-deletes the given calls and their descendants, and answers
 * `{num_deleted}` counted as production counts (semantics.md#writes-calls-delete): every
 * distinct id named, known or not, and every live call reached from one through parent links
 * inside the traces of the named live calls (inside any trace when no named call is live, as
 * production's empty trace filter reads them all). More than 1000 ids is a 413.
 */
export function deleteCalls(engine: Engine, projectId: string, callIds: readonly string[]): { num_deleted: number } {
  if (callIds.length > MAX_DELETE_CALLS) throw tqError('TQ_DELETE_TOO_MANY', { max: MAX_DELETE_CALLS });
  const calls = engine.store.project(projectId)?.calls;
  if (!calls) return { num_deleted: new Set(callIds).size };
  const isLive = (row: number | undefined): row is number => row !== undefined && !calls.isDeleted(row);
  const named = callIds.map((id) => calls.rowOf(id)).filter(isLive);
  const traces = named.length > 0 ? new Set(named.map((r) => calls.traceId(r))) : null;
  const counted = new Set<string>();
  const doomed: number[] = [];
  const pending = [...callIds];
  while (pending.length > 0) {
    const id = pending.pop()!;
    if (counted.has(id)) continue;
    counted.add(id);
    const row = calls.rowOf(id);
    if (isLive(row)) doomed.push(row);
    for (const child of calls.byParent.get(id) ?? []) {
      if (!calls.isDeleted(child) && (traces === null || traces.has(calls.traceId(child)))) pending.push(calls.id(child));
    }
  }
  const at = engine.options.now();
  for (const row of doomed) calls.markDeleted(row, at);
  return { num_deleted: counted.size };
}

/** Turns a batch item's mode and request into a BatchItem; a mode that does not fit is a 400. */
export function batchItem(mode: string, start: CallStartInput | null, end: CallEndInput | null): BatchItem {
  if (mode === 'start' && start !== null) return { mode: 'start', start };
  if (mode === 'end' && end !== null) return { mode: 'end', end };
  throw invalidRequest('TQ_INVALID_MODE');
}
