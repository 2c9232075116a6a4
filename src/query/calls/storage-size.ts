/**
 * `storage_size_bytes` and `total_storage_size_bytes` (semantics.md#calls-storage-size): the
 * summed JSON dump lengths of a call's parts, and of every live call of its trace.
 *
 * A size costs a body parse and a Python-style dump, and /calls/query_stats sums it over
 * whole projects, so sizes are memoised per call table in the store's derived caches (one
 * float per row, dropped when a row changes in place: CallTable.version).
 */
import { fromPlain } from '../../core/json/lossless.ts';
import { pyDumps } from '../../core/json/pyjson.ts';
import type { CallTable } from '../../store/call-table.ts';
import type { DerivedCache } from '../../store/derived.ts';
import type { Store } from '../../store/store.ts';

/** Python `len(json.dumps(x))` for a JSON value (ASCII output, so bytes = characters). */
const dumpLength = (v: unknown) => pyDumps(fromPlain(v)).length;

/** Per-row sizes already computed, per call table; appended rows start unknown (NaN). */
class StorageSizes implements DerivedCache {
  private readonly tables = new Map<CallTable, { version: number; sizes: Float64Array }>();

  /** The table's sizes array, at least `row + 1` long. */
  sizesOf(t: CallTable, row: number): Float64Array {
    let memo = this.tables.get(t);
    if (!memo || memo.version !== t.version) this.tables.set(t, (memo = { version: t.version, sizes: new Float64Array(0) }));
    if (memo.sizes.length <= row) {
      const grown = new Float64Array(Math.max(t.size, 2 * memo.sizes.length, row + 1)).fill(NaN);
      grown.set(memo.sizes);
      memo.sizes = grown;
    }
    return memo.sizes;
  }

  clear(): void {
    this.tables.clear();
  }

  bytes(): number {
    let n = 0;
    for (const m of this.tables.values()) n += m.sizes.byteLength;
    return n;
  }
}

const storageSizes = (store: Store) => store.derived.get('calls.storage_sizes', () => new StorageSizes());

/** A call's storage size: attributes and inputs, plus output and summary once it ended. */
export function storageSize(store: Store, t: CallTable, row: number): number {
  const sizes = storageSizes(store).sizesOf(t, row);
  if (!Number.isNaN(sizes[row])) return sizes[row];
  return (sizes[row] = computeStorageSize(t, row));
}

function computeStorageSize(t: CallTable, row: number): number {
  const b = t.body(row);
  let size = dumpLength(b.attributes) + dumpLength(b.inputs);
  if (!Number.isNaN(t.endedAt.data[row])) size += dumpLength(b.output) + dumpLength(b.summary ?? {});
  return size;
}

/** The summed storage size of the live calls of `row`'s trace. */
export function traceStorageSize(store: Store, t: CallTable, row: number): number {
  let total = 0;
  for (const r of t.byTrace.get(t.traceId(row)) ?? []) if (!t.isDeleted(r)) total += storageSize(store, t, r);
  return total;
}
