/**
 * Span → call, as production converts (docs/semantics.md#otel-ids to semantics.md#otel-wandb-keys; the rules there
 * name each step). Sources, wandb/weave `weave/trace_server/opentelemetry/`: `python_spans.py`
 * `Span.to_call` (the order of the steps below), `attributes.py` (`parse_weave_values` and the
 * `get_weave_*` readers), `constants.py` (the key tables), `helpers.py` (values, names) and
 * `trace_server_helpers.py` `process_otel_spans_to_calls` (rejections). tq's own code; where
 * production would crash on a value (a 500), tq takes the nearest sensible reading and says so
 * in semantics.md.
 */
import { createHash } from 'node:crypto';
import type { CallEndInput, CallStartInput } from '../write/calls.ts';
import type { KeyValue, Span } from './model.ts';
import { OtlpFormatError } from './model.ts';
import {
  AttributePathConflict,
  convertNumericKeysInPlace,
  getAttribute,
  isDict,
  newDict,
  pyLen,
  setKey,
  toJson,
  truthy,
  tryParseInt,
  unflattenKeyValues,
  type PyDict,
  type PyValue,
} from './values.ts';
import { parseIsoMicros } from '../core/datetime.ts';

type Handler = (v: PyValue) => PyValue;
type KeyList = ReadonlyArray<string | readonly [string, Handler]>;

/**
 * INPUT_KEYS / OUTPUT_KEYS: the first key present (and truthy) wins and names the single entry
 * of inputs / output. `traceloop.entity.inputinput` is production's own spelling: a missing
 * comma in its list joins `traceloop.entity.input` and `input` into one key (semantics.md#otel-inputs).
 */
const INPUT_KEYS: KeyList = ['ai.prompt', 'gen_ai.prompt', 'input.value', 'mlflow.spanInputs', 'traceloop.entity.inputinput'];
const OUTPUT_KEYS: KeyList = [
  'ai.response',
  'gen_ai.completion',
  'output.value',
  'mlflow.spanOutputs',
  'gen_ai.content.completion',
  'traceloop.entity.output',
  'output',
];

/**
 * USAGE_KEYS. Production's table names `completion_tokens` twice; Python keeps the second list
 * (at the first one's place), so `gen_ai.usage.output_tokens` is read by nothing
 * (semantics.md#otel-usage).
 */
const USAGE_KEYS: ReadonlyArray<readonly [string, KeyList]> = [
  ['input_tokens', [['gen_ai.usage.input_tokens', tryParseInt]]],
  [
    'completion_tokens',
    [
      ['gen_ai.usage.completion_tokens', tryParseInt],
      ['llm.token_count.completion', tryParseInt],
      ['ai.usage.completionTokens', tryParseInt],
    ],
  ],
  [
    'prompt_tokens',
    [
      ['gen_ai.usage.prompt_tokens', tryParseInt],
      ['llm.token_count.prompt', tryParseInt],
      ['ai.usage.promptTokens', tryParseInt],
    ],
  ],
  [
    'total_tokens',
    [
      ['llm.usage.total_tokens', tryParseInt],
      ['llm.token_count.total', tryParseInt],
    ],
  ],
];

/** ATTRIBUTE_KEYS: what becomes the call's attributes when any is present. */
const ATTRIBUTE_KEYS: ReadonlyArray<readonly [string, KeyList]> = [
  ['system', ['gen_ai.system', 'llm.system']],
  ['kind', ['weave.span.kind', 'traceloop.span.kind', 'openinference.span.kind']],
  ['model', ['gen_ai.response.model', 'llm.model_name', 'ai.model.id']],
  ['provider', ['llm.provider', 'ai.model.provider']],
  ['model_parameters', ['gen_ai.request', 'llm.invocation_parameters']],
];

/** WB_KEYS: Weave's own span attributes (display name, threads, runs, extra attributes). */
const WB_KEYS: ReadonlyArray<readonly [string, KeyList]> = [
  ['display_name', ['wandb.display_name']],
  ['thread_id', ['wandb.thread_id']],
  ['is_turn', ['wandb.is_turn']],
  ['wb_run_id', ['wandb.wb_run_id']],
  ['wb_run_step', [['wandb.wb_run_step', tryParseInt]]],
  ['wb_run_step_end', [['wandb.wb_run_step_end', tryParseInt]]],
  ['attributes', ['wandb.attributes']],
];

