/**
 * A call table's id → row index: open addressing over one Int32Array keyed by a 64-bit hash of
 * the id's UTF-8 bytes (IdHash), in place of a Map of JS strings. A fixture load's scanning
 * thread hashes each line's id from its bytes (the main thread then only probes); a write
 * hashes the id string here. The table stores no key strings: a slot whose hash matches is
 * confirmed by comparing the row's own id (the table's id column), so two ids with the same
 * hash are told apart exactly (they sit in separate slots, each confirmed by its id).
 *
 * Why: the first lookup of a fresh id string in a million-entry Map made V8 hash the string and
 * chase its bucket chain (about 12% of a full load's main thread); a probe of this table is one
 * cache line, and its memory is 12 bytes a slot against a Map's entry, bucket and key.
 */

const encoder = new TextEncoder();

/**
 * The seed every IdHash of this thread starts from, random per process: call ids are chosen by
 * clients, and with a fixed hash a client could send ids that all land in one probe run (each
 * write then walks the run: quadratic). A worker that hashes for this thread (a load's scanning
 * thread) takes this thread's seed (idHashSeed() → useIdHashSeed()) before it hashes anything.
 */
let seed: readonly [number, number] = randomSeed();

function randomSeed(): [number, number] {
  const words = crypto.getRandomValues(new Uint32Array(2));
  return [words[0] | 0, words[1] | 0];
}

/** This thread's seed, for a worker whose hashes must agree with this thread's. */
export function idHashSeed(): [number, number] {
  return [seed[0], seed[1]];
}

/** Makes `parentSeed` this thread's seed (a worker, before its first IdHash is made). */
export function useIdHashSeed(parentSeed: readonly [number, number]): void {
  seed = [parentSeed[0] | 0, parentSeed[1] | 0];
}

/**
 * The 64-bit hash of an id's UTF-8 bytes as two 32-bit halves in `a`, `b` (never both 0: (0, 0)
 * means "not hashed" where a loader hands hashes over). The same bytes and seed give the same
 * halves on any thread; string() hashes a string's UTF-8 encoding, so it agrees with bytes() on
 * the bytes a string was decoded from.
 */
export class IdHash {
  a = 0;
  b = 0;
  private scratch = new Uint8Array(256);
  private readonly seedA: number;
  private readonly seedB: number;

  /** `from`: the seed (this thread's by default; a test passes its own). */
  constructor(from: readonly [number, number] = seed) {
    this.seedA = (0x811c9dc5 ^ from[0]) | 0;
    this.seedB = (0x9747b28c ^ from[1]) | 0;
  }

  /** Hashes `bytes[from, to)`. */
  bytes(bytes: Uint8Array, from: number, to: number): void {
    let a = this.seedA, b = this.seedB;
    for (let i = from; i < to; i++) {
      const c = bytes[i];
      a = Math.imul(a ^ c, 0x01000193);
      b = Math.imul(b ^ c, 0x5bd1e995);
      b ^= b >>> 15;
    }
    this.finish(a, b);
  }

  /** Hashes the UTF-8 encoding of `id` (an ASCII id is hashed from its characters, no encoding). */
  string(id: string): void {
    let a = this.seedA, b = this.seedB;
    for (let i = 0; i < id.length; i++) {
      const c = id.charCodeAt(i);
      if (c >= 0x80) return this.encoded(id);
      a = Math.imul(a ^ c, 0x01000193);
      b = Math.imul(b ^ c, 0x5bd1e995);
      b ^= b >>> 15;
    }
    this.finish(a, b);
  }

  private encoded(id: string): void {
    if (this.scratch.length < 3 * id.length) this.scratch = new Uint8Array(Math.max(3 * id.length, 2 * this.scratch.length));
    this.bytes(this.scratch, 0, encoder.encodeInto(id, this.scratch).written);
  }

  private finish(a: number, b: number): void {
    a ^= a >>> 16;
    a = Math.imul(a, 0x85ebca6b);
    a ^= a >>> 13;
    if (a === 0 && b === 0) b = 1;
    this.a = a;
    this.b = b;
  }
}

/** Slots per table at first (grown by doubling, kept at most half full). */
const INITIAL_SLOTS = 1024;

