/**
 * The JSON text tq stores for a table row or an object value, and later returns as `val`.
 *
 * Weave stores `json.dumps(value)`, parses it back on read and answers with pydantic's JSON of
 * the parsed value. The text here is that answer, written once: compact separators, original
 * key order (or Python's sorted order for objects, semantics.md#writes-obj-create), strings as
 * UTF-8, numbers as Python spells them after parsing (`1.0` stays a float, `1E2` becomes `100.0`,
 * big integers stay exact) and NaN/±Infinity as `null`, as pydantic writes non-finite floats.
 */
import { writeJson, type JsonWriterStyle, type LosslessNumber, type LosslessObject, type LosslessValue } from './lossless.ts';
import { compareCodePoints, isPythonFloatRepr, pyNumber } from './pyjson.ts';

const number = (n: LosslessNumber): string => {
  const lexeme = n.lexeme;
  if (isPythonFloatRepr(lexeme)) return lexeme;
  const text = pyNumber(n);
  return text === 'NaN' || text === 'Infinity' || text === '-Infinity' ? 'null' : text;
};

const STORED_STYLE: JsonWriterStyle = {
  itemSeparator: ',',
  keySeparator: ':',
  string: (s) => JSON.stringify(s),
  number,
};

/** Entry indexes of `obj` in Python's `sort_keys` order (code-point order, stable). */
function sortedOrder(obj: LosslessObject): number[] {
  const keys = Array.from({ length: obj.size }, (_, i) => obj.keyAt(i));
  return keys.map((_, i) => i).sort((a, b) => compareCodePoints(keys[a], keys[b]));
}

const STORED_SORTED_STYLE: JsonWriterStyle = { ...STORED_STYLE, orderKeys: sortedOrder };

/** Stored text of a table row: original key order (semantics.md#table-val-verbatim). */
export function storedRowText(row: LosslessValue): string {
  return writeJson(row, STORED_STYLE);
}

/** Stored text of an object value: keys sorted at every level, as Weave stores `json_val`. */
export function storedObjectText(val: LosslessValue): string {
  return writeJson(val, STORED_SORTED_STYLE);
}
