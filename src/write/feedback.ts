/**
 * `feedback_create` (semantics.md#writes-feedback, Weave's `validate_feedback_create_req`):
 * reserved feedback types get their payload checked, refs must fit the feedback type, and the
 * row is stored with a generated id unless the client sent one. The user is the one the
 * client named or, when it named none, the authenticated user (semantics.md#writes-user-id).
 *
 * A `wandb.reaction.1` payload gets `alias`, `detoned` and `detoned_alias` as Weave's
 * `process_feedback_payload` adds them, from Python's `emoji` data (semantics.md#feedback-reactions).
 *
 * Not reproduced: the annotation-spec check of annotation payloads.
 */
import type { Engine } from '../api/types.ts';
import { formatMicros } from '../core/datetime.ts';
import { invalidRequest, type TqError, type ValidationIssue } from '../core/errors.ts';
import { INVALID, model, str, type Schema } from '../core/schema.ts';
import { parseRef, type ParsedRef } from '../core/refs.ts';
import type { FeedbackRow } from '../store/project.ts';
import { demojize, detoneEmojis, emojiCount } from './emoji/emoji.ts';

export interface FeedbackInput {
  id?: string | null;
  project_id: string;
  weave_ref: string;
  creator?: string | null;
  feedback_type: string;
  payload: Record<string, unknown>;
  annotation_ref?: string | null;
  runnable_ref?: string | null;
  call_ref?: string | null;
  trigger_ref?: string | null;
  user_id?: string | null;
  /** Creation time in µs (fixtures); the engine clock when absent. */
  created_at?: number;
}

const REACTION = 'wandb.reaction.1';
const NOTE = 'wandb.note.1';
const ANNOTATION = 'wandb.annotation';
const RUNNABLE = 'wandb.runnable';
const MAX_NOTE_LENGTH = 1024;

/**
 * A check of `validate_feedback_create_req` refused the request: a 400 (TQ_INVALID_REQUEST) with
 * this reason. Kept as data until the route answers, because a split route (prepared-feedback.ts)
 * checks in a worker thread and refuses only after authorizing, as the synchronous path did.
 */
export class FeedbackRefused extends Error {
  constructor(readonly reason: string) {
    super(reason);
  }
  error(): TqError {
    return invalidRequest('TQ_INVALID_REQUEST', { reason: this.reason });
  }
}

const bad = (reason: string) => new FeedbackRefused(reason);

/**
 * Production refuses a feedback payload whose `json.dumps` is over 1 MiB. Every UTF-16 unit of a
 * string dumps to at least one character, so a longer emoji text is refused before it is
 * scanned (semantics.md#feedback-reactions).
 */
const MAX_FEEDBACK_PAYLOAD_CHARS = 1024 * 1024;

/** The payload models of the two reserved types (`FEEDBACK_PAYLOAD_SCHEMAS`); other keys are kept. */
const reactionPayload = model('ReactionPayload', { emoji: str() }, { strict: false });
const notePayload = model('NotePayload', { note: str({ minLength: 1, maxLength: MAX_NOTE_LENGTH }) }, { strict: false });

/** The payload as its model reads it; a 400 naming the first issue when it does not fit. */
function validPayload<T>(schema: Schema<T>, type: string, payload: Record<string, unknown>): T {
  const issues: ValidationIssue[] = [];
  const r = schema.check(payload, [], issues);
  if (r === INVALID) throw bad(`Invalid payload for feedback_type ${type}: ${issues[0].loc.join('.')}: ${issues[0].msg}`);
  return r;
}

/** The payload checks of the two reserved types. */
function checkReservedPayload(type: string, payload: Record<string, unknown>): void {
  if (type === REACTION) validPayload(reactionPayload, type, payload);
  else if (type === NOTE) validPayload(notePayload, type, payload);
}

/**
 * `process_feedback_payload`: a reaction must hold exactly one emoji (other text may surround
 * it) and gains `alias` (its `:name:`), `detoned` (skin tones removed) and `detoned_alias`.
 * Other payloads are stored as sent.
 */
function processedPayload(type: string, payload: Record<string, unknown>): Record<string, unknown> {
  if (type !== REACTION) return payload;
  const emoji = payload.emoji as string;
  if (emoji.length > MAX_FEEDBACK_PAYLOAD_CHARS) throw bad('Feedback payload too large');
  if (emojiCount(emoji) !== 1) throw bad('Value of emoji key in payload must be exactly one emoji');
  const detoned = detoneEmojis(emoji);
  const processed: Record<string, unknown> = { ...payload };
  processed.alias = demojize(emoji);
  processed.detoned = detoned;
  processed.detoned_alias = demojize(detoned);
  return processed;
}

