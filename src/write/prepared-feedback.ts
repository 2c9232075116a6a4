/**
 * Feedback writes in two halves (issue 22 §4), for the split routes `/feedback/create` and
 * `/feedback/batch/create`:
 *
 * - `deriveFeedback` (Route.prepare, off the event loop for a large body) makes every check of
 *   `validate_feedback_create_req` (payload models, refs, a reaction's emoji: the costly part),
 *   processes the payloads, and writes them as JSON text: one array text that the native
 *   JSON.parse reads back, and, for a payload holding a number it would not give back as spelled
 *   (a float kept as `1.0`, an integer beyond 2^53, NaN or Infinity, -0:
 *   semantics.md#writes-number-spelling), that number's path and lexeme beside it. A refusal is
 *   kept as data: it is answered after authorization, as the synchronous path always did.
 * - `storeFeedback` (Route.runPrepared, one turn of the event loop) reads the texts back (one
 *   native parse), draws the missing ids and times in item order, and only then adds the rows:
 *   a write that fails changes nothing. Its answer text is built from the payloads' texts.
 *
 * Every front end runs both halves (define-route.ts builds `run` from them), so the answers and
 * the stored rows are the same whichever thread ran the first.
 */
import type { Engine, FieldPrefix, RouteResult } from '../api/types.ts';
import { formatMicros } from '../core/datetime.ts';
import { invalidRequest } from '../core/errors.ts';
import { stringifyExact } from '../core/json/exact.ts';
import { LosslessNumber } from '../core/json/lossless.ts';
import type { FeedbackRow } from '../store/project.ts';
import { checkedFeedbackPayload, FeedbackRefused, type FeedbackInput } from './feedback.ts';

type Maybe<T> = T | null;
/**
 * An item's fields: id, project, weave_ref, feedback_type, creator, user_id, annotation_ref,
 * runnable_ref, call_ref, trigger_ref, and where its payload's text ends in `payloads`.
 */
type FeedbackHead = [Maybe<string>, string, string, string, Maybe<string>, Maybe<string>, Maybe<string>, Maybe<string>, Maybe<string>, Maybe<string>, number];
/** A number of a payload that JSON.parse would not give back: its path in the payload and its lexeme (`-0`: the number -0). */
type SpelledNumber = [Array<string | number>, string];

/** What `deriveFeedback` hands the store step (structured-clone safe: four strings). */
export interface PreparedFeedback {
  /** JSON: a FeedbackHead per item (up to the refused one). */
  head: string;
  /** The processed payloads as one JSON array, the numbers listed in `spelled` written null. */
  payloads: string;
  /** JSON: `[item, exact text of its payload, SpelledNumber[]]` for each payload with such numbers. */
  spelled: string;
  /** The first item a check refuses and why (a 400 once the projects are authorized), or null. */
  refused: Maybe<[number, string]>;
}

/**
 * Collects (and writes null in place of) each number of `v` that JSON.parse of its JSON text
 * would not give back as the spelled value holds it. `v` is the request's own value, used once.
 * Recursion is bounded: the body's depth was checked before it was parsed.
 */
function takeSpelledNumbers(v: unknown, path: Array<string | number>, out: SpelledNumber[]): unknown {
  if (v instanceof LosslessNumber) {
    out.push([path.slice(), v.lexeme]);
    return null;
  }
  if (typeof v === 'number') {
    if (Object.is(v, -0)) out.push([path.slice(), '-0']);
    return v;
  }
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      path.push(i);
      v[i] = takeSpelledNumbers(v[i], path, out);
      path.pop();
    }
    return v;
  }
  const obj = v as Record<string, unknown>;
  for (const k of Object.keys(obj)) {
    path.push(k);
    const before = obj[k];
    const after = takeSpelledNumbers(before, path, out);
    // An own property, whatever its name (`__proto__` included: every key is data).
    if (after !== before) Object.defineProperty(obj, k, { value: after, writable: true, enumerable: true, configurable: true });
    path.pop();
  }
  return v;
}

/** The checks, processed payloads and texts of every item, from the validated request alone (no store, no clock, no id). */
export function deriveFeedback(items: readonly FeedbackInput[]): PreparedFeedback {
  const heads: FeedbackHead[] = [];
  const texts: string[] = [];
  const spelled: Array<[number, string, SpelledNumber[]]> = [];
  let refused: Maybe<[number, string]> = null;
  let end = 0;
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    const payload = checkedFeedbackPayload(item);
    if (payload instanceof FeedbackRefused) {
      refused = [i, payload.reason];
      // The items before it are still read: one of them may lack a user (that 400 comes first).
      break;
    }
    const exact = stringifyExact(payload);
    const numbers: SpelledNumber[] = [];
    takeSpelledNumbers(payload, [], numbers);
    const text = numbers.length === 0 ? exact : JSON.stringify(payload);
    if (numbers.length > 0) spelled.push([i, exact, numbers]);
    texts.push(text);
    // After the `[` or the `,` before it.
    end += 1 + text.length;
    heads.push([item.id ?? null, item.project_id, item.weave_ref, item.feedback_type, item.creator ?? null, item.user_id ?? null, item.annotation_ref ?? null, item.runnable_ref ?? null, item.call_ref ?? null, item.trigger_ref ?? null, end]);
  }
  if (refused !== null) return { head: JSON.stringify(heads), payloads: '[]', spelled: '[]', refused };
  return { head: JSON.stringify(heads), payloads: `[${texts.join(',')}]`, spelled: JSON.stringify(spelled), refused };
}

