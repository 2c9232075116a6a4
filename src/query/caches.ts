/**
 * Every derived cache the queries keep for a store (per-path memos of dynamic call fields,
 * storage sizes, trace names, table positions and sort readings: Store.derived), dropped at
 * once: what a query meets right after a fresh load. The benchmark's cold runs start here.
 * Other engines' caches are untouched.
 */
import type { Store } from '../store/store.ts';

export function dropQueryCaches(store: Store): void {
  store.derived.clear();
}
