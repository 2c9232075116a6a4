/**
 * Growable typed-array columns. Hot scalar fields of calls live here so that scans and sorts
 * read contiguous memory instead of chasing object pointers.
 */

/** Growth by 1.5×: amortised O(1) appends with at most a third of a column unused. */
const grownCapacity = (n: number) => Math.max(1024, Math.ceil(n * 1.5));

export class Float64Column {
  data: Float64Array;
  length = 0;
  constructor(capacity = 1024) {
    this.data = new Float64Array(capacity);
  }
  push(v: number): void {
    if (this.length === this.data.length) {
      const next = new Float64Array(grownCapacity(this.data.length));
      next.set(this.data);
      this.data = next;
    }
    this.data[this.length++] = v;
  }
  /** The column's rows for a load snapshot: a view, not a copy. */
  image(): Float64Array {
    return this.data.subarray(0, this.length);
  }
  /** Fills this empty column with the first `n` values of `data` (a view of a snapshot's bytes; a push past them grows into a new array). */
  restore(data: Float64Array, n: number): void {
    if (this.length !== 0) throw new Error('a snapshot restores into an empty column only');
    this.data = data;
    this.length = n;
  }
}

export class Int32Column {
  data: Int32Array;
  length = 0;
  constructor(capacity = 1024) {
    this.data = new Int32Array(capacity);
  }
  push(v: number): void {
    if (this.length === this.data.length) {
      const next = new Int32Array(grownCapacity(this.data.length));
      next.set(this.data);
      this.data = next;
    }
    this.data[this.length++] = v;
  }
  /** The column's rows for a load snapshot: a view, not a copy. */
  image(): Int32Array {
    return this.data.subarray(0, this.length);
  }
  /** Fills this empty column with the first `n` values of `data` (a view of a snapshot's bytes; a push past them grows into a new array). */
  restore(data: Int32Array, n: number): void {
    if (this.length !== 0) throw new Error('a snapshot restores into an empty column only');
    this.data = data;
    this.length = n;
  }
}

/**
 * Append-only byte storage for the JSON text of call bodies: UTF-8 bytes packed into large
 * chunks, addressed by (chunk, offset, length). This costs exactly the bytes of the text, with
 * no per-string header, which is what keeps a million calls inside the memory budget.
 */
export class ByteArena {
  private chunks: Buffer[] = [];
  /** Plain views of the chunks, made on first use (chunkBytes). */
  private views: Array<Uint8Array | undefined> = [];
  private current: Buffer;
  /** Index of `current` in `chunks`. */
  private currentIndex = 0;
  private used = 0;
  // 1 MiB chunks: large enough that chunk headers do not matter, small enough that the
  // unused tail of the last chunk stays a few bytes per call.
  constructor(private readonly chunkSize = 1024 * 1024) {
    this.current = Buffer.allocUnsafe(chunkSize);
    this.chunks.push(this.current);
  }

  /** Stores bytes; returns a handle packed as [chunk index, offset]. */
  append(bytes: Uint8Array, start = 0, end = bytes.length): [number, number] {
    const len = end - start;
    if (this.used + len > this.current.length) {
      this.current = Buffer.allocUnsafe(Math.max(this.chunkSize, len));
      this.currentIndex = this.chunks.push(this.current) - 1;
      this.used = 0;
    }
    this.current.set(bytes.subarray(start, end), this.used);
    const handle: [number, number] = [this.currentIndex, this.used];
    this.used += len;
    return handle;
  }

  /**
   * Room for `length` more bytes in one chunk, for a caller that writes them in place: returns
   * a plain view of that chunk, to be written from `usedBytes` on and then `commit`ted (the
   * handle of the bytes is [`currentChunk`, the `usedBytes` before the write]).
   */
  reserve(length: number): Uint8Array {
    if (this.used + length > this.current.length) {
      this.current = Buffer.allocUnsafe(Math.max(this.chunkSize, length));
      this.currentIndex = this.chunks.push(this.current) - 1;
      this.used = 0;
    }
    return this.chunkBytes(this.currentIndex);
  }