/** SPAN_OVERRIDES: Langfuse's real start and end times. */
const tryParseTimestamp: Handler = (v) => {
  if (typeof v === 'string') {
    const us = parseIsoMicros(v);
    return Number.isNaN(us) ? null : `${us}us`;
  }
  if (typeof v === 'bigint') return `${nanosToMicros(v)}us`;
  if (typeof v === 'number' && Number.isFinite(v)) return `${fromTimestampMicros(v)}us`;
  return null;
};
const SPAN_OVERRIDES: ReadonlyArray<readonly [string, KeyList]> = [
  ['start_time', [['langfuse.startTime', tryParseTimestamp]]],
  ['end_time', [['langfuse.endTime', tryParseTimestamp]]],
];

/** Weave's MAX_DISPLAY_NAME_LENGTH and MAX_OP_NAME_LENGTH (trace_server/constants.py). */
const MAX_DISPLAY_NAME_LENGTH = 1024;
const MAX_OP_NAME_LENGTH = 128;

/** The first key of `keys` whose attribute is truthy, with its value (after the key's handler). */
function firstTruthy(attributes: PyDict, keys: KeyList): { key: string; value: PyValue } | null {
  for (const entry of keys) {
    const [key, handler] = typeof entry === 'string' ? [entry, undefined] : entry;
    const value = getAttribute(attributes, key);
    if (value !== undefined && truthy(value)) return { key, value: (handler ? handler(value) : value) ?? null };
  }
  return null;
}

/** `parse_weave_values` for a list of keys: the first truthy one, under its own name. */
function firstOf(attributes: PyDict, keys: KeyList): PyDict {
  const result = newDict();
  const found = firstTruthy(attributes, keys);
  if (found !== null) {
    setKey(result, found.key, found.value);
    convertNumericKeysInPlace(result);
  }
  return result;
}

/** `parse_weave_values` for a table: per output key, the first truthy attribute. */
function tableOf(attributes: PyDict, table: ReadonlyArray<readonly [string, KeyList]>): PyDict {
  const result = newDict();
  for (const [name, keys] of table) {
    const found = firstTruthy(attributes, keys);
    if (found !== null) setKey(result, name, found.value);
  }
  if (Object.keys(result).length > 0) convertNumericKeysInPlace(result);
  return result;
}

/** Python's isinstance(v, int) also holds for bools. */
const isPyInt = (v: PyValue | undefined) => typeof v === 'bigint' || typeof v === 'boolean';
const asBig = (v: PyValue | undefined): bigint => (typeof v === 'boolean' ? (v ? 1n : 0n) : (v as bigint));

/** `get_weave_usage`: the table, plus total = prompt + completion when only those two are ints. */
function usageOf(attributes: PyDict): PyDict {
  const usage = tableOf(attributes, USAGE_KEYS);
  if ('prompt_tokens' in usage && 'completion_tokens' in usage && !('total_tokens' in usage) && isPyInt(usage.prompt_tokens) && isPyInt(usage.completion_tokens)) {
    setKey(usage, 'total_tokens', asBig(usage.prompt_tokens) + asBig(usage.completion_tokens));
  }
  return usage;
}

/** Python's `round()` on a float: half to even. */
function roundHalfEven(x: number): number {
  const r = Math.round(x);
  return Math.abs(x % 1) === 0.5 && r % 2 !== 0 ? r - 1 : r;
}

/** `datetime.fromtimestamp(seconds)` in µs: whole seconds, then the fraction rounded half-even. */
function fromTimestampMicros(seconds: number): number {
  const whole = Math.trunc(seconds);
  return whole * 1_000_000 + roundHalfEven((seconds - whole) * 1e6);
}

const NANOS_PER_SECOND = 1_000_000_000n;
/** `datetime.fromtimestamp(ns / 1_000_000_000)` in µs (the division is a float, as production's). */
export function nanosToMicros(ns: bigint): number {
  const seconds = Number(ns / NANOS_PER_SECOND) + Number(ns % NANOS_PER_SECOND) / 1e9;
  return fromTimestampMicros(seconds);
}

/** The latest time Python's datetime holds (9999-12-31T23:59:59.999999), in µs. */
const MAX_DATETIME_MICROS = 253402300799999999;

/** `helpers.capture_parts`: split on the delimiters, keeping them (code points, as Python's str). */
const NAME_DELIMITERS = [',', ';', '|', ' ', '/', '?', '.'];
function captureParts(s: string[]): string[][] {
  const parts: string[][] = [];
  let cur: string[] = [];
  for (const ch of s) {
    if (NAME_DELIMITERS.includes(ch)) {
      if (cur.length > 0) parts.push(cur);
      parts.push([ch]);
      cur = [];
    } else cur.push(ch);
  }
  if (cur.length > 0) parts.push(cur);
  return parts.length === 0 ? [s] : parts;
}

