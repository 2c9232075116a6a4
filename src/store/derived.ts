/**
 * Caches derived from a store's data (per-path memos of dynamic call fields, storage sizes,
 * trace names, table sort readings): owned by the store, so their memory is per engine, and
 * each one bounded and able to say how many bytes it holds (the bench's heap figure counts
 * them, bench/heap.ts --mix lists them). The query layer defines the caches; the store only
 * keeps them by name, so it does not depend on the query code.
 */

/** One derived cache: droppable at any time (it is recomputed on demand) and measurable. */
export interface DerivedCache {
  /** Forgets everything: the state right after a load. */
  clear(): void;
  /** Approximate bytes held (typed arrays exactly, strings and map entries estimated). */
  bytes(): number;
}

export class DerivedCaches {
  private readonly caches = new Map<string, DerivedCache>();

  /** The cache registered under `name`, made on first use. */
  get<T extends DerivedCache>(name: string, make: () => T): T {
    let cache = this.caches.get(name) as T | undefined;
    if (cache === undefined) this.caches.set(name, (cache = make()));
    return cache;
  }

  /** Drops every cache's content (the bench's cold runs start here). */
  clear(): void {
    for (const c of this.caches.values()) c.clear();
  }

  /** Bytes held per cache name. */
  report(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const [name, c] of this.caches) out[name] = c.bytes();
    return out;
  }
}

/** Rough heap cost of a JS string (header plus one byte per Latin-1 character). */
export const stringBytes = (s: string): number => 16 + s.length;
