/**
 * The contract between the expression compiler (and the sorter) and whoever knows the rows:
 * `resolve(path)` turns a `$getField` / sort path into a typed accessor over row numbers, or
 * throws the field's 422 (semantics.md#calls-expr-fields).
 *
 * Kinds:
 *  - 'string' / 'number': plain columns (NULL as null), and computed fields;
 *  - 'datetime': µs since the epoch, NULL as null;
 *  - 'array': string arrays (`input_refs`, `output_refs`), never null;
 *  - 'json': a dynamic JSON field (semantics.md#calls-json-read). `str` is the JSON_VALUE string
 *    ('' for missing and JSON null, never null); `float` / `int` are toFloat64OrNull /
 *    toInt64OrNull of that string; `exists` says whether the path is present and not JSON null.
 *
 * 'number' and 'datetime' accessors over typed columns may give `fill`, a bulk read.
 * A 'string' accessor over an interned column (op_name) may also give `codes`: a small
 * integer per row naming its value, so predicates can be evaluated once per distinct value.
 */
import type { ErrorPath } from '../../../core/errors.ts';

export type FieldAccessor =
  | { kind: 'string'; get(row: number): string | null; codes?: ValueCodes }
  | { kind: 'number'; get(row: number): number | null; fill?: FillNumbers }
  | { kind: 'datetime'; get(row: number): number | null; fill?: FillNumbers } // µs since epoch
  | { kind: 'array'; get(row: number): readonly string[] }
  | {
      kind: 'json';
      str(row: number): string;
      float(row: number): number | null;
      int(row: number): number | bigint | null;
      exists(row: number): boolean;
      /** `(row) => str(row) === literal`, mostly decided from stored bytes without the text (an `$eq` against a string). */
      textEquals?(literal: string): (row: number) => boolean;
      /**
       * For each of `rows`: NaN when the value is absent, `worst` when present without a float
       * reading (or NaN), else the float reading (a sort's first key; one loop over the memo).
       */
      presenceAndNumbers?(rows: ArrayLike<number>, worst: number, out: Float64Array): Float64Array;
      /** `float` and `exists` are mostly read from stored bytes, without the text: a sort reads them first. */
      floatFromBytes?: boolean;
    };

/**
 * Optional bulk read of a numeric accessor: out[i] = the value of rows[i], NaN for NULL. A
 * typed loop over the columns, where calling `get` per row would box and branch per row.
 */
export type FillNumbers = (rows: ArrayLike<number>, out: Float64Array) => void;

/** Per-row codes of an interned column: equal codes, equal values; a negative code is NULL. */
export interface ValueCodes {
  code(row: number): number;
  /** Codes are below this bound when the query starts. */
  readonly bound: number;
}

export interface FieldResolver {
  resolve(path: string, loc?: ErrorPath): FieldAccessor;
  /**
   * Whether reading `path` is costly (parses JSON per row); `$and`/`$or` test such operands
   * last. Absent: no path is.
   */
  readsJson?(path: string): boolean;
  /**
   * The feedback join a sort by these fields needs (semantics.md#calls-feedback-join), or null
   * when none of them is a typed feedback field. Absent: never.
   */
  feedbackSortJoin?(fields: readonly string[]): FeedbackSortJoin | null;
}

/** A call's feedback rows, joined one at a time while a sort reads its keys. */
export interface FeedbackSortJoin {
  /** How many joined rows a call sorts as: one per feedback row of the call, or one (none joined). */
  count(row: number): number;
  /** `read()` with the call's k-th feedback row joined (with none when the call has no feedback). */
  joined<T>(row: number, k: number, read: () => T): T;
}
