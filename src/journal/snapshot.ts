/**
 * The whole store as fixture lines (what `tq dump` writes): loading them reproduces the store
 * (ids, digests, version indexes, timestamps, deletions, feedback and price ids). What the
 * five fixture files cannot say is returned as journal records for the fresh journal: files
 * (`/file/create`) and call ends still waiting for their start (`/call/end`).
 *
 * Order matters and is kept (projects aside, written in name order): calls in row order (what `sort_by: []` returns), tables and
 * objects in creation order, and an object whose latest version is not its newest is created
 * again in the order its versions were last made latest.
 */
import type { FieldPrefix } from '../api/types.ts';
import { formatMicros } from '../core/datetime.ts';
import { stringifyExact } from '../core/json/exact.ts';
import type { FixtureKind as Kind } from '../io/load-fixtures.ts';
import { BODY_PARTS, type CallEndPart, type CallTable } from '../store/call-table.ts';
import type { ObjectVersion } from '../store/project.ts';
import type { Store } from '../store/store.ts';
import type { JournalRecord } from './record.ts';
import { OperationalError } from '../core/operational-errors.ts';

/** The user that synthetic journal records of a dump run as. */
const DUMP_USER = 'tq-dump';
const PREFIX: FieldPrefix = 'svc_';

export class SnapshotError extends OperationalError<'TQ_DUMP'> {
  constructor(reason: string) {
    super('TQ_DUMP', { reason });
  }
}

const time = (us: number) => (Number.isNaN(us) ? null : formatMicros(us));

function callLine(projectId: string, calls: CallTable, row: number): string {
  const head = JSON.stringify({
    id: calls.id(row),
    project_id: projectId,
    op_name: calls.opName(row),
    display_name: calls.displayNames.get(row),
    trace_id: calls.traceId(row),
    parent_id: calls.parentId(row),
    thread_id: calls.threadId(row),
    turn_id: calls.turnId(row),
    started_at: time(calls.startedAt.data[row]),
    ended_at: time(calls.endedAt.data[row]),
    exception: calls.exceptions.get(row),
    svc_user_id: calls.userId(row),
    svc_run_id: calls.runIds.get(row),
    svc_run_step: calls.runStep.get(row),
    svc_run_step_end: calls.runStepEnd.get(row),
    deleted_at: time(calls.deletedAt.data[row]),
  });
  // The JSON parts are spliced in as stored, so every number keeps its digits.
  const parts = BODY_PARTS.map((part) => `,"${part}":${calls.bodyPartText(row, part) ?? 'null'}`).join('');
  return `${head.slice(0, -1)}${parts}}`;
}

function pendingEndRecord(projectId: string, end: CallEndPart): JournalRecord {
  const head = stringifyExact({
    project_id: projectId,
    id: end.id,
    ended_at: formatMicros(end.ended_at),
    exception: end.exception,
    svc_run_step_end: end.run_step_end,
  });
  // Output and summary as the end stored them, so their number spellings survive the dump.
  const output = end.texts?.output ?? stringifyExact(end.output ?? null);
  const summary = end.texts?.summary ?? stringifyExact(end.summary);
  const text = `{"end":${head.slice(0, -1)},"output":${output},"summary":${summary}}}`;
  return { route: '/call/end', params: {}, user: DUMP_USER, prefix: PREFIX, body: { kind: 'text', text }, now: [], ids: [], canRead: [] };
}

function objectDeleteRecord(v: ObjectVersion, deletedAtUs: number): JournalRecord {
  const body = JSON.stringify({ project_id: v.projectId, object_id: v.objectId, digests: [v.digest] });
  return { route: '/obj/delete', params: {}, user: DUMP_USER, prefix: PREFIX, body: { kind: 'text', text: body }, now: [deletedAtUs], ids: [], canRead: [] };
}

function objectLine(v: ObjectVersion): string {
  const user = 'userId' in v ? (v as { userId: string | null }).userId : null;
  // `val` is spliced in as stored text, so its number spellings stay exact.
  const head = JSON.stringify({ project_id: v.projectId, object_id: v.objectId, created_at: formatMicros(v.createdAtUs), svc_user_id: user });
  return `${head.slice(0, -1)},"val":${v.valText}}`;
}