  get currentChunk(): number {
    return this.currentIndex;
  }

  get usedBytes(): number {
    return this.used;
  }

  /** After reserve(): `length` bytes (no more than reserved) were written at usedBytes. */
  commit(length: number): void {
    this.used += length;
  }

  appendString(text: string): [number, number, number] {
    const bytes = Buffer.from(text, 'utf8');
    const [chunk, offset] = this.append(bytes);
    return [chunk, offset, bytes.length];
  }

  text(chunk: number, offset: number, length: number): string {
    return (this.chunks[chunk] ?? this.readChunk(chunk)).toString('utf8', offset, offset + length);
  }

  /**
   * The bytes of one chunk (read-only by contract), handles index into it: a plain Uint8Array
   * view, not the Buffer, so that byte copies out of it stay monomorphic (see JsonLineWriter).
   */
  chunkBytes(chunk: number): Uint8Array {
    let view = this.views[chunk];
    if (view === undefined) {
      const b = this.chunks[chunk] ?? this.readChunk(chunk);
      view = this.views[chunk] = new Uint8Array(b.buffer, b.byteOffset, b.length);
    }
    return view;
  }

  /** Bytes held, for memory reports. */
  get byteSize(): number {
    return this.chunks.reduce((n, c) => n + c.length, 0);
  }

  // Load snapshots (src/store/snapshot.ts): the chunks go to the file as raw bytes and come
  // back on first use, so a process that reads a few bodies reads a few chunks.

  /** Reads a chunk a snapshot restore left on disk (set by lazy()). */
  private chunkReader: ((chunk: number) => Buffer) | null = null;

  private readChunk(chunk: number): Buffer {
    if (this.chunkReader === null || chunk < 0 || chunk >= this.chunks.length) throw new RangeError(`no arena chunk ${chunk}`);
    return (this.chunks[chunk] = this.chunkReader(chunk));
  }

  get chunkCount(): number {
    return this.chunks.length;
  }

  /**
   * Puts `bytes` in place of a lazy chunk (a restore that reads single bodies into the chunk's
   * place, or the whole chunk later): the arena serves them from now on.
   */
  provide(chunk: number, bytes: Buffer): void {
    if (this.chunkReader === null || chunk < 0 || chunk >= this.chunks.length) throw new RangeError(`no lazy arena chunk ${chunk}`);
    this.chunks[chunk] = bytes;
    this.views[chunk] = undefined;
  }

  /** The first `end` bytes of chunk `i` (a view, not a copy). */
  usedChunkBytes(i: number, end: number): Uint8Array {
    return (this.chunks[i] ?? this.readChunk(i)).subarray(0, end);
  }

  /**
   * An arena of `count` chunks, each read by `read` on first use (and kept); appends go to new
   * chunks after them. Until read, a chunk costs nothing (byteSize counts the chunks held).
   */
  static lazy(count: number, read: (chunk: number) => Buffer): ByteArena {
    const arena = new ByteArena();
    if (count === 0) return arena;
    arena.chunks = new Array<Buffer>(count);
    arena.chunkReader = read;
    arena.current = Buffer.alloc(0);
    arena.used = 0;
    return arena;
  }
}

/**
 * The strings of a load snapshot (src/store/snapshot.ts): one encoded text and the offsets of
 * each string in it (in characters of the text, string k is text[offsets[k], offsets[k+1])).
 * A string is made when first asked for and kept, so a restored table that reads a hundred
 * rows makes a few hundred strings, not millions; the same number always gives the same
 * string object (shared, as a load shares repeated ids).
 */
export class StringTable {
  private readonly made: Array<string | undefined>;
  /** utf16le: offsets count UTF-16 units, two bytes each; latin1: one byte each. */
  private readonly unitBytes: number;
  /** utf8 text cannot be sliced by character offsets: it is decoded whole on first use. */
  private decoded: string | null = null;

