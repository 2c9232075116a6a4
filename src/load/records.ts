/**
 * Loading one fixture record of tables.jsonl, objects.jsonl, feedback.jsonl or costs.jsonl.
 * Each goes through the same engine function as the matching write endpoint, so a fixture
 * holds exactly what a client could have written (same digests, versions, defaults). Every
 * problem is a RecordProblem naming the field; the file reader adds `file:line`.
 *
 * Record shapes (the user field is spelled with the engine's prefix, e.g. `svc_user_id`):
 *   tables:   {project_id, rows: [{...}, ...], digest?}
 *   objects:  {project_id, object_id, val, created_at?, svc_user_id?}
 *   feedback: {project_id, weave_ref, feedback_type, payload, svc_user_id, id?, creator?,
 *              created_at?, annotation_ref?, runnable_ref?, call_ref?, trigger_ref?}
 *   costs:    {project_id, costs: {<llm_id>: {prompt_token_cost, completion_token_cost,
 *              prompt_token_cost_unit?, completion_token_cost_unit?, effective_date?,
 *              provider_id?, cache_read_input_token_cost?, cache_creation_input_token_cost?}},
 *              created_at?, svc_user_id?, id?}  (id: the price row's id; one model only)
 *             or, for default prices that apply to every project (no project_id):
 *             {pricing_level: "default", costs: {...}, created_at?, svc_user_id?}
 */
import type { Engine } from '../api/types.ts';
import { parseIsoMicros } from '../core/datetime.ts';
import { rowDigest, tableDigest } from '../core/digest.ts';
import { TqError } from '../core/errors.ts';
import { exactPlain } from '../core/json/exact.ts';
import { defineOwn, JsonSyntaxError, LosslessObject, parseLossless, type LosslessValue } from '../core/json/lossless.ts';
import { createCosts, type CostInput } from '../write/costs.ts';
import { createFeedback } from '../write/feedback.ts';
import { createObject } from '../write/objects.ts';
import { createTable } from '../write/tables.ts';
import { adoptFieldPrefix, optionalString, projectIdOf, RecordProblem, requireString } from './calls/call-record.ts';
import { isPlainObject } from '../core/plain-object.ts';

type Obj = Record<string, unknown>;


/** Parses a line losslessly; the record must be a JSON object with only the allowed keys. */
function parseRecord(text: string, kind: string, allowed: readonly string[], prefix: string): { lossless: LosslessObject; plain: Obj } {
  let lossless: LosslessValue;
  try {
    lossless = parseLossless(text);
  } catch (e) {
    if (e instanceof JsonSyntaxError) throw new RecordProblem(`invalid JSON: ${e.message}`);
    throw e;
  }
  if (!(lossless instanceof LosslessObject)) throw new RecordProblem(`a ${kind} record must be a JSON object`);
  const plain = exactPlain(lossless) as Obj; // big integers keep their digits
  adoptFieldPrefix(plain, prefix);
  for (const key of Object.keys(plain)) {
    if (!allowed.includes(key)) throw new RecordProblem(`unknown field ${key} in a ${kind} record (allowed: ${allowed.join(', ')})`);
  }
  return { lossless, plain };
}

function optionalDatetime(rec: Obj, key: string): number | undefined {
  const v = rec[key];
  if (v === undefined || v === null) return undefined;
  const us = typeof v === 'string' ? parseIsoMicros(v) : NaN;
  if (Number.isNaN(us)) throw new RecordProblem(`${key} must be an ISO 8601 date-time, got ${JSON.stringify(v)}`);
  return us;
}

function requireNumber(rec: Obj, key: string, where: string): number {
  const v = rec[key];
  if (v === undefined || v === null) throw new RecordProblem(`missing ${where}${key}`);
  if (typeof v !== 'number' || !Number.isFinite(v)) throw new RecordProblem(`${where}${key} must be a number`);
  return v;
}

