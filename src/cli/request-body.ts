/**
 * The request text a query command hands its route (one body path: the CLI, the HTTP server
 * and the in-process runner all give routes text, and each route parses it once).
 *
 * `--request` text passes through untouched when no flag changes it. Flags that set fields are
 * applied to that text (or to `{}`) parsed losslessly, and the result is written back
 * losslessly, so `{"$literal": 5.0}` from `--query-json` reaches the route as a float literal
 * and `12345678901234567890` keeps every digit.
 */
import { JsonSyntaxError, LosslessNumber, LosslessObject, parseLossless, writeJson, type JsonWriterStyle, type LosslessValue } from '../core/json/lossless.ts';
import { UsageError } from './common.ts';

/** Sets one top-level field, given its current value (undefined when absent). */
export type FieldEdit = (current: LosslessValue | undefined) => LosslessValue;

/** A JSON flag value, parsed losslessly; a syntax error names the flag. */
export function parseJsonFlag(name: string, text: string): LosslessValue {
  try {
    return parseLossless(text);
  } catch (e) {
    if (e instanceof JsonSyntaxError) throw new UsageError(`${name} is not valid JSON: ${e.message}`);
    throw e;
  }
}

/** Compact JSON with every number lexeme as written (`5.0`, `NaN`, which Python's json reads). */
const VERBATIM: JsonWriterStyle = { itemSeparator: ',', keySeparator: ':', string: (s) => JSON.stringify(s), number: (n) => n.lexeme };

/** The body text: `requestText` as it is without edits; else edited and rewritten losslessly. */
export function composeRequest(requestText: string | undefined, edits: ReadonlyMap<string, FieldEdit>): string {
  if (edits.size === 0) return requestText ?? '{}';
  const base = requestText === undefined ? new LosslessObject([]) : parseJsonFlag('--request', requestText);
  if (!(base instanceof LosslessObject)) throw new UsageError('--request must hold a JSON object');
  const entries = base.entries;
  for (const [key, edit] of edits) {
    const i = entries.findIndex(([k]) => k === key);
    if (i >= 0) entries[i] = [key, edit(entries[i][1])];
    else entries.push([key, edit(undefined)]);
  }
  return writeJson(base, VERBATIM);
}

/** Edits that set fields to fixed values (the common case). */
export const setTo = (value: LosslessValue): FieldEdit => () => value;

/** An integer flag's value as a JSON integer (already checked by intOption). */
export const integer = (n: number): LosslessValue => new LosslessNumber(String(n));

/** A list of strings as JSON. */
export const strings = (items: readonly string[]): LosslessValue => [...items];

/** `{field, direction|order}` sort terms as JSON objects. */
export const sortTerms = (terms: ReadonlyArray<Record<string, string>>): LosslessValue =>
  terms.map((t) => new LosslessObject(Object.entries(t)));