/** `ensure_ref_is_valid`: the ref parses and is one of the expected kinds. */
function validRef(ref: string, kinds: readonly string[]): ParsedRef {
  const parsed = parseRef(ref);
  if (parsed === null) throw bad(`Invalid ref: ${ref}`);
  if (!kinds.includes(parsed.kind)) throw bad(`Invalid ref: ${ref}, expected a ${kinds.join(' or ')} ref`);
  return parsed;
}

/** The ref rules of `validate_feedback_create_req`, in Weave's order. */
function checkRefs(req: FeedbackInput): void {
  const type = req.feedback_type;
  if (type.startsWith(ANNOTATION)) {
    if (!type.startsWith(ANNOTATION + '.')) throw bad(`Invalid annotation feedback type: ${type}`);
    const name = type.slice(ANNOTATION.length + 1);
    if (!req.annotation_ref) throw bad('annotation_ref is required for annotation feedback');
    if (validRef(req.annotation_ref, ['object']).name !== name) throw bad(`annotation_ref must point to an object with name ${name}`);
    if (!('value' in req.payload)) throw bad(`Invalid payload for feedback_type ${type}: value: Field required`);
  } else if (req.annotation_ref) {
    throw bad('annotation_ref is not allowed for non-annotation feedback');
  } else if (type.startsWith(RUNNABLE)) {
    if (!type.startsWith(RUNNABLE + '.')) throw bad(`Invalid runnable feedback type: ${type}`);
    const name = type.slice(RUNNABLE.length + 1);
    if (!req.runnable_ref) throw bad('runnable_ref is required for runnable feedback');
    const runnable = validRef(req.runnable_ref, ['op', 'object']);
    if (runnable.name !== name) throw bad(`runnable_ref must point to an object with name ${name}`);
    if (runnable.kind === 'op' && !req.call_ref) throw bad('call_ref is required for runnable feedback on ops');
    if (!('output' in req.payload)) throw bad(`Invalid payload for feedback_type ${type}: output: Field required`);
  } else if (req.runnable_ref) {
    throw bad('runnable_ref is not allowed for non-runnable feedback');
  } else if (req.call_ref) {
    throw bad('call_ref is not allowed for non-runnable feedback');
  } else if (req.trigger_ref) {
    throw bad('trigger_ref is not allowed for non-runnable feedback');
  }
  if (req.annotation_ref) {
    const parsed = validRef(req.annotation_ref, ['object']);
    if (parsed.projectId !== req.project_id) throw bad(`Annotation ref ${req.annotation_ref} does not match project id ${req.project_id}`);
  }
  if (req.runnable_ref) validRef(req.runnable_ref, ['op', 'object']);
  if (req.call_ref) validRef(req.call_ref, ['call']);
  if (req.trigger_ref) validRef(req.trigger_ref, ['object']);
}

/**
 * The payload stored for a request (processed as `process_feedback_payload` does), once every
 * check of `validate_feedback_create_req` has passed; or why a check refuses it. Reads no store.
 */
export function checkedFeedbackPayload(req: FeedbackInput): Record<string, unknown> | FeedbackRefused {
  try {
    checkReservedPayload(req.feedback_type, req.payload);
    checkRefs(req);
    return processedPayload(req.feedback_type, req.payload);
  } catch (e) {
    if (e instanceof FeedbackRefused) return e;
    throw e;
  }
}

/** `feedback_create`: `{id, created_at, <prefix>user_id, payload}`. */
export function createFeedback(engine: Engine, req: FeedbackInput, userId: string): Record<string, unknown> {
  const payload = checkedFeedbackPayload(req);
  if (payload instanceof FeedbackRefused) throw payload.error();
  const user = req.user_id ?? userId;
  if (!user) throw invalidRequest('TQ_MISSING_USER_ID');
  const row: FeedbackRow = {
    id: req.id ?? engine.options.newId(),
    project_id: req.project_id,
    weave_ref: req.weave_ref,
    feedback_type: req.feedback_type,
    payload,
    creator: req.creator ?? null,
    created_at: req.created_at ?? engine.options.now(),
    user_id: user,
    annotation_ref: req.annotation_ref ?? null,
    runnable_ref: req.runnable_ref ?? null,
    call_ref: req.call_ref ?? null,
    trigger_ref: req.trigger_ref ?? null,
  };
  engine.store.projectForWrite(req.project_id).addFeedback(row);
  return { id: row.id, created_at: formatMicros(row.created_at), [`${engine.options.fieldPrefix}user_id`]: user, payload: row.payload };
}