  constructor(
    private readonly bytes: Buffer,
    readonly offsets: Int32Array,
    private readonly encoding: 'latin1' | 'utf8' | 'utf16le',
  ) {
    this.made = new Array<string | undefined>(offsets.length - 1);
    this.unitBytes = encoding === 'utf16le' ? 2 : 1;
  }

  get count(): number {
    return this.offsets.length - 1;
  }

  /** String number `k` (0 <= k < count, checked by the caller). */
  get(k: number): string {
    const s = this.made[k];
    return s !== undefined ? s : this.make(k);
  }

  /** String number `k`, or null for -1 (a nullable column's null). */
  nullable(k: number): string | null {
    return k === -1 ? null : this.get(k);
  }

  private make(k: number): string {
    const from = this.offsets[k], to = this.offsets[k + 1];
    let s: string;
    if (this.encoding === 'utf8') {
      this.decoded ??= this.bytes.toString('utf8');
      s = this.decoded.slice(from, to);
    } else s = this.bytes.toString(this.encoding, from * this.unitBytes, to * this.unitBytes);
    this.made[k] = s;
    return s;
  }
}

/** Interns repeated strings (op names, trace ids, users) so each distinct value is stored once. */
export class Interner {
  private readonly ids = new Map<string, number>();
  readonly values: string[] = [];
  id(value: string): number {
    let id = this.ids.get(value);
    if (id === undefined) {
      id = this.values.length;
      this.values.push(value);
      this.ids.set(value, id);
    }
    return id;
  }
  lookup(value: string): number | undefined {
    return this.ids.get(value);
  }
}

/**
 * A column that is null in most rows (display names, exceptions, run ids, refs): only the
 * non-null cells are stored, so a null costs nothing instead of an array slot per row.
 */
export class SparseColumn<T> {
  private cells = new Map<number, T>();
  /** One bit per row: set when the row has a cell. Most reads are of null cells, and a bit
   * test is far cheaper than a lookup in a large map. */
  private bits = new Uint32Array(32);

  get(row: number): T | null {
    const word = row >>> 5;
    if (word >= this.bits.length || ((this.bits[word] >>> (row & 31)) & 1) === 0) return null;
    return this.cells.get(row) ?? (this.restored === null ? null : this.restoredCell(row));
  }

  set(row: number, value: T | null): void {
    if (this.restored !== null) this.materialize();
    if (value === null) {
      const word = row >>> 5;
      if (word < this.bits.length) this.bits[word] &= ~(1 << (row & 31));
      this.cells.delete(row);
    } else {
      this.init(row, value);
    }
  }

  /** The first value of a new row: nothing to remove, so a null costs nothing. */
  init(row: number, value: T | null): void {
    if (value === null) return;
    if (this.restored !== null) this.materialize();
    const word = row >>> 5;
    if (word >= this.bits.length) {
      const grown = new Uint32Array(Math.max(word + 1, Math.ceil(this.bits.length * 1.5)));
      grown.set(this.bits);
      this.bits = grown;
    }
    this.bits[word] |= 1 << (row & 31);
    this.cells.set(row, value);
  }

  /** The non-null cells, [row, value] (load snapshots write them; restore() reads them back). */
  entries(): IterableIterator<[number, T]> {
    if (this.restored !== null) this.materialize();
    return this.cells.entries();
  }

  /**
   * Cells a snapshot restore handed over and not yet read: rows ascending, the k-th value made
   * by value(k) when its row is first read. A column nobody reads costs only its bits.
   */
  private restored: { rows: Int32Array; value: (k: number) => T } | null = null;

