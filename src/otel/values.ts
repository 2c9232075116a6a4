/**
 * The Python-side values production's OTel conversion works on, and the helpers it applies to
 * them (weave/trace_server/opentelemetry/helpers.py): the attribute tree built from dotted keys
 * (`unflatten_key_values`, `expand_attributes`, `_validate_structure`), the lookups
 * (`get_attribute`), list conversion (`convert_numeric_keys_to_list`) and the final JSON form
 * (`to_json_serializable`). Ints and floats stay apart (bigint / number) until the end, because
 * production tells them apart (`1` vs `1.0`, `isinstance(x, int)`). Dicts are shared by
 * reference exactly where production's are, so its in-place changes (a list conversion seen
 * through a later lookup) happen here too.
 */
import { LosslessNumber, parseLossless, toPlain } from '../core/json/lossless.ts';
import { defineOwn } from '../core/json/convert.ts';
import { textDepthExceeded } from '../core/json/depth.ts';
import type { AnyValue, KeyValue } from './model.ts';
import { OtlpFormatError } from './model.ts';

export type PyValue = null | boolean | string | bigint | number | Uint8Array | PyValue[] | PyDict;
export interface PyDict {
  [key: string]: PyValue;
}

export const isDict = (v: unknown): v is PyDict => typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Uint8Array);
/** Python's `isinstance(v, (dict, list))`. */
const isMapping = (v: unknown): boolean => Array.isArray(v) || isDict(v);
const has = (d: PyDict, key: string): boolean => Object.prototype.hasOwnProperty.call(d, key);
export const newDict = (): PyDict => ({});
export function setKey(d: PyDict, key: string, value: PyValue): void {
  defineOwn(d as Record<string, unknown>, key, value);
}

/** Python's `type(v).__name__`, for production's conflict messages. */
function pyTypeName(v: PyValue): string {
  if (v === null) return 'NoneType';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'string') return 'str';
  if (typeof v === 'bigint') return 'int';
  if (typeof v === 'number') return 'float';
  if (v instanceof Uint8Array) return 'bytes';
  return Array.isArray(v) ? 'list' : 'dict';
}

/** Python truthiness (`if value:`): NaN is truthy, empty containers are not. */
export function truthy(v: PyValue | undefined): boolean {
  if (v === null || v === undefined) return false;
  if (typeof v === 'boolean') return v;
  if (typeof v === 'string') return v.length > 0;
  if (typeof v === 'bigint') return v !== 0n;
  if (typeof v === 'number') return v !== 0;
  if (v instanceof Uint8Array || Array.isArray(v)) return v.length > 0;
  return Object.keys(v).length > 0;
}

/** `len(v)` for the values production measures; undefined where Python's len() would raise. */
export function pyLen(v: PyValue): number | undefined {
  if (typeof v === 'string') return Array.from(v).length;
  if (v instanceof Uint8Array || Array.isArray(v)) return v.length;
  if (isDict(v)) return Object.keys(v).length;
  return undefined;
}

/** `resolve_pb_any_value`: kvlists become dicts (later keys win), without dotted-key expansion. */
function resolveAnyValue(v: AnyValue, path: string): PyValue {
  switch (v.t) {
    case 'string':
    case 'bool':
    case 'int':
    case 'double':
    case 'bytes':
      return v.v;
    case 'array':
      return v.v.map((x, i) => resolveAnyValue(x, `${path}[${i}]`));
    case 'kvlist': {
      const d = newDict();
      for (const kv of v.v) setKey(d, kv.key, resolveAnyValue(kv.value, `${path}.${kv.key}`));
      return d;
    }
    default:
      // Production raises ValueError("AnyValue has no value set") here, outside its per-span
      // rejection: the whole export fails. tq answers 400 naming the attribute.
      throw new OtlpFormatError(path, 'AnyValue has no value set');
  }
}

/** A JSON text (as `json.loads` reads it) as a PyValue: integers stay ints, other numbers floats. */
function fromJsonText(text: string): PyValue | undefined {
  if (textDepthExceeded(text) >= 0) return undefined;
  let parsed: unknown;
  try {
    parsed = toPlain(parseLossless(text), { keepNumbers: true });
  } catch {
    return undefined;
  }
  const walk = (v: unknown): PyValue => {
    if (v instanceof LosslessNumber) return v.isInteger ? BigInt(v.lexeme) : Number(v.lexeme);
    if (Array.isArray(v)) return v.map(walk);
    if (typeof v === 'object' && v !== null) {
      const d = newDict();
      for (const [k, inner] of Object.entries(v)) setKey(d, k, walk(inner));
      return d;
    }
    return v as PyValue;
  };
  return walk(parsed);
}