/** `helpers.shorten_name`, over code points. */
export function shortenName(name: string, maxLen: number, abbrv = '...', useDelimiterInAbbr = true): string {
  const chars = Array.from(name);
  if (chars.length <= maxLen) return name;
  const abbrvLen = Array.from(abbrv).length;
  const parts = captureParts(chars).map((p) => p.join(''));
  if (parts.length <= 1) return chars.slice(0, maxLen - abbrvLen).join('') + abbrv;
  let shortened = parts[0];
  const len = (s: string) => Array.from(s).length;
  if (len(shortened) > maxLen - abbrvLen) return Array.from(shortened).slice(0, maxLen - abbrvLen).join('') + abbrv;
  let i = 1;
  while (i < parts.length) {
    let delimiter = '';
    while (i < parts.length && NAME_DELIMITERS.includes(parts[i])) {
      delimiter += parts[i];
      i++;
    }
    // Production indexes past the end here (an IndexError) when the name ends in delimiters.
    if (i >= parts.length) {
      shortened += abbrvLen === 0 ? '' : abbrv.startsWith(delimiter) || !useDelimiterInAbbr ? abbrv : delimiter + abbrv;
      break;
    }
    const next = delimiter + parts[i];
    const withAbbrv = abbrvLen === 0 ? '' : abbrv.startsWith(delimiter) || !useDelimiterInAbbr ? abbrv : delimiter + abbrv;
    if (len(shortened) + len(next) >= maxLen - len(withAbbrv)) {
      shortened += withAbbrv;
      break;
    }
    shortened += next;
    i++;
  }
  return shortened;
}

/** The op name production stores: names of 128 code points or more are shortened with a hash tag. */
export function opNameOf(name: string): string {
  if (Array.from(name).length < MAX_OP_NAME_LENGTH) return name;
  const tag = createHash('sha256').update(name, 'utf8').digest('hex').slice(0, 4);
  return shortenName(name, MAX_OP_NAME_LENGTH, `:${tag}`, false);
}

export interface ConvertedCall {
  projectId: string;
  start: CallStartInput;
  end: CallEndInput;
}

/** A span production would reject (partial success), with its message. */
export class RejectedSpan extends Error {}

/** The attributes of a span, or its rejection (production's `Span.from_proto` failing). */
function spanAttributes(span: Span, at: string): PyDict {
  const expand = (kvs: readonly KeyValue[], path: string) => unflattenKeyValues(kvs, path);
  try {
    const attributes = expand(span.attributes, `${at}.attributes`);
    // Events and links are expanded too (into production's otel_dump): their conflicts reject the span.
    span.events.forEach((e, i) => expand(e.attributes, `${at}.events[${i}].attributes`));
    span.links.forEach((l, i) => expand(l.attributes, `${at}.links[${i}].attributes`));
    return attributes;
  } catch (e) {
    if (e instanceof AttributePathConflict) {
      throw new RejectedSpan(`Rejected span (name='${span.name}' trace_id='${span.traceId}' span_id='${span.spanId}'): ${e.message}`);
    }
    throw e;
  }
}

/**
 * The call fields production's insert models validate (pydantic): a value of the wrong type
 * fails the whole export there, so it is a 400 here, naming the span and the attribute.
 */
function typed<T>(value: PyValue | undefined, ok: (v: PyValue) => v is PyValue & T, at: string, attribute: string, what: string): T | null {
  if (value === undefined || value === null) return null;
  if (!ok(value)) throw new OtlpFormatError(at, `${attribute} must be ${what} (got ${JSON.stringify(toJson(value))?.slice(0, 100)})`);
  return value;
}
const isStr = (v: PyValue): v is string => typeof v === 'string';
const isBig = (v: PyValue): v is bigint => typeof v === 'bigint';
const overrideMicros = (v: PyValue | undefined): number | null => (typeof v === 'string' && v.endsWith('us') ? Number(v.slice(0, -2)) : null);

/**
 * `Span.to_call`. `userId` is the authenticated user (production's `wb_user_id`, set by the
 * server); null for fixtures. @throws RejectedSpan; OtlpFormatError for values no call can hold.
 */
