/**
 * Turning a RequestBody into JSON. Plain routes use JSON.parse (fast); digest-feeding routes
 * parse losslessly. A body that is not JSON is a 422 `json_invalid`, worded as Python's json
 * module words it, since that is what FastAPI reports.
 */
import { invalidRequest, RequestSchemaError } from '../core/errors.ts';
import { exactPlain, parseExact, spelledPlain } from '../core/json/exact.ts';
import { fromPlain, JsonSyntaxError, LosslessNumber, LosslessObject, parseLossless, toPlain, type LosslessValue } from '../core/json/lossless.ts';
import { jsonInvalid } from '../core/schema.ts';
import type { RequestBody } from './types.ts';

function syntaxError(text: string): RequestSchemaError {
  try {
    parseLossless(text);
  } catch (e) {
    if (e instanceof JsonSyntaxError) return jsonInvalid(e.pos, e.msg);
  }
  return jsonInvalid(0, 'Expecting value');
}

/** CPython's `int()` refuses a decimal text of more digits than this (`sys.get_int_max_str_digits()`). */
const MAX_INT_DIGITS = 4300;
const OVER_LONG_DIGIT_RUN = new RegExp(`\\d{${MAX_INT_DIGITS + 1}}`);

/**
 * Python's `json.loads` raises ValueError (not a decode error) on an integer literal of more
 * than 4300 digits, which FastAPI answers with a 400 (semantics.md#writes-number-spelling).
 * Only a text with such a digit run is walked, so a normal body costs one regex scan.
 */
function checkIntegerDigits(text: string, parsed: () => LosslessValue): void {
  if (!OVER_LONG_DIGIT_RUN.test(text)) return;
  const stack: LosslessValue[] = [parsed()];
  while (stack.length > 0) {
    const v = stack.pop()!;
    if (v instanceof LosslessNumber) {
      if (v.isInteger && v.lexeme.replace(/^[+-]/, '').length > MAX_INT_DIGITS) {
        throw invalidRequest('TQ_INVALID_REQUEST', { reason: 'There was an error parsing the body' });
      }
    } else if (Array.isArray(v)) stack.push(...v);
    else if (v instanceof LosslessObject) for (let i = 0; i < v.size; i++) stack.push(v.valueAt(i));
  }
}

/** The body as a plain JS value; integers beyond 2^53 stay exact (core/json/exact.ts). */
export function plainBody(body: RequestBody): unknown {
  if (body.kind === 'value') return body.value;
  if (body.kind === 'multipart' || body.kind === 'binary') throw jsonInvalid(0, 'Expecting value');
  let plain: unknown;
  try {
    plain = parseExact(body.text);
  } catch {
    // JSON.parse refuses NaN/Infinity, which Python's json (and so Weave) accepts.
    try {
      plain = exactPlain(parseLossless(body.text));
    } catch {
      throw syntaxError(body.text);
    }
  }
  checkIntegerDigits(body.text, () => parseLossless(body.text));
  return plain;
}

/** The body parsed losslessly (int/float distinction, big integers, key order kept). */
export function losslessBody(body: RequestBody): LosslessValue {
  if (body.kind === 'value') return fromPlain(body.value);
  if (body.kind === 'multipart' || body.kind === 'binary') throw jsonInvalid(0, 'Expecting value');
  let parsed: LosslessValue;
  try {
    parsed = parseLossless(body.text);
  } catch (e) {
    if (e instanceof JsonSyntaxError) throw jsonInvalid(e.pos, e.msg);
    throw e;
  }
  checkIntegerDigits(body.text, () => parsed);
  return parsed;
}

/**
 * The body as a spelled plain value (core/json/exact.ts `spelledPlain`): a route that stores
 * parts of it as sent (feedback payloads) writes `1.0` back as `1.0`
 * (semantics.md#writes-number-spelling).
 */
export function spelledBody(body: RequestBody): unknown {
  return spelledPlain(losslessBody(body));
}

/**
 * The body of a route whose `query` holds an `$expr` (calls, feedback), from one lossless parse: the `query` subtree keeps every number's lexeme,
 * since `{"$literal": 5.0}` is a float literal (double cast of the field) and `5` an int
 * literal (int cast), a difference JSON.parse erases (semantics.md#calls-expr-compare); the rest is
 * the exact plain value (big integers keep their digits).
 */
export function queryBody(body: RequestBody): unknown {
  const lossless = losslessBody(body);
  const plain = exactPlain(lossless);
  const query = lossless instanceof LosslessObject ? lossless.get('query') : undefined;
  if (query === undefined) return plain;
  (plain as Record<string, unknown>).query = toPlain(query, { keepNumbers: true });
  return plain;
}