/** Production's AttributePathConflictError: the span is rejected (partial success). */
export class AttributePathConflict extends Error {}

function conflictMessage(parentKey: string, subkey: string, existing: PyValue): string {
  return (
    `Invalid attribute structure: cannot set subkey '${subkey}' under parent key '${parentKey}' because it ` +
    `is already a ${pyTypeName(existing)}. Attributes must form a valid tree structure.`
  );
}

/** `_get_value_from_nested_dict`: dotted lookup that also indexes lists by digit parts. */
function getNested(d: PyDict, key: string): PyValue | undefined {
  if (!key.includes('.')) return has(d, key) ? d[key] : undefined;
  let current: PyValue | undefined = d;
  for (const part of key.split('.')) {
    if (!isDict(current) || !has(current, part)) {
      if (Array.isArray(current) && /^[0-9]+$/.test(part)) {
        const index = Number(part);
        current = index < current.length ? current[index] : null;
        continue;
      }
      return undefined;
    }
    current = current[part];
  }
  return current;
}

/** `get_attribute`: the flat key first, then the dotted path. */
export function getAttribute(d: PyDict, key: string): PyValue | undefined {
  return has(d, key) ? d[key] : getNested(d, key);
}

/** `_validate_structure`: refuses a key that would break the attribute tree. */
function validateStructure(d: PyDict, key: string, value: PyValue): void {
  if (!key.includes('.')) {
    const existing = has(d, key) ? d[key] : undefined;
    if (existing !== undefined && isMapping(existing) && !isMapping(value)) {
      throw new AttributePathConflict(
        `Invalid attribute structure: key '${key}' already has nested values, but a non-object value was also provided. ` +
          `Do not send both '${key}' and '${key}.*' keys. Either: (1) remove the primitive '${key}', (2) move it under a ` +
          `different name (e.g. '${key}_value'), or (3) represent it as a field, e.g. '${key}.value'.`,
      );
    }
    return;
  }
  const parts = key.split('.');
  let current: PyDict = d;
  for (let i = 0; i < parts.length - 1; i++) {
    const part = parts[i];
    if (has(current, part) && !isDict(current[part])) {
      throw new AttributePathConflict(conflictMessage(parts.slice(0, i + 1).join('.'), parts[i + 1], current[part]));
    }
    current = has(current, part) ? (current[part] as PyDict) : newDict();
  }
  const parentValue = getNested(d, parts.slice(0, -1).join('.'));
  const parent = truthy(parentValue) ? parentValue : newDict();
  if (isDict(parent)) {
    const last = parts[parts.length - 1];
    const leaf = has(parent, last) ? parent[last] : undefined;
    if (leaf !== undefined && isMapping(leaf) && !isMapping(value)) {
      const whole = parts.join('.');
      throw new AttributePathConflict(
        `Invalid attribute structure: received both nested subkeys for '${whole}' and a non-object value for the same key. ` +
          `Do not send both '${whole}' and '${whole}.*'. Either keep only nested keys or use a different key for the ` +
          `primitive (e.g. '${whole}_value').`,
      );
    }
  }
}

/** `_set_value_in_nested_dict`. */
function setNested(d: PyDict, key: string, value: PyValue): void {
  validateStructure(d, key, value);
  if (!key.includes('.')) {
    setKey(d, key, value);
    return;
  }
  const parts = key.split('.');
  let current = d;
  for (const part of parts.slice(0, -1)) {
    if (!has(current, part)) setKey(current, part, newDict());
    current = current[part] as PyDict;
  }
  setKey(current, parts[parts.length - 1], value);
}

/**
 * `unflatten_key_values`: dotted keys become a tree; a string value that opens with `[` or `{`
 * is read as JSON when it is JSON (production loads every such string). @throws
 * AttributePathConflict; OtlpFormatError for an unset AnyValue.
 */
