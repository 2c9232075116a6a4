/**
 * Conversions between lossless values (value.ts) and ordinary JS values. All walks use
 * explicit stacks (no recursion), so any depth the parser accepts can also be converted.
 */
import { pyFloatRepr } from './py-float.ts';
import { LosslessNumber, LosslessObject, objectFromFlat, type FlatEntries, type LosslessValue } from './value.ts';

function isContainer(v: unknown): v is LosslessValue[] | LosslessObject {
  return Array.isArray(v) || v instanceof LosslessObject;
}

/**
 * Set `obj[key] = value` as an own data property, even for `__proto__` (which plain
 * assignment would take as the object's prototype, losing the key): for every user key copied
 * into a plain object.
 */
export function defineOwn(obj: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') {
    Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
  } else obj[key] = value;
}

/**
 * The ordinary JS value `JSON.parse` would give: numbers via `Number(lexeme)` (so big integers
 * lose precision and `NaN`/`Infinity` become those numbers), objects as plain objects (so
 * integer-like keys move first, as JS always does). With `keepNumbers`, numbers stay
 * LosslessNumbers (for readers that care whether a literal was written `5` or `5.0`); given a
 * predicate, only the numbers it picks do. With `origins`, every container made is recorded
 * with the lossless container it came from, so that a part passed on unchanged can be written
 * back as it was sent (`fromPlain`'s `origins`).
 */
export function toPlain(
  v: LosslessValue,
  opts: {
    keepNumbers?: boolean | ((n: LosslessNumber) => boolean);
    /** Turns every number into what it returns instead (overrides `keepNumbers`). */
    numberAs?: (n: LosslessNumber) => unknown;
    origins?: Map<object, LosslessValue>;
  } = {},
): unknown {
  const keep = opts.keepNumbers;
  const origins = opts.origins;
  const keepNumber = typeof keep === 'function' ? keep : () => keep === true;
  const numberAs = opts.numberAs ?? ((x: LosslessNumber) => (keepNumber(x) ? x : Number(x.lexeme)));
  const convert = (x: LosslessValue): unknown => {
    if (x instanceof LosslessNumber) return numberAs(x);
    if (!isContainer(x)) return x;
    const made = Array.isArray(x) ? [] : {};
    origins?.set(made, x);
    return made;
  };
  const root = convert(v);
  if (!isContainer(v)) return root;
  type Frame = { src: LosslessValue[] | LosslessObject; dst: unknown[] | Record<string, unknown>; i: number };
  const stack: Frame[] = [{ src: v, dst: root as Frame['dst'], i: 0 }];
  while (stack.length > 0) {
    const f = stack[stack.length - 1];
    const { src, dst } = f;
    if (f.i >= (Array.isArray(src) ? src.length : src.size)) {
      stack.pop();
      continue;
    }
    const idx = f.i++;
    const child = Array.isArray(src) ? src[idx] : src.valueAt(idx);
    const out = convert(child);
    if (Array.isArray(src)) (dst as unknown[]).push(out);
    else defineOwn(dst as Record<string, unknown>, src.keyAt(idx), out);
    if (isContainer(child)) stack.push({ src: child, dst: out as Frame['dst'], i: 0 });
  }
  return root;
}

/** A JS number as a lexeme: an integer lexeme when exact, else Python's float repr. */
function numberLexeme(x: number): string {
  if (Number.isSafeInteger(x)) return String(x); // -0 becomes "0", like JSON.stringify
  return pyFloatRepr(x);
}

/**
 * A lossless value from an ordinary JS value, following `JSON.stringify`'s conventions where
 * they apply: `toJSON()` is honoured (Dates become ISO strings) and object properties whose
 * value is `undefined` are skipped. Numbers: safe integers become integer lexemes, everything
 * else Python's float repr (`2.5`, `1e+20`, `NaN`); bigints become integer lexemes. Existing
 * LosslessNumber/LosslessObject values are kept as they are (not copied), and so is the
 * lossless original of a container `origins` knows (recorded by `toPlain`): a value that came
 * through unchanged keeps its key order and number lexemes.
 * @throws TypeError for `undefined` outside an object property, functions, symbols and cycles.
 */
export function fromPlain(v: unknown, origins?: Map<object, LosslessValue>): LosslessValue {
  // Containers on the path from the root, to detect cycles.
  const onPath = new Set<object>();

  /** Scalars converted; plain containers returned as they are, to be walked by the caller. */
  const convert = (x: unknown, key: string): LosslessValue | object => {
    if (x instanceof LosslessNumber) return x;
    if (origins !== undefined && x !== null && typeof x === 'object') {
      const origin = origins.get(x);
      if (origin !== undefined) return origin;
    }
    if (x !== null && typeof x === 'object' && typeof (x as { toJSON?: unknown }).toJSON === 'function') {
      x = (x as { toJSON(k: string): unknown }).toJSON(key);
    }
    switch (typeof x) {
      case 'string':
      case 'boolean':
        return x;
      case 'number':
        return new LosslessNumber(numberLexeme(x));
      case 'bigint':
        return new LosslessNumber(x.toString());
      case 'object':
        if (x === null || x instanceof LosslessNumber || x instanceof LosslessObject) return x;
        if (onPath.has(x)) throw new TypeError('fromPlain: circular reference');
        return x;
      default:
        throw new TypeError(`fromPlain: cannot convert ${typeof x} at key ${JSON.stringify(key)}`);
    }
  };
  const isPlainContainer = (x: unknown): x is object =>
    x !== null && typeof x === 'object' && !(x instanceof LosslessNumber) && !(x instanceof LosslessObject);

  // A plain container being converted: its source, its keys (null for arrays), the lossless
  // output being filled (array items, or flat key/value pairs) and progress.
  type Job = { src: object; keys: string[] | null; out: FlatEntries; i: number };
  const open = (src: object): { value: LosslessValue; job: Job } => {
    onPath.add(src);
    const out: FlatEntries = [];
    if (Array.isArray(src)) return { value: out, job: { src, keys: null, out, i: 0 } };
    return { value: objectFromFlat(out), job: { src, keys: Object.keys(src), out, i: 0 } };
  };

  const top = convert(v, '');
  if (!isPlainContainer(top)) return top as LosslessValue;
  const first = open(top);
  const stack: Job[] = [first.job];
  while (stack.length > 0) {
    const job = stack[stack.length - 1];
    const length = job.keys === null ? (job.src as unknown[]).length : job.keys.length;
    if (job.i >= length) {
      onPath.delete(job.src);
      stack.pop();
      continue;
    }
    const idx = job.i++;
    const key = job.keys === null ? String(idx) : job.keys[idx];
    const raw = (job.src as Record<string, unknown>)[key];
    if (raw === undefined && job.keys !== null) continue; // skipped, like JSON.stringify
    let child = convert(raw, key);
    if (isPlainContainer(child)) {
      const opened = open(child);
      stack.push(opened.job);
      child = opened.value;
    }
    if (job.keys !== null) job.out.push(key);
    job.out.push(child as LosslessValue);
  }
  return first.value;
}

