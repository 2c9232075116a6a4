/**
 * The rows of a call table in (started_at, id) ascending order: the default order of
 * /calls/stream_query, and reversed, the `started_at desc` order of the UI's pages. Pages and
 * OFFSETs then walk this index instead of sorting the matches.
 *
 * Kept beside the table and brought up to date when asked for: appended rows are merged in
 * (appends in time order just extend it), a repeated start that may move a row rebuilds it.
 * Ids compare by code point (compareStrings), as the calls sort does.
 */
import { compareStrings } from '../query/ch/values.ts';
import type { CallTable } from './call-table.ts';

interface StartOrder {
  size: number;
  startVersion: number;
  /** Row numbers, ascending by (started_at, id). */
  rows: Int32Array;
}

const orders = new WeakMap<CallTable, StartOrder>();

/** The (started_at, id) order of every row, or null when some row has no start time. */
export function startOrder(table: CallTable): Int32Array | null {
  const n = table.size;
  const started = table.startedAt.data;
  const ids = table.ids;
  const cmp = (a: number, b: number) => started[a] - started[b] || compareStrings(ids[a], ids[b]);
  let cached = orders.get(table);
  if (cached && cached.size === n && cached.startVersion === table.startVersion) return cached.rows;
  for (let r = cached && cached.startVersion === table.startVersion ? cached.size : 0; r < n; r++) if (Number.isNaN(started[r])) return null;
  let rows: Int32Array;
  if (cached && cached.startVersion === table.startVersion && cached.size < n) {
    rows = mergeAppended(cached.rows, cached.size, n, cmp);
  } else {
    rows = new Int32Array(n);
    for (let r = 0; r < n; r++) rows[r] = r;
    // Calls mostly arrive in time order: the merge sort finds the runs and is near linear.
    rows.sort(cmp);
  }
  cached = { size: n, startVersion: table.startVersion, rows };
  orders.set(table, cached);
  return rows;
}

/** `old` (rows 0..from-1, ordered) with rows from..to-1 merged in. */
function mergeAppended(old: Int32Array, from: number, to: number, cmp: (a: number, b: number) => number): Int32Array {
  const added = new Int32Array(to - from);
  for (let i = 0; i < added.length; i++) added[i] = from + i;
  added.sort(cmp);
  const out = new Int32Array(to);
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