function optionalNumber(rec: Obj, key: string, where: string): number | undefined {
  return rec[key] === undefined || rec[key] === null ? undefined : requireNumber(rec, key, where);
}

/** Runs an engine write; its request errors become record problems. */
function write<T>(f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (e instanceof TqError) throw new RecordProblem(e.message);
    throw e;
  }
}

/**
 * A table: its rows (JSON objects) are stored and the table digest computed as `/table/create`
 * does; a `digest` given in the record must equal the computed one.
 */
export function loadTableRecord(engine: Engine, text: string, progress?: (share: number) => void): { digest: string } {
  const { lossless, plain } = parseRecord(text, 'table', ['project_id', 'rows', 'digest'], engine.options.fieldPrefix);
  const projectId = projectIdOf(plain);
  const rows = lossless.get('rows');
  if (rows === undefined || rows === null) throw new RecordProblem('missing rows');
  if (!Array.isArray(rows)) throw new RecordProblem('rows must be a list of JSON objects');
  rows.forEach((row, i) => {
    if (!(row instanceof LosslessObject)) throw new RecordProblem(`rows[${i}] must be a JSON object`);
  });
  const given = optionalString(plain, 'digest');
  try {
    // The expected digest is checked before anything is stored.
    return { digest: createTable(engine, projectId, rows as LosslessObject[], given, progress).digest };
  } catch (e) {
    if (e instanceof TqError && e.code === 'TQ_EXPECTED_DIGEST_MISMATCH') {
      const actual = tableDigest((rows as LosslessObject[]).map((row) => rowDigest(row)));
      throw new RecordProblem(`table digest mismatch: the record says ${given}, its rows digest to ${actual}`);
    }
    throw e;
  }
}

/** An object version, created as `/obj/create` creates it (same digest, version index, latest). */
export function loadObjectRecord(engine: Engine, text: string): { digest: string } {
  const userKey = `${engine.options.fieldPrefix}user_id`;
  const { lossless, plain } = parseRecord(text, 'object', ['project_id', 'object_id', 'val', 'created_at', userKey], engine.options.fieldPrefix);
  const projectId = projectIdOf(plain);
  const objectId = requireString(plain, 'object_id');
  const val = lossless.get('val');
  if (val === undefined) throw new RecordProblem('missing val');
  const createdAtUs = optionalDatetime(plain, 'created_at');
  const userId = optionalString(plain, userKey);
  return write(() => createObject(engine, { projectId, objectId, val, userId, createdAtUs }));
}

const FEEDBACK_REFS = ['annotation_ref', 'runnable_ref', 'call_ref', 'trigger_ref'] as const;

/** A feedback row, checked as `/feedback/create` checks it; its user field is required. */
export function loadFeedbackRecord(engine: Engine, text: string): { id: string } {
  const userKey = `${engine.options.fieldPrefix}user_id`;
  const { plain } = parseRecord(text, 'feedback', [
    'project_id',
    'weave_ref',
    'feedback_type',
    'payload',
    userKey,
    'id',
    'creator',
    'created_at',
    ...FEEDBACK_REFS,
  ], engine.options.fieldPrefix);
  const projectId = projectIdOf(plain);
  const payload = plain.payload;
  if (payload === undefined || payload === null) throw new RecordProblem('missing payload');
  if (!isPlainObject(payload)) throw new RecordProblem('payload must be a JSON object');
  const userId = requireString(plain, userKey);
  const input = {
    project_id: projectId,
    weave_ref: requireString(plain, 'weave_ref'),
    feedback_type: requireString(plain, 'feedback_type'),
    payload,
    id: optionalString(plain, 'id'),
    creator: optionalString(plain, 'creator'),
    user_id: userId,
    created_at: optionalDatetime(plain, 'created_at'),
    ...Object.fromEntries(FEEDBACK_REFS.map((k) => [k, optionalString(plain, k)])),
  };
  for (const [k, v] of Object.entries(input)) if (typeof v === 'string') (input as Record<string, unknown>)[k] = detached(v);
  const res = write(() => createFeedback(engine, input, userId));
  return { id: res.id as string };
}