export function unflattenKeyValues(kvs: readonly KeyValue[], path: string): PyDict {
  const result = newDict();
  kvs.forEach((kv, i) => {
    let value = resolveAnyValue(kv.value, `${path}[${i}].value`);
    if (typeof value === 'string' && (value.startsWith('[') || value.startsWith('{'))) {
      const parsed = fromJsonText(value);
      if (parsed !== undefined) value = parsed;
    }
    setNested(result, kv.key, value);
  });
  return result;
}

/** Python's `int(str)`: optional sign, digits with single underscores, surrounding whitespace. */
const PY_INT_TEXT = /^\s*[+-]?\d+(?:_\d+)*\s*$/;

/** `try_parse_int`. */
export function tryParseInt(v: PyValue): PyValue {
  if (typeof v === 'bigint') return v;
  if (typeof v === 'boolean') return v ? 1n : 0n;
  if (typeof v === 'number') return Number.isFinite(v) ? BigInt(Math.trunc(v)) : v;
  if (typeof v === 'string' && PY_INT_TEXT.test(v)) return BigInt(v.trim().replace(/_/g, ''));
  return v;
}

class MissingKey extends Error {}

/**
 * `convert_numeric_keys_to_list`: a dict whose keys are exactly "0".."n-1" becomes a list,
 * nested dicts first (in place, as production assigns them back into their parents). Its
 * corner cases are kept: `{}` becomes `[]`, and keys such as "00" raise half-way (MissingKey),
 * leaving the conversions already made.
 */
function convertNumericKeysToList(obj: PyDict): PyDict | PyValue[] {
  for (const key of Object.keys(obj)) {
    const value = obj[key];
    if (isDict(value)) setKey(obj, key, convertNumericKeysToList(value));
  }
  const keys = Object.keys(obj);
  if (!keys.every((k) => PY_INT_TEXT.test(k))) return obj;
  const numbers = keys.map((k) => Number(k.trim().replace(/_/g, ''))).sort((a, b) => a - b);
  if (numbers.every((n, i) => n === i) && keys.every((k) => /^[0-9]+$/.test(k))) {
    return numbers.map((_, i) => {
      if (!has(obj, String(i))) throw new MissingKey();
      return obj[String(i)];
    });
  }
  return obj;
}

/** `try_convert_numeric_keys_to_list` as production calls it: for its in-place effects only. */
export function convertNumericKeysInPlace(d: PyDict): void {
  try {
    convertNumericKeysToList(d);
  } catch (e) {
    if (!(e instanceof MissingKey)) throw e;
  }
}

/** `to_json_serializable`, then the JSON value tq stores: ints exact, floats spelled as Python does. */
export function toJson(v: PyValue | undefined): unknown {
  if (v === null || v === undefined) return null;
  if (typeof v === 'boolean' || typeof v === 'string') return v;
  if (typeof v === 'bigint') return Number.isSafeInteger(Number(v)) && BigInt(Number(v)) === v ? Number(v) : new LosslessNumber(v.toString());
  if (typeof v === 'number') {
    if (Number.isNaN(v)) return 'nan';
    if (!Number.isFinite(v)) return v > 0 ? 'inf' : '-inf';
    return new LosslessNumber(pythonFloatRepr(v));
  }
  if (v instanceof Uint8Array) return Buffer.from(v).toString('base64');
  if (Array.isArray(v)) return v.map(toJson);
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(v)) defineOwn(out, key, toJson(v[key]));
  return out;
}

/** Python's `repr(float)`: the shortest round-trip digits, exponent form below 1e-4 and from 1e16. */
export function pythonFloatRepr(x: number): string {
  if (Object.is(x, -0)) return '-0.0';
  if (x === 0) return '0.0';
  const [mantissa, expText] = x.toExponential().split('e');
  const exp = Number(expText);
  const digits = mantissa.replace('-', '').replace('.', '');
  const sign = x < 0 ? '-' : '';
  if (exp < -4 || exp >= 16) {
    const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    return `${sign}${m}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  }
  if (exp < 0) return `${sign}0.${'0'.repeat(-exp - 1)}${digits}`;
  const intPart = digits.slice(0, exp + 1).padEnd(exp + 1, '0');
  const frac = digits.slice(exp + 1);
  return `${sign}${intPart}.${frac === '' ? '0' : frac}`;
}
