/**
 * Lossless JSON values: what `JSON.parse` throws away, kept.
 *
 * Weave computes content digests in Python from `json.dumps(json.loads(body))`, so the digest
 * depends on details a JS value cannot hold:
 *  - the number lexeme (`1` is a Python int, `1.0` a float; `12345678901234567890` is exact);
 *  - object key order as written (JS objects move integer-like keys such as "2" first);
 *  - Python's extra literals `NaN`, `Infinity`, `-Infinity`.
 * A LosslessNumber keeps the lexeme and a LosslessObject the order; parse.ts reads them from
 * text, write.ts writes them back, convert.ts converts to and from ordinary JS values.
 */

/** A JSON number kept as its source text. */
export class LosslessNumber {
  constructor(readonly lexeme: string) {}

  /** True for a Python int lexeme (digits with an optional sign); false for floats and NaN/Infinity. */
  get isInteger(): boolean {
    return INTEGER_LEXEME.test(this.lexeme);
  }

  /** The nearest JS number (`NaN`/`Infinity` lexemes map to those values). */
  valueOf(): number {
    return Number(this.lexeme);
  }

  toString(): string {
    return this.lexeme;
  }

  /**
   * What `JSON.stringify` writes: the nearest number. Writers that must keep every digit use
   * `writeJson` / `stringifyExact` (core/json/exact.ts); this only keeps a stray stringify of an
   * exact plain value (an error's `input`, say) well-formed.
   */
  toJSON(): number | null {
    const n = Number(this.lexeme);
    return Number.isFinite(n) ? n : null;
  }
}

const INTEGER_LEXEME = /^[+-]?\d+$/;
/** Lexemes for Python's non-finite floats. */
export const NON_FINITE_LEXEMES: ReadonlySet<string> = new Set(['NaN', 'Infinity', '-Infinity']);

/** Parser-internal object form: keys and values interleaved, `[k0, v0, k1, v1, ...]`. */
export type FlatEntries = Array<string | LosslessValue>;

/**
 * An object over flat entries, without copying them: friend access for the parser and
 * `fromPlain` only (assigned in the class's static block, where the private fields are in reach).
 */
export let objectFromFlat: (flat: FlatEntries) => LosslessObject;

/**
 * A JSON object as an ordered list of entries. Keys are expected to be unique (the parser and
 * `fromPlain` guarantee it); the order is the order of first appearance in the source.
 *
 * Memory note: one `[key, value]` array per entry costs more than the rest of a parsed
 * document together (and most of the parse time, in GC). So the parser builds objects in a
 * flat form, and the `entries` array is created only when first read; from then on it is the
 * only copy, so mutating it is seen by every method. `size`, `keyAt`, `valueAt`, `get` and the
 * writers work on either form without creating it.
 */
export class LosslessObject {
  #entries: Array<[string, LosslessValue]> | null;
  #flat: FlatEntries | null = null;

  static {
    objectFromFlat = (flat) => {
      const o = new LosslessObject(NO_ENTRIES);
      o.#entries = null;
      o.#flat = flat;
      return o;
    };
  }

  constructor(entries: Array<[string, LosslessValue]>) {
    this.#entries = entries;
  }

  /** The entries in order, as `[key, value]` pairs (created on first read, then kept). */
  get entries(): Array<[string, LosslessValue]> {
    if (this.#entries === null) {
      const flat = this.#flat!;
      const entries = new Array<[string, LosslessValue]>(flat.length / 2);
      for (let i = 0; i < entries.length; i++) entries[i] = [flat[2 * i] as string, flat[2 * i + 1]];
      this.#entries = entries;
      this.#flat = null;
    }
    return this.#entries;
  }

  get size(): number {
    return this.#entries !== null ? this.#entries.length : this.#flat!.length / 2;
  }

  keyAt(i: number): string {
    return this.#entries !== null ? this.#entries[i][0] : (this.#flat![2 * i] as string);
  }

  valueAt(i: number): LosslessValue {
    return this.#entries !== null ? this.#entries[i][1] : this.#flat![2 * i + 1];
  }

  has(key: string): boolean {
    return this.#find(key) >= 0;
  }

  /** The value for `key`, or `undefined` when absent (`null` is a present JSON null). */
  get(key: string): LosslessValue | undefined {
    const i = this.#find(key);
    return i >= 0 ? this.valueAt(i) : undefined;
  }

  /** Linear scan: objects are small in practice; build a Map yourself for many lookups. */
  #find(key: string): number {
    const n = this.size;
    for (let i = 0; i < n; i++) if (this.keyAt(i) === key) return i;
    return -1;
  }
}

const NO_ENTRIES: Array<[string, LosslessValue]> = [];

export type LosslessValue = null | boolean | string | LosslessNumber | LosslessValue[] | LosslessObject;