export class IdIndex {
  /** Per slot: hash halves a, b and row + 1 (0: an empty slot), side by side: one cache line per probe. */
  private slots = new Int32Array(3 * INITIAL_SLOTS);
  private mask = INITIAL_SLOTS - 1;
  private count = 0;
  /** The id hashed or looked up last and its hash: a load's check, then its add, hash once. */
  private lastId: string | null = null;
  private lastA = 0;
  private lastB = 0;

  /**
   * `idOf(row)`: the id stored at `row` (the table's id column), what a matching hash is
   * confirmed against. `hash`: how ids are hashed; a loader that hands in hashes made on
   * another thread uses the same IdHash (tests inject one that collides on purpose).
   */
  constructor(
    private readonly idOf: (row: number) => string,
    private readonly hash: IdHash = new IdHash(),
  ) {}

  get size(): number {
    return this.count;
  }

  get(id: string): number | undefined {
    this.hashOf(id);
    const row = this.find(id, this.lastA, this.lastB);
    return row < 0 ? undefined : row;
  }

  has(id: string): boolean {
    return this.get(id) !== undefined;
  }

  /**
   * The row of `id`, whose hash (IdHash) is `a`, `b` as a scanning thread computed it ((0, 0):
   * not computed, hashed here); -1 when it is not stored.
   */
  rowOfHashed(id: string, a: number, b: number): number {
    if (a === 0 && b === 0) this.hashOf(id);
    else {
      this.lastId = id;
      this.lastA = a;
      this.lastB = b;
    }
    return this.find(id, this.lastA, this.lastB);
  }

  /** Maps `id` to `row` (as Map.set: an id stored already moves to `row`). */
  set(id: string, row: number): void {
    this.hashOf(id);
    if (2 * (this.count + 1) > this.mask + 1) this.grow();
    const a = this.lastA, b = this.lastB, slots = this.slots;
    const at = this.slotOf(id, a, b);
    if (slots[at + 2] === 0) {
      slots[at] = a;
      slots[at + 1] = b;
      this.count++;
    }
    slots[at + 2] = row + 1;
  }

  /** [id, row] of every stored id, by row (a call table adds row r as its r-th id). */
  *[Symbol.iterator](): IterableIterator<[string, number]> {
    const rows: number[] = [];
    const slots = this.slots;
    for (let at = 2; at < slots.length; at += 3) if (slots[at] !== 0) rows.push(slots[at] - 1);
    rows.sort((x, y) => x - y);
    for (const row of rows) yield [this.idOf(row), row];
  }

  private find(id: string, a: number, b: number): number {
    return this.slots[this.slotOf(id, a, b) + 2] - 1;
  }

  /** Where `id` (hash `a`, `b`) is stored, else the empty slot its probe ends at: the index of the slot's first word. */
  private slotOf(id: string, a: number, b: number): number {
    const slots = this.slots, mask = this.mask;
    for (let s = a & mask; ; s = (s + 1) & mask) {
      const at = 3 * s;
      const stored = slots[at + 2];
      if (stored === 0 || (slots[at] === a && slots[at + 1] === b && this.idOf(stored - 1) === id)) return at;
    }
  }

  /** Leaves the hash of `id` in lastA/lastB (kept from the last call for the same id). */
  private hashOf(id: string): void {
    if (id === this.lastId) return;
    this.hash.string(id);
    this.lastId = id;
    this.lastA = this.hash.a;
    this.lastB = this.hash.b;
  }

  /** Twice the slots, every entry placed again by its stored hash (no id is read or hashed). */
  private grow(): void {
    const old = this.slots;
    const size = 2 * (this.mask + 1);
    const slots = new Int32Array(3 * size);
    const mask = size - 1;
    for (let at = 0; at < old.length; at += 3) {
      const stored = old[at + 2];
      if (stored === 0) continue;
      const a = old[at];
      let s = a & mask;
      while (slots[3 * s + 2] !== 0) s = (s + 1) & mask;
      slots[3 * s] = a;
      slots[3 * s + 1] = old[at + 1];
      slots[3 * s + 2] = stored;
    }
    this.slots = slots;
    this.mask = mask;
  }
}
