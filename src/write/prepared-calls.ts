/**
 * Call writes in two halves (issue 22 §4), for the split call routes (`/call/start`, `/call/end`,
 * `/call/upsert_batch`, `/v2/…/call/start`, `/v2/…/call/end`, `/v2/…/calls/complete`):
 *
 * - `prepareCallWrites` (Route.prepare, off the event loop for a large body) turns the validated
 *   parts into what the CallTable stores, from the body alone: each part's stored JSON texts
 *   (semantics.md#writes-number-spelling) and what its columns derive from its values (the refs
 *   in inputs and output, the summary's error count). The call table keeps texts, not values,
 *   so nothing else is needed; it comes back as one JSON text of the parts' fields and one
 *   packed string of their texts, which the event loop reads back in milliseconds (a structured
 *   clone of 30,000 part objects costs more than the parse it saves).
 * - `storeCallWrites` (Route.runPrepared, one turn of the event loop) draws the missing ids in
 *   part order, then applies every part in order: nothing is drawn or derived while applying.
 *
 * Every front end runs both halves (define-route.ts builds `run` from them), so the answers and
 * the stored rows are the same whichever thread ran the first.
 */
import type { Engine } from '../api/types.ts';
import { stringifyExact } from '../core/json/exact.ts';
import { extractRefs } from '../core/refs.ts';
import { errorCount, wrapOutput, type CallEndPart, type CallStartPart } from '../store/call-parts.ts';
import { packStrings, unpackStrings, type PackedStrings } from '../api/packed-strings.ts';
import type { CallEndInput, CallStartInput, CallStartResult, PartText } from './calls.ts';

/** A start or an end to store, in order; an end with `sameIdAsStart` takes the id of the start before it. */
export type CallWrite = { start: CallStartInput } | { end: CallEndInput } | { end: Omit<CallEndInput, 'id'>; sameIdAsStart: true };

/** The prepared parts: their fields as one JSON text (see Head), their texts packed. */
export interface PreparedCallWrites {
  head: string;
  texts: PackedStrings;
}

type Maybe<T> = T | null;
/** A start's fields: project, id, op, display name, trace, parent, thread, turn, started_at, user, run id, run step, input refs. */
type StartHead = ['s', string, Maybe<string>, string, Maybe<string>, Maybe<string>, Maybe<string>, Maybe<string>, Maybe<string>, number, Maybe<string>, Maybe<string>, Maybe<number>, string[]];
/** An end's fields: project, id (null: the start's before it), ended_at, exception, run step, output refs, error count. */
type EndHead = ['e', string, Maybe<string>, number, Maybe<string>, Maybe<number>, string[], number | string];

/** JSON has no NaN or Infinity: an error count that is not finite travels as its string. */
const countOut = (n: number): number | string => (Number.isFinite(n) ? n : String(n));
const countIn = (n: number | string): number => (typeof n === 'string' ? Number(n) : n);

/**
 * The stored texts and derived columns of each write, from the validated request alone (no
 * store, no clock, no id). `partText`: the route's stored-text writer; without it a part is
 * stored as the JSON of its value, as the CallTable would write it.
 */
export function prepareCallWrites(writes: readonly CallWrite[], partText?: PartText): PreparedCallWrites {
  const text = partText ?? stringifyExact;
  const heads: Array<StartHead | EndHead> = [];
  const texts: string[] = [];
  for (const w of writes) {
    if ('start' in w) {
      const s = w.start;
      heads.push(['s', s.project_id, s.id ?? null, s.op_name, s.display_name ?? null, s.trace_id ?? null, s.parent_id ?? null, s.thread_id ?? null, s.turn_id ?? null, s.started_at, s.user_id ?? null, s.run_id ?? null, s.run_step ?? null, extractRefs(s.inputs)]);
      texts.push(text(s.attributes), text(s.inputs));
    } else {
      const e = w.end;
      const output = e.output ?? null;
      heads.push(['e', e.project_id, 'sameIdAsStart' in w ? null : (e as CallEndInput).id, e.ended_at, e.exception ?? null, e.run_step_end ?? null, extractRefs(wrapOutput(output)), countOut(errorCount(e.summary))]);
      texts.push(text(output), text(e.summary));
    }
  }
  return { head: JSON.stringify(heads), texts: packStrings(texts) };
}