export function spanToCall(span: Span, projectId: string, userId: string | null, at: string): ConvertedCall {
  const raw = spanAttributes(span, at);
  const usage = usageOf(raw);

  let inputs: PyValue = firstOf(raw, INPUT_KEYS);
  if (pyLen(inputs) === 1) {
    const d = inputs as PyDict;
    const nested = truthy(d.inputs) ? d.inputs : d.input;
    if (nested !== undefined && nested !== null && isDict(nested)) inputs = nested;
  }
  let outputs: PyValue = firstOf(raw, OUTPUT_KEYS);
  if (pyLen(outputs) === 1) {
    const d = outputs as PyDict;
    const nested = truthy(d.outputs) ? d.outputs : d.output;
    if (nested !== undefined && nested !== null) outputs = nested;
  }
  let attributes: PyDict = tableOf(raw, ATTRIBUTE_KEYS);
  const wandb = tableOf(raw, WB_KEYS);
  const overrides = tableOf(raw, SPAN_OVERRIDES);

  const startUs = overrideMicros(overrides.start_time) ?? nanosToMicros(span.startTimeUnixNano);
  const endUs = overrideMicros(overrides.end_time) ?? nanosToMicros(span.endTimeUnixNano);
  for (const [name, us] of [['start', startUs], ['end', endUs]] as const) {
    if (!(us >= 0 && us <= MAX_DATETIME_MICROS)) throw new OtlpFormatError(at, `span ${name} time is outside 1970-01-01..9999-12-31`);
  }

  let model = attributes.model;
  if (!truthy(model)) {
    const parameters = attributes.model_parameters;
    if (truthy(parameters) && isDict(parameters)) model = parameters.model;
  }

  const hasAttributes = Object.keys(attributes).length > 0;
  const hasInputs = (pyLen(inputs) ?? 1) > 0;
  // Production: isinstance(outputs, int) or len(outputs) > 0 (a float output raises there).
  const hasOutputs = isPyInt(outputs) || (pyLen(outputs) ?? 1) > 0;
  const hasUsage = Object.keys(usage).length > 0;

  const custom = wandb.attributes;
  if (truthy(custom) && isDict(custom)) for (const key of Object.keys(custom)) setKey(attributes, key, custom[key]);
  if (!hasAttributes && !hasInputs && !hasOutputs && !hasUsage) attributes = raw;

  const opName = opNameOf(span.name);
  let displayName = typed(wandb.display_name, isStr, at, 'wandb.display_name', 'a string');
  if (displayName !== null && displayName !== '' && Array.from(displayName).length >= MAX_DISPLAY_NAME_LENGTH) {
    displayName = shortenName(displayName, MAX_DISPLAY_NAME_LENGTH);
  }
  const threadId = truthy(wandb.thread_id) ? typed(wandb.thread_id, isStr, at, 'wandb.thread_id', 'a string') : null;
  const turnId = threadId !== null && truthy(wandb.is_turn) ? span.spanId : null;
  const attrRunId = truthy(wandb.wb_run_id) ? typed(wandb.wb_run_id, isStr, at, 'wandb.wb_run_id', 'a string') : null;
  const runId = attrRunId !== null && !attrRunId.includes('/') && !attrRunId.includes(':') ? `${projectId}:${attrRunId}` : null;
  const runStep = truthy(wandb.wb_run_step) ? typed(wandb.wb_run_step, isBig, at, 'wandb.wb_run_step', 'an integer') : null;
  const runStepEnd = truthy(wandb.wb_run_step_end) ? typed(wandb.wb_run_step_end, isBig, at, 'wandb.wb_run_step_end', 'an integer') : null;

  const usageValue = (key: string) => toJson(typed(usage[key], isBig, at, `usage ${key}`, 'an integer'));
  const durationNs = span.endTimeUnixNano - span.startTimeUnixNano;
  const isError = span.status.code === 2;
  const summary = {
    weave: { status: isError ? 'error' : 'success', latency_ms: Math.trunc(Number(durationNs) / 1e6), trace_name: opName },
    usage: {
      // In LLMUsageSchema's field order: production's insert model re-validates the summary,
      // and pydantic rebuilds a TypedDict in the order its fields are declared.
      [typeof model === 'string' && model !== '' ? model : 'usage']: {
        prompt_tokens: usageValue('prompt_tokens'),
        input_tokens: usageValue('input_tokens'),
        completion_tokens: usageValue('completion_tokens'),
        output_tokens: usageValue('output_tokens'),
        requests: null,
        total_tokens: usageValue('total_tokens'),
      },
    },
  };

  return {
    projectId,
    start: {
      project_id: projectId,
      id: span.spanId,
      op_name: opName,
      display_name: displayName,
      trace_id: span.traceId,
      parent_id: span.parentSpanId,
      thread_id: threadId,
      turn_id: turnId,
      started_at: startUs,
      attributes: toJson(attributes) as Record<string, unknown>,
      inputs: (isDict(inputs) ? toJson(inputs) : toJson(inputs)) as Record<string, unknown>,
      user_id: userId,
      run_id: runId,
      run_step: runStep === null ? null : Number(runStep),
    },
    end: {
      project_id: projectId,
      id: span.spanId,
      ended_at: endUs,
      exception: isError ? span.status.message : null,
      output: toJson(outputs),
      summary,
      run_step_end: runStepEnd === null ? null : Number(runStepEnd),
    },
  };
}
