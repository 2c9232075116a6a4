/**
 * The rows of a call table in (started_at, id) ascending order: the default order of
 * /calls/stream_query, and reversed, the `started_at desc` order of the UI's pages. Pages and
 * OFFSETs then walk this index instead of sorting the matches. A second index holds the trace
 * roots alone (parent_id null) in the same order, so that the UI's roots pages touch only the
 * rows they return.
 *
 * Kept beside the table and brought up to date when asked for: appended rows are merged in
 * (appends in time order just extend it), a repeated start (which may move a row, or make it
 * a root or not) rebuilds it. Ids compare by code point (compareStrings), as the calls sort does.
 */
import { compareStrings } from '../core/ch/values.ts';
import type { CallTable } from './call-table.ts';

interface StartOrder {
  size: number;
  startVersion: number;
  /** Row numbers, ascending by (started_at, id). */
  rows: Int32Array;
  /** The trace roots among `rows`, in the same order; made on first use. */
  roots: Int32Array | null;
}

const orders = new WeakMap<CallTable, StartOrder>();

/** The (started_at, id) order of every row, or null when some row has no start time. */
export function startOrder(table: CallTable): Int32Array | null {
  return current(table)?.rows ?? null;
}

/** The trace roots (parent_id null) in (started_at, id) order, or null as startOrder. */
export function rootStartOrder(table: CallTable): Int32Array | null {
  const order = current(table);
  if (order === null) return null;
  order.roots ??= rootsOf(table, order.rows);
  return order.roots;
}

const deletionChecks = new WeakMap<CallTable, { version: number; size: number; any: boolean }>();

/**
 * Whether any row is soft-deleted. Deletes bump CallTable.version; the answer is kept per
 * version and size, so walks over a table without deletions can jump straight to an offset.
 */
export function hasDeletedRows(table: CallTable): boolean {
  const n = table.size;
  const seen = deletionChecks.get(table);
  if (seen && seen.version === table.version && seen.size === n) return seen.any;
  const deleted = table.deletedAt.data;
  let any = false;
  for (let r = 0; r < n && !any; r++) any = deleted[r] === deleted[r]; // not NaN
  deletionChecks.set(table, { version: table.version, size: n, any });
  return any;
}

/** Bytes the table's orders hold (memory reports). */
export function startOrderBytes(table: CallTable): number {
  const o = orders.get(table);
  return o === undefined ? 0 : o.rows.byteLength + (o.roots?.byteLength ?? 0);
}

function current(table: CallTable): StartOrder | null {
  const n = table.size;
  const started = table.startedAt.data;
  let cached = orders.get(table);
  if (cached && cached.size === n && cached.startVersion === table.startVersion) return cached;
  const appendOnly = cached !== undefined && cached.startVersion === table.startVersion;
  for (let r = appendOnly ? cached!.size : 0; r < n; r++) if (Number.isNaN(started[r])) return null;
  if (appendOnly) {
    // Only rows were added: they are sorted alone and merged into both indexes.
    const cmp = comparator(table);
    const added = sortedRows(table, cached!.size, n);
    const roots = cached!.roots === null ? null : merged(cached!.roots, rootsOf(table, added), cmp);
    cached = { size: n, startVersion: table.startVersion, rows: merged(cached!.rows, added, cmp), roots };
  } else {
    cached = { size: n, startVersion: table.startVersion, rows: sortedRows(table, 0, n), roots: null };
  }
  orders.set(table, cached);
  return cached;
}

/**
 * Both orders of a table as a load snapshot kept them (src/store/snapshot.ts), for a table
 * restored as it was when they were made: checked against the table's columns first (every row
 * once, start times ascending, equal starts in id order, the roots exactly the rows without a
 * parent), so that an order that is not the table's is refused, never used.
 */
export function adoptStartOrder(table: CallTable, rows: Int32Array, roots: Int32Array): boolean {
  const n = table.size;
  if (rows.length !== n || table.version !== 0 || table.startVersion !== 0) return false;
  const started = table.startedAt.data;
  const seen = new Uint8Array(n);
  let root = 0;
  for (let i = 0; i < n; i++) {
    const row = rows[i];
    if (!(row >= 0 && row < n) || seen[row] !== 0 || Number.isNaN(started[row])) return false;
    seen[row] = 1;
    if (i > 0) {
      const before = rows[i - 1];
      if (started[before] > started[row]) return false;
      if (started[before] === started[row] && compareStrings(table.id(before), table.id(row)) >= 0) return false;
    }
    if (table.isRoot(row) && (root >= roots.length || roots[root++] !== row)) return false;
  }
  if (root !== roots.length) return false;
  orders.set(table, { size: n, startVersion: 0, rows, roots });
  return true;
}

/** The trace roots among `rows`, order kept. */
function rootsOf(table: CallTable, rows: Int32Array): Int32Array {
  let m = 0;
  for (let i = 0; i < rows.length; i++) if (table.isRoot(rows[i])) m++;
  const roots = new Int32Array(m);
  for (let i = 0, j = 0; i < rows.length; i++) if (table.isRoot(rows[i])) roots[j++] = rows[i];
  return roots;
}

/** (started_at, id) comparison of two rows. */
function comparator(table: CallTable): (a: number, b: number) => number {
  const started = table.startedAt.data;
  return (a, b) => started[a] - started[b] || compareStrings(table.id(a), table.id(b));
}

/**
 * Rows from..to-1 in (started_at, id) order. When the start times are whole microseconds in a
 * narrow enough range, each row becomes one exact float key (start offset × count + index)
 * and a native numeric sort does the work (a comparator sort of a million rows is several
 * times slower); equal starts are then put in id order. Otherwise a comparator sort.
 */
function sortedRows(table: CallTable, from: number, to: number): Int32Array {
  const count = to - from;
  const out = new Int32Array(count);
  const started = table.startedAt.data;
  let min = Infinity, max = -Infinity, whole = true;
  for (let r = from; r < to; r++) {
    const s = started[r];
    if (s < min) min = s;
    if (s > max) max = s;
    if (!Number.isInteger(s)) whole = false;
  }
  if (count === 0) return out;
  if (!whole || (max - min + 1) * count > Number.MAX_SAFE_INTEGER) {
    for (let i = 0; i < count; i++) out[i] = from + i;
    return out.sort(comparator(table));
  }
  const keys = new Float64Array(count);
  for (let i = 0; i < count; i++) keys[i] = (started[from + i] - min) * count + i;
  keys.sort();
  for (let i = 0; i < count; i++) out[i] = from + (keys[i] % count);
  // Runs of equal start times are in row order: put them in id order.
  for (let i = 0; i < count; ) {
    let j = i + 1;
    while (j < count && started[out[j]] === started[out[i]]) j++;
    if (j - i > 1) out.subarray(i, j).sort((a, b) => compareStrings(table.id(a), table.id(b)));
    i = j;
  }
  return out;
}

/** Two ordered row lists merged into one. */
function merged(old: Int32Array, added: Int32Array, cmp: (a: number, b: number) => number): Int32Array {
  if (added.length === 0) return old;
  const out = new Int32Array(old.length + added.length);
  // The common case: everything new starts after everything old.
  if (old.length === 0 || cmp(old[old.length - 1], added[0]) < 0) {
    out.set(old);
    out.set(added, old.length);
    return out;
  }
  let i = 0, j = 0, k = 0;
  while (i < old.length && j < added.length) out[k++] = cmp(old[i], added[j]) <= 0 ? old[i++] : added[j++];
  while (i < old.length) out[k++] = old[i++];
  while (j < added.length) out[k++] = added[j++];
  return out;
}