  /** Fills an empty column with the cells of a snapshot: `rows` ascending, `value(k)` the k-th. */
  restore(rows: Int32Array, value: (k: number) => T): void {
    if (this.cells.size !== 0 || this.restored !== null) throw new Error('restore() fills an empty column only');
    let last = -1;
    for (let k = 0; k < rows.length; k++) {
      if (rows[k] <= last) throw new RangeError('restored rows must ascend');
      last = rows[k];
    }
    const words = (last >>> 5) + 1;
    if (words > this.bits.length) this.bits = new Uint32Array(Math.max(words, Math.ceil(this.bits.length * 1.5)));
    const bits = this.bits;
    for (let k = 0; k < rows.length; k++) bits[rows[k] >>> 5] |= 1 << (rows[k] & 31);
    if (rows.length > 0) this.restored = { rows, value };
  }

  private restoredCell(row: number): T | null {
    const { rows, value } = this.restored!;
    let lo = 0, hi = rows.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if (rows[mid] < row) lo = mid + 1;
      else if (rows[mid] > row) hi = mid - 1;
      else {
        const v = value(mid);
        this.cells.set(row, v);
        return v;
      }
    }
    return null;
  }

  /** Every restored cell into the map, in row order (before any change or a full read). */
  private materialize(): void {
    const { rows, value } = this.restored!;
    this.restored = null;
    if (this.cells.size === 0) {
      for (let k = 0; k < rows.length; k++) this.cells.set(rows[k], value(k));
      return;
    }
    // Some cells were read already: keep those objects, fill the rest in row order.
    const read = this.cells;
    this.cells = new Map();
    for (let k = 0; k < rows.length; k++) this.cells.set(rows[k], read.get(rows[k]) ?? value(k));
  }
}

/**
 * key → rows, ascending by insertion. Most keys (a parent with one child, a one-call trace)
 * hold a single row, which is stored as a bare number instead of a one-element array: that
 * saves an array object per key, a large share of the per-call index overhead.
 */
export class MultiIndex<K> {
  private readonly map = new Map<K, number | number[]>();

  get size(): number {
    return this.built().size;
  }

  get(key: K): readonly number[] | undefined {
    const v = this.built().get(key);
    return v === undefined ? undefined : typeof v === 'number' ? [v] : v;
  }

  add(key: K, row: number): void {
    const v = this.built().get(key);
    if (v === undefined) this.map.set(key, row);
    else if (typeof v === 'number') this.map.set(key, [v, row]);
    else v.push(row);
  }

  remove(key: K, row: number): void {
    const v = this.built().get(key);
    if (v === undefined) return;
    if (typeof v === 'number') {
      if (v === row) this.map.delete(key);
      return;
    }
    const i = v.indexOf(row);
    if (i >= 0) v.splice(i, 1);
    if (v.length === 1) this.map.set(key, v[0]);
  }

  keys(): IterableIterator<K> {
    return this.built().keys();
  }

  /** Set by deferred(): fills the index on its first use. */
  private pendingBuild: ((index: MultiIndex<K>) => void) | null = null;

  private built(): Map<K, number | number[]> {
    const build = this.pendingBuild;
    if (build !== null) {
      this.pendingBuild = null;
      build(this);
    }
    return this.map;
  }

  /**
   * An index filled by `build` (through add()) when first used: after a snapshot restore, an
   * index no query asks for is never built.
   */
  static deferred<K>(build: (index: MultiIndex<K>) => void): MultiIndex<K> {
    const index = new MultiIndex<K>();
    index.pendingBuild = build;
    return index;
  }
}

/** Appends `row` to the list stored under `key`, creating it. */
export function addToIndex<K>(index: Map<K, number[]>, key: K, row: number): void {
  const rows = index.get(key);
  if (rows) rows.push(row);
  else index.set(key, [row]);
}

export function removeFromIndex<K>(index: Map<K, number[]>, key: K, row: number): void {
  const rows = index.get(key);
  if (!rows) return;
  const i = rows.indexOf(row);
  if (i >= 0) rows.splice(i, 1);
  if (rows.length === 0) index.delete(key);
}