/** Puts each spelled number back at its path. */
function restoreSpelledNumbers(payload: unknown, numbers: readonly SpelledNumber[]): void {
  for (const [path, lexeme] of numbers) {
    let at = payload as Record<string | number, unknown>;
    for (let k = 0; k < path.length - 1; k++) at = at[path[k]] as Record<string | number, unknown>;
    const value = lexeme === '-0' ? -0 : new LosslessNumber(lexeme);
    Object.defineProperty(at, path[path.length - 1], { value, writable: true, enumerable: true, configurable: true });
  }
}

/**
 * A feedback row stored by a split route: its payload is read from its JSON text when first
 * asked for, so the store step parses no payload (JSON.parse of 32 MiB of payloads, and the
 * garbage it makes, held the event loop longer than everything else the step does).
 */
class PreparedFeedbackRow implements FeedbackRow {
  #payload: Record<string, unknown> | undefined = undefined;
  #text: string;
  #numbers: readonly SpelledNumber[] | undefined;

  constructor(
    readonly id: string,
    readonly project_id: string,
    readonly weave_ref: string,
    readonly feedback_type: string,
    readonly creator: string | null,
    readonly created_at: number,
    readonly user_id: string,
    readonly annotation_ref: string | null,
    readonly runnable_ref: string | null,
    readonly call_ref: string | null,
    readonly trigger_ref: string | null,
    text: string,
    numbers: readonly SpelledNumber[] | undefined,
  ) {
    this.#text = text;
    this.#numbers = numbers;
  }

  get payload(): Record<string, unknown> {
    if (this.#payload === undefined) {
      const payload = JSON.parse(this.#text) as Record<string, unknown>;
      if (this.#numbers !== undefined) restoreSpelledNumbers(payload, this.#numbers);
      this.#payload = payload;
      this.#text = '';
      this.#numbers = undefined;
    }
    return this.#payload;
  }
}


/**
 * Stores prepared feedback: the refusal or the missing user first (whichever item comes first,
 * as the synchronous path met them), then the missing ids and times drawn in item order (an
 * item's id, then its time), then every row added. `single`: the answer of `/feedback/create`
 * (one item's object) rather than the batch's `{res: [...]}`.
 */
export function storeFeedback(engine: Engine, prepared: PreparedFeedback, userId: string, single: boolean): RouteResult {
  const heads = JSON.parse(prepared.head) as FeedbackHead[];
  for (const h of heads) if (!(h[5] ?? userId)) throw invalidRequest('TQ_MISSING_USER_ID');
  if (prepared.refused !== null) throw new FeedbackRefused(prepared.refused[1]).error();
  const spelled = new Map<number, [string, SpelledNumber[]]>();
  for (const [item, exact, numbers] of JSON.parse(prepared.spelled) as Array<[number, string, SpelledNumber[]]>) spelled.set(item, [exact, numbers]);
  const { options } = engine;
  const userKey = `,${JSON.stringify(`${options.fieldPrefix}user_id`)}:`;
  const rows: FeedbackRow[] = [];
  // The answer's JSON text, `{id, created_at, <prefix>user_id, payload}` per item, the payload's
  // text as derived: one flat list of pieces joined once (a string per item costs half as much again).
  const pieces: string[] = single ? [] : ['{"res":['];
  let from = 1;
  for (let i = 0; i < heads.length; i++) {
    const h = heads[i];
    const text = prepared.payloads.slice(from, h[10]);
    from = h[10] + 1;
    const exact = spelled.get(i);
    const id = h[0] ?? options.newId();
    const row = new PreparedFeedbackRow(id, h[1], h[2], h[3], h[4], options.now(), (h[5] ?? userId)!, h[6], h[7], h[8], h[9], text, exact?.[1]);
    rows.push(row);
    pieces.push(i === 0 ? '{"id":' : ',{"id":', JSON.stringify(row.id), ',"created_at":', JSON.stringify(formatMicros(row.created_at)), userKey, JSON.stringify(row.user_id), ',"payload":', exact?.[0] ?? text, '}');
  }
  // Nothing above changed the store; from here nothing throws.
  for (const row of rows) engine.store.projectForWrite(row.project_id).addFeedback(row);
  if (!single) pieces.push(']}');
  const text = pieces.join('');
  // The answer's value, for a front end that reads it rather than the text (built when first read).
  let body: unknown;
  return {
    kind: 'json',
    text,
    get body() {
      body ??= single ? answerBody(rows[0], options.fieldPrefix) : { res: rows.map((row) => answerBody(row, options.fieldPrefix)) };
      return body;
    },
  };
}

const answerBody = (row: FeedbackRow, prefix: FieldPrefix): Record<string, unknown> => ({ id: row.id, created_at: formatMicros(row.created_at), [`${prefix}user_id`]: row.user_id, payload: row.payload });
