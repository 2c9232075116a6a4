/**
 * Plain JS values that keep every digit of big integers (semantics.md#calls-json-read: a stored
 * number reads as the text Python stored; `12345678901234567890` is never a rounded double).
 *
 * A plain value here is what JSON.parse gives, except that an integer a double cannot hold
 * exactly stays a LosslessNumber (its lexeme). Everything else stays an ordinary number, so
 * code that reads counts and costs as numbers keeps working. Text without a 16-digit run cannot
 * hold such an integer and takes the JSON.parse fast path.
 */
import { dumpCompact, fromPlain, LosslessNumber, parseLossless, toPlain, type LosslessValue } from './lossless.ts';
import { pyNumber } from './pyjson.ts';
import { keepsSpellingNatively } from './native-safe.ts';

/** A run of 16 digits: the shortest text that can spell an integer beyond 2^53. */
const LONG_DIGIT_RUN = /\d{16}/;

/** Whether a number lexeme is an integer that a double would round. */
export function isUnsafeInteger(n: LosslessNumber): boolean {
  return n.isInteger && !Number.isSafeInteger(Number(n.lexeme));
}

/** A lossless value as an exact plain value (unsafe integers kept as LosslessNumbers). */
export function exactPlain(v: LosslessValue): unknown {
  return toPlain(v, { keepNumbers: isUnsafeInteger });
}

/**
 * A number as a spelled plain value holds it: a safe integer as a JS number; an integer beyond
 * 2^53 as its exact LosslessNumber; a float as a LosslessNumber of Python's spelling after
 * `json.loads` (`1.0`, `1E2` → `100.0`, `1e-5` → `1e-05`, `-0.0`; `NaN`, `Infinity`, `-Infinity`
 * for the non-finite ones, `1e400` included, which compact writers answer as null).
 */
function pythonSpelled(n: LosslessNumber): unknown {
  if (n.isInteger) return isUnsafeInteger(n) ? n : Number(n.lexeme);
  const text = pyNumber(n);
  return text === n.lexeme ? n : new LosslessNumber(text);
}

/**
 * A lossless value as a spelled plain value: an exact plain value in which every float also
 * stays a LosslessNumber, spelled as Python's `json.dumps` writes it after `json.loads`, so
 * that writing it back (stringifyExact) keeps `1.0` a float (semantics.md#writes-number-spelling).
 * With `origins`, each plain container is recorded with the lossless one it came from
 * (`fromPlain`'s `origins`).
 */
export function spelledPlain(v: LosslessValue, origins?: Map<object, LosslessValue>): unknown {
  return toPlain(v, { numberAs: pythonSpelled, origins });
}

/**
 * Stored JSON text as a spelled plain value (spelledPlain), for answers that write it back.
 * Text whose numbers JS prints as Python does (keepsSpellingNatively) is read by JSON.parse:
 * writing the value back gives the same text.
 */
export function parseSpelled(text: string): unknown {
  return keepsSpellingNatively(text) ? JSON.parse(text) : spelledPlain(parseLossless(text));
}

/** Parses known-valid JSON text into an exact plain value. @throws like JSON.parse / parseLossless. */
export function parseExact(text: string): unknown {
  return LONG_DIGIT_RUN.test(text) ? exactPlain(parseLossless(text)) : JSON.parse(text);
}

/** Whether a plain value holds a LosslessNumber anywhere (iterative: no depth limit). */
export function holdsLosslessNumber(root: unknown): boolean {
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const v = stack.pop();
    if (v === null || typeof v !== 'object') continue;
    if (v instanceof LosslessNumber) return true;
    if (Array.isArray(v)) for (let i = 0; i < v.length; i++) stack.push(v[i]);
    else for (const k in v) stack.push((v as Record<string, unknown>)[k]);
  }
  return false;
}

/** JSON text of an exact plain value: JSON.stringify, or a lexeme-keeping writer when needed. */
export function stringifyExact(v: unknown): string {
  return holdsLosslessNumber(v) ? dumpCompact(fromPlain(v)) : JSON.stringify(v);
}