/**
 * A copy of `s` that does not share the record's text. The parser's strings are slices of
 * the whole line, so one kept id held its ~300-byte line alive (15 bytes per call in the
 * bench's heap, at one feedback row per 20 calls).
 */
function detached(s: string): string {
  return JSON.parse(JSON.stringify(s)) as string;
}

const COST_FIELDS = [
  'prompt_token_cost',
  'completion_token_cost',
  'prompt_token_cost_unit',
  'completion_token_cost_unit',
  'effective_date',
  'provider_id',
  'cache_read_input_token_cost',
  'cache_creation_input_token_cost',
];

/** Project-level LLM prices, added as `/cost/create` adds them. */
export function loadCostRecord(engine: Engine, text: string): { ids: Array<[string, string]> } {
  const userKey = `${engine.options.fieldPrefix}user_id`;
  const { plain } = parseRecord(text, 'cost', ['project_id', 'pricing_level', 'costs', 'created_at', userKey, 'id'], engine.options.fieldPrefix);
  const level = plain.pricing_level ?? 'project';
  if (level !== 'project' && level !== 'default') throw new RecordProblem(`pricing_level must be "project" or "default", got ${JSON.stringify(level)}`);
  if (level === 'default' && plain.project_id !== undefined) throw new RecordProblem('a default-level price record has no project_id');
  const projectId = level === 'default' ? 'default' : projectIdOf(plain);
  const costs = plain.costs;
  if (costs === undefined || costs === null) throw new RecordProblem('missing costs');
  if (!isPlainObject(costs)) throw new RecordProblem('costs must be a JSON object of model id → prices');
  const inputs: Record<string, CostInput> = {};
  for (const [llmId, c] of Object.entries(costs)) {
    const where = `costs.${llmId}.`;
    if (!isPlainObject(c)) throw new RecordProblem(`${where.slice(0, -1)} must be a JSON object`);
    for (const key of Object.keys(c)) if (!COST_FIELDS.includes(key)) throw new RecordProblem(`unknown field ${where}${key}`);
    defineOwn(inputs, llmId, {
      prompt_token_cost: requireNumber(c, 'prompt_token_cost', where),
      completion_token_cost: requireNumber(c, 'completion_token_cost', where),
      prompt_token_cost_unit: prefixed(() => optionalString(c, 'prompt_token_cost_unit'), where),
      completion_token_cost_unit: prefixed(() => optionalString(c, 'completion_token_cost_unit'), where),
      effective_date: prefixed(() => optionalDatetime(c, 'effective_date'), where),
      provider_id: prefixed(() => optionalString(c, 'provider_id'), where),
      cache_read_input_token_cost: optionalNumber(c, 'cache_read_input_token_cost', where),
      cache_creation_input_token_cost: optionalNumber(c, 'cache_creation_input_token_cost', where),
    });
  }
  const userId = optionalString(plain, userKey) ?? '';
  const createdAt = optionalDatetime(plain, 'created_at');
  // A given price id (what `tq dump` writes) names the record's one price row.
  const id = optionalString(plain, 'id');
  if (id !== null && Object.keys(inputs).length !== 1) throw new RecordProblem('a cost record with an id holds exactly one model price');
  const target = id === null ? engine : { ...engine, options: { ...engine.options, newId: () => id } };
  return createCosts(target, projectId, inputs, userId, createdAt ?? engine.options.now(), level);
}

/** Runs a field check whose problem should name the field's full path. */
function prefixed<T>(f: () => T, where: string): T {
  try {
    return f();
  } catch (e) {
    if (e instanceof RecordProblem) throw new RecordProblem(`${where}${e.message}`);
    throw e;
  }
}
