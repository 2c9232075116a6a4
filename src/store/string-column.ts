/**
 * A per-row string column (ids, trace ids, parent ids, ...) with two backings:
 *   - an array of strings, as a fixture load or a write builds it;
 *   - string numbers into a load snapshot's string table (src/store/snapshot.ts), as a restore
 *     leaves it: get(row) makes that row's string alone, and the first write (push or set)
 *     turns the column into the array, so a query that reads a page of a million-row table
 *     makes a page of strings.
 * Callers only see get/push/set/size: there is no array to index by mistake (reading a
 * restored column whole by accident is what the backing hides).
 */
import type { StringTable } from './columns.ts';

/** Number of a null in the string numbers of a snapshot. */
const NULL_STRING = -1;

export class StringColumn<T extends string | null = string> {
  /** The array backing (null while the snapshot backing holds the rows). */
  private values: T[] | null = [];
  /** The snapshot backing: string numbers (NULL_STRING: null) into `strings`. */
  private numbers: Int32Array | null = null;
  private strings: StringTable | null = null;

  /** `nullable`: whether the column holds nulls (a restore accepts the null number only then). */
  constructor(readonly nullable: T extends null ? true : false) {}

  /** Which backing holds the rows: the array, or the snapshot's string numbers. */
  get backing(): 'array' | 'snapshot' {
    return this.values !== null ? 'array' : 'snapshot';
  }

  get size(): number {
    return this.values !== null ? this.values.length : this.numbers!.length;
  }

  get(row: number): T {
    const values = this.values;
    return values !== null ? values[row] : (this.strings!.nullable(this.numbers![row]) as T);
  }

  /** Whether a row's cell is null, without making its string. */
  isNull(row: number): boolean {
    const values = this.values;
    return values !== null ? values[row] === null : this.numbers![row] === NULL_STRING;
  }

  push(value: T): void {
    (this.values ?? this.asArray()).push(value);
  }

  set(row: number, value: T): void {
    (this.values ?? this.asArray())[row] = value;
  }

  /** The snapshot backing turned into the array (every row's string made, in row order). */
  private asArray(): T[] {
    const numbers = this.numbers!, strings = this.strings!;
    const out = new Array<T>(numbers.length);
    for (let r = 0; r < numbers.length; r++) out[r] = strings.nullable(numbers[r]) as T;
    this.numbers = this.strings = null;
    return (this.values = out);
  }

  /** The column as string numbers for a load snapshot: `str` numbers a string, null is -1. */
  image(str: (s: string) => number): Int32Array {
    const n = this.size;
    const out = new Int32Array(n);
    for (let r = 0; r < n; r++) {
      const s = this.get(r);
      out[r] = s === null ? NULL_STRING : str(s);
    }
    return out;
  }

  /**
   * Fills this empty column with the `rows` numbers into `strings` (the snapshot backing): each number is
   * checked here, once, in a typed loop; strings are made on use.
   */
  restore(numbers: Int32Array, strings: StringTable, rows: number): void {
    if (this.size !== 0) throw new Error('a snapshot restores into an empty column only');
    if (numbers.length !== rows) throw new RangeError(`snapshot: a string column holds ${numbers.length} rows, not ${rows}`);
    const least = this.nullable ? NULL_STRING : 0, count = strings.count;
    for (let r = 0; r < numbers.length; r++) {
      const i = numbers[r];
      if (i < least || i >= count) throw new RangeError(`snapshot: string number ${i} out of range in row ${r}`);
    }
    this.values = null;
    this.numbers = numbers;
    this.strings = strings;
  }
}