/**
 * A part rebuilt from its stored texts: the CallTable reads its texts and derived columns, so its
 * values are parsed from the texts only if something asks for them (nothing on the write path).
 */
class StoredStartPart implements CallStartPart {
  constructor(
    readonly id: string,
    readonly op_name: string,
    readonly display_name: string | null,
    readonly trace_id: string,
    readonly parent_id: string | null,
    readonly thread_id: string | null,
    readonly turn_id: string | null,
    readonly started_at: number,
    readonly user_id: string | null,
    readonly run_id: string | null,
    readonly run_step: number | null,
    readonly texts: { attributes: string; inputs: string },
    readonly inputRefs: string[],
  ) {}
  get attributes(): Record<string, unknown> {
    return JSON.parse(this.texts.attributes) as Record<string, unknown>;
  }
  get inputs(): Record<string, unknown> {
    return JSON.parse(this.texts.inputs) as Record<string, unknown>;
  }
}

class StoredEndPart implements CallEndPart {
  constructor(
    readonly id: string,
    readonly ended_at: number,
    readonly exception: string | null,
    readonly run_step_end: number | null,
    readonly texts: { output: string; summary: string },
    readonly outputRefs: string[],
    readonly errorCount: number,
  ) {}
  get output(): unknown {
    return JSON.parse(this.texts.output) as unknown;
  }
  get summary(): Record<string, unknown> {
    return JSON.parse(this.texts.summary) as Record<string, unknown>;
  }
}

/** The projects the writes name, each once, in the order they first appear. */
export function projectsOfCallWrites(writes: readonly CallWrite[]): string[] {
  return [...new Set(writes.map((w) => ('start' in w ? w.start.project_id : w.end.project_id)))];
}

/**
 * Stores prepared writes: missing ids drawn first (each start's id, then its trace id, in part
 * order), then every part applied in order (semantics.md#writes-upsert-batch). One result per
 * write: `{id, trace_id}` for a start, `{}` for an end. `opName`, when given, gives each start's
 * stored op name from its project and prepared one (the OTLP export prepares the name its op
 * ref is made of: the ref depends on the store).
 */
export function storeCallWrites(engine: Engine, prepared: PreparedCallWrites, userId: string, opName?: (projectId: string, prepared: string) => string): Array<CallStartResult | Record<string, never>> {
  const heads = JSON.parse(prepared.head) as Array<StartHead | EndHead>;
  const texts = unpackStrings(prepared.texts);
  const parts: Array<{ projectId: string; start?: CallStartPart; end?: CallEndPart }> = new Array(heads.length);
  let lastStartId = '';
  for (let i = 0; i < heads.length; i++) {
    const h = heads[i];
    if (h[0] === 's') {
      const id = h[2] ?? engine.options.newId();
      const traceId = h[5] ?? engine.options.newId();
      lastStartId = id;
      const start = new StoredStartPart(id, opName === undefined ? h[3] : opName(h[1], h[3]), h[4], traceId, h[6], h[7], h[8], h[9], h[10] ?? userId, h[11], h[12], { attributes: texts[2 * i], inputs: texts[2 * i + 1] }, h[13]);
      parts[i] = { projectId: h[1], start };
    } else {
      const end = new StoredEndPart(h[2] ?? lastStartId, h[3], h[4], h[5], { output: texts[2 * i], summary: texts[2 * i + 1] }, h[6], countIn(h[7]));
      parts[i] = { projectId: h[1], end };
    }
  }
  const results = new Array<CallStartResult | Record<string, never>>(parts.length);
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i];
    const calls = engine.store.projectForWrite(p.projectId).calls;
    if (p.start === undefined) {
      calls.end(p.end!);
      results[i] = {};
      continue;
    }
    const next = parts[i + 1];
    if (next?.end !== undefined && next.end.id === p.start.id && next.projectId === p.projectId) {
      // A start followed by its own end (a whole call): stored in one go.
      calls.startEnded(p.start, next.end);
      results[i] = { id: p.start.id, trace_id: p.start.trace_id };
      results[++i] = {};
      continue;
    }
    calls.start(p.start);
    results[i] = { id: p.start.id, trace_id: p.start.trace_id };
  }
  return results;
}