/** Object versions in creation order, then again those made latest since, in that order. */
function objectLines(versions: readonly ObjectVersion[]): string[] {
  const created = [...versions].sort((a, b) => a.versionIndex - b.versionIndex);
  // Loading numbers versions 0, 1, 2…; a gap (a deleted version written again) would not survive.
  const gap = created.find((v, i) => v.versionIndex !== i);
  if (gap) throw new SnapshotError(`${gap.projectId} object ${gap.objectId} has version index ${gap.versionIndex} where fixture files would give it another; fixture files cannot hold it`);
  const lines = created.map(objectLine);
  // A loop, not push(...): an object may have more versions than a call takes arguments.
  if (created.some((v, i) => v !== versions[i])) for (const v of versions) lines.push(objectLine(v));
  return lines;
}

export interface Snapshot {
  lines: Record<Kind, string[]>;
  /** Records the fresh journal starts with. */
  records: JournalRecord[];
}

export function snapshot(store: Store): Snapshot {
  const lines: Record<Kind, string[]> = { calls: [], tables: [], objects: [], feedback: [], costs: [] };
  const records: JournalRecord[] = [];
  // Projects in name order: a reload creates them in file order, and no answer depends on it.
  for (const projectId of [...store.projects.keys()].sort()) {
    const p = store.projects.get(projectId)!;
    for (let row = 0; row < p.calls.size; row++) lines.calls.push(callLine(projectId, p.calls, row));
    for (const end of p.calls.pendingEndParts()) records.push(pendingEndRecord(projectId, end));
    for (const [digest, rowDigests] of p.tables) {
      const rows = rowDigests.map((d) => p.rows.get(d)!.text).join(',');
      lines.tables.push(`{"project_id":${JSON.stringify(projectId)},"digest":${JSON.stringify(digest)},"rows":[${rows}]}`);
    }
    for (const versions of p.objects.values()) {
      for (const line of objectLines(versions)) lines.objects.push(line);
      // Fixture files cannot mark a version deleted: the version is written as created, and
      // the fresh journal starts with its deletion, replayed at the time it was deleted.
      for (const v of versions) if (v.deletedAtUs !== null) records.push(objectDeleteRecord(v, v.deletedAtUs));
    }
    for (const f of p.feedback) {
      lines.feedback.push(
        stringifyExact({
          id: f.id,
          project_id: f.project_id,
          weave_ref: f.weave_ref,
          feedback_type: f.feedback_type,
          payload: f.payload,
          creator: f.creator,
          created_at: formatMicros(f.created_at),
          svc_user_id: f.user_id,
          annotation_ref: f.annotation_ref,
          runnable_ref: f.runnable_ref,
          call_ref: f.call_ref,
          trigger_ref: f.trigger_ref,
        }),
      );
    }
    for (const [, bytes] of p.files) {
      records.push({
        route: '/file/create',
        params: {},
        user: DUMP_USER,
        prefix: PREFIX,
        body: { kind: 'multipart', fields: new Map([['project_id', projectId]]), files: new Map([['file', bytes]]) },
        now: [],
        ids: [],
        canRead: [],
      });
    }
  }
  for (const price of store.prices) {
    const level = price.pricing_level === 'default' ? { pricing_level: 'default' } : { project_id: price.pricing_level_id };
    lines.costs.push(
      JSON.stringify({
        id: price.id,
        ...level,
        created_at: formatMicros(price.created_at),
        svc_user_id: price.created_by,
        costs: {
          [price.llm_id]: {
            prompt_token_cost: price.prompt_token_cost,
            completion_token_cost: price.completion_token_cost,
            prompt_token_cost_unit: price.prompt_token_cost_unit,
            completion_token_cost_unit: price.completion_token_cost_unit,
            effective_date: formatMicros(price.effective_date),
            provider_id: price.provider_id,
            cache_read_input_token_cost: price.cache_read_input_token_cost,
            cache_creation_input_token_cost: price.cache_creation_input_token_cost,
          },
        },
      }),
    );
  }
  return { lines, records };
}
