/**
 * The member walk of a path's first use, batched into WebAssembly. The first query on a new
 * JSON path walks every row's body part once (MemberSpans.walk, path-extract.ts); in
 * JavaScript that walk was most of the query (about 3 ns a byte, the part read to its end since
 * a repeated key's last occurrence wins). Here the parts of a run of rows are copied into the
 * memory of one WebAssembly module (wasm/path-walk.ts, SIMD) and walked there in one call; a
 * row's spans are then read back into the MemberSpans, so callers see exactly what
 * MemberSpans.walk gives. Rows the module hands back (an escaped key, a truncated member) and
 * every row when the runtime has no WebAssembly SIMD are walked by MemberSpans itself.
 *
 * Rows are batched ahead of the one asked for (a scan asks for rows in order); the batch grows
 * while its rows are asked for and shrinks when they are not, down to walking rows one by one,
 * so a query that reads a few scattered rows walks little more than those.
 */
import { setFlagsFromString } from 'node:v8';
import { MemberSpans, type PathStep } from './path-extract.ts';
import { PATH_WALK_WASM_BASE64 } from './path-walk-wasm.ts';

/** The bytes of `row` and where its JSON value sits in them (`span[0..2)`), or null when it has none. */
export type PartSource = (row: number, span: Int32Array) => Uint8Array | null;

// The module's memory map (wasm/path-walk.ts).
const KEY_COUNT = 0, KEY_LEN = 16, KEY_AT = 48, KEY_BYTES = 128, KEY_BYTES_END = 1024;
const ROWS = 4096, RESULTS = 12288, STATUS = 77824, INPUT = 81920;
const MAX_KEYS = 8, MAX_ROWS = 1024;
/** Readable bytes the module needs past the input's end (it loads 16 at a time). */
const SLACK = 16;
const PAGE = 65536;
/** A batch stops taking rows past this many input bytes (a longer part goes alone). */
const BATCH_BYTES = 1 << 20;
/** Parts at most this far apart are copied as one run, the bytes between them too. */
const RUN_GAP = 4096;
/** Batch sizes: the first, and below the least rows are walked one by one in JavaScript. */
const FIRST_BATCH = 64, LEAST_BATCH = 16;

/** The little of the WebAssembly API used here (the compiler's ES lib has no declarations for it). */
interface WasmApi {
  validate(bytes: Uint8Array): boolean;
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: unknown };
}
interface WalkExports {
  memory: { readonly buffer: ArrayBuffer; grow(pages: number): number };
  walk(rows: number): void;
  readings(rows: number, out: number): void;
}

// A table's first sort: where the module writes the readings of a batch (wasm/path-walk.ts
// `readings`), past the largest input a RowTextWalk batch writes (INPUT + BATCH_BYTES) and its slack.
const READINGS = INPUT + BATCH_BYTES + 64;
const READ_FROM = 8192, READ_TO = 12288, READ_PRESENT = 16384, READ_TIER = 17408, READ_KIND = 18432, READ_ASCII = 19456, READINGS_BYTES = 20480;

/** The one instance of the module (null: this runtime cannot run it), its memory's views. */
let walker: WalkExports | null | undefined;
let memoryBytes = new Uint8Array(0);
let memoryWords = new Int32Array(0);
let enabled = true;
/**
 * Which batch the module's input area holds now: every walked batch takes the next number (a
 * number, not the walk itself, so that no table stays reachable from here after its query).
 */
let batchSerial = 0;

function views(w: WalkExports): void {
  memoryBytes = new Uint8Array(w.memory.buffer);
  memoryWords = new Int32Array(w.memory.buffer);
}

function instance(): WalkExports | null {
  if (walker !== undefined) return walker;
  const wasm = (globalThis as unknown as { WebAssembly?: WasmApi }).WebAssembly;
  const bytes = Uint8Array.from(atob(PATH_WALK_WASM_BASE64), (c) => c.charCodeAt(0));
  if (wasm === undefined || !wasm.validate(bytes)) return (walker = null);
  // Compiled by the optimizing compiler at once, not first by the baseline one (whose
  // background tier-up a busy machine can starve; see io/load-calls/wasm-line-scan.ts).
  setFlagsFromString('--no-liftoff');
  setFlagsFromString('--no-wasm-lazy-compilation');
  let module: object;
  try {
    module = new wasm.Module(bytes);
  } finally {
    setFlagsFromString('--liftoff');
    setFlagsFromString('--wasm-lazy-compilation');
  }
  walker = new wasm.Instance(module, {}).exports as WalkExports;
  views(walker);
  return walker;
}

/** The module's memory grown to at least `bytes`. */
function ensureMemory(w: WalkExports, bytes: number): void {
  if (bytes <= memoryBytes.length) return;
  w.memory.grow(Math.ceil((bytes - memoryBytes.length) / PAGE));
  views(w);
}

/**
 * Writes `keys` into the module (its one instance is shared: for every batch) and walks rows
 * 0..rows-1 there; returns the batch's number (batchSerial while its input stays there).
 */
function walkBatch(w: WalkExports, keys: readonly PathStep[], rows: number): number {
  memoryWords[KEY_COUNT >> 2] = keys.length;
  let keyAt = KEY_BYTES;
  for (let k = 0; k < keys.length; k++) {
    const key = keys[k].keyBytes!;
    memoryWords[(KEY_LEN >> 2) + k] = key.length;
    memoryWords[(KEY_AT >> 2) + k] = keyAt;
    memoryBytes.set(key, keyAt);
    keyAt += key.length;
  }
  w.walk(rows);
  return ++batchSerial;
}

/** Whether `keys` fit the module: at most 8, their bytes in its key area. */
function keysFit(keys: readonly PathStep[]): boolean {
  let bytes = 0;
  for (const k of keys) bytes += k.keyBytes!.length;
  return keys.length <= MAX_KEYS && KEY_BYTES + bytes <= KEY_BYTES_END;
}

/**
 * Whether first uses walk in WebAssembly (the default where the runtime can) or in JavaScript
 * (`TQ_PATH_WALK=js` in the CLI: to compare the two, or to rule the module out).
 */
export function usePathWalkWasm(on: boolean): void {
  enabled = on;
}

/** The bytes of the module's memory (it never shrinks: bounded by what a batch copies in). */
export function pathWalkMemoryBytes(): number {
  return memoryBytes.length;
}

/** Whether a RowMemberWalk made now would walk in WebAssembly. */
export function pathWalkWasmAvailable(): boolean {
  return enabled && instance() !== null;
}

/**
 * MemberSpans over the rows of a table: `walk(row)` leaves in `members` the spans of the wanted
 * keys in that row's part, as `members.walk` over the part would.
 */
export class RowMemberWalk {
  readonly members = new MemberSpans();
  private readonly span = new Int32Array(2);
  /** Whether the keys fit the module (at most 8, their bytes in its key area). */
  private keysFit = true;
  // The current batch: rows [first, first + count), each row's bytes (null: no part), where
  // its part sits in them, and what the module found (offsets into its memory: add `shift`).
  private first = 0;
  private count = 0;
  private used = 0;
  private size = FIRST_BATCH;
  private lastRow = -1;
  /** The number of this walk's current batch (walkBatch): while it is batchSerial, the module holds its input. */
  private batch = 0;
  /** Rows asked one after another while walking in JavaScript (to batch again). */
  private streak = 0;
  private readonly bytesOf: Array<Uint8Array | null> = new Array<Uint8Array | null>(MAX_ROWS).fill(null);
  private readonly from = new Int32Array(MAX_ROWS);
  private readonly to = new Int32Array(MAX_ROWS);
  private readonly shift = new Int32Array(MAX_ROWS);
  private readonly status = new Uint8Array(MAX_ROWS);
  private results = new Int32Array(0);
  /** Rows of the batch whose part is longer than a batch: walked by MemberSpans, not copied. */
  private readonly alone = new Uint8Array(MAX_ROWS);

  constructor(
    private readonly partOf: PartSource,
    private readonly rowCount: () => number,
  ) {}

  /** The index of `step`'s key (a key step), added if new (MemberSpans.add). */
  add(step: PathStep): number {
    const before = this.members.wanted.length;
    const k = this.members.add(step);
    if (this.members.wanted.length !== before) {
      this.count = 0; // the batch was walked for fewer keys
      this.keysFit = keysFit(this.members.wanted);
    }
    return k;
  }

  /**
   * Walks `row`'s part: the bytes its values sit in (the stored bytes, or the module's copy of
   * them, valid until the next walk), the spans in `members`; null when the row has no part.
   */
  walk(row: number): Uint8Array | null {
    const at = row - this.first;
    if (at >= 0 && at < this.count) {
      if (row !== this.lastRow) this.used++;
      this.lastRow = row;
      return this.fromBatch(at);
    }
    if (this.count > 0) {
      // The batch is done with: grow the next one when most of it was asked for, else shrink it.
      this.size = 2 * this.used >= this.count ? Math.min(2 * this.size, MAX_ROWS) : this.size >> 2;
      this.count = 0;
    } else if (this.size < LEAST_BATCH) {
      if (row !== this.lastRow) this.streak = row > this.lastRow && row - this.lastRow <= 4 ? this.streak + 1 : 0;
      if (this.streak >= 2 * LEAST_BATCH) this.size = LEAST_BATCH;
    }
    this.lastRow = row;
    if (this.size < LEAST_BATCH || !this.keysFit || !pathWalkWasmAvailable()) return this.walkHere(row);
    this.fill(row);
    this.used = 1;
    return this.fromBatch(0);
  }

  /** MemberSpans.walk over `row`'s part. */
  private walkHere(row: number): Uint8Array | null {
    const bytes = this.partOf(row, this.span);
    if (bytes !== null) this.members.walk(bytes, this.span[0], this.span[1]);
    return bytes;
  }

  /**
   * Copies the parts of rows from `row` on into the module and walks them there. Parts that
   * follow one another in the same bytes (an arena stores bodies in row order) are copied as one
   * run, the bytes between them included: one long copy streams through memory, where a copy
   * per part paid a cache miss and a view per row.
   */
  private fill(row: number): void {
    const w = instance()!;
    const keys = this.members.wanted, nKeys = keys.length;
    const n = Math.min(this.size, this.rowCount() - row);
    const ROW = ROWS >> 2; // (memoryWords is read afresh: a growth replaces it)
    // The run being gathered: runBytes[runFrom, runTo) goes to runAt in the module.
    let runBytes: Uint8Array | null = null, runFrom = 0, runTo = 0, runAt = INPUT;
    let r = 0;
    for (; r < n; r++) {
      const bytes = this.partOf(row + r, this.span);
      this.bytesOf[r] = bytes;
      if (bytes === null) {
        memoryWords[ROW + 2 * r] = memoryWords[ROW + 2 * r + 1] = runAt;
        continue;
      }
      const from = this.span[0], to = this.span[1];
      this.from[r] = from;
      this.to[r] = to;
      this.alone[r] = to - from > BATCH_BYTES ? 1 : 0;
      if (this.alone[r] === 1) {
        // Not copied: the module's memory stays within a batch's bytes.
        memoryWords[ROW + 2 * r] = memoryWords[ROW + 2 * r + 1] = INPUT;
        continue;
      }
      if (bytes === runBytes && from >= runTo && from - runTo <= RUN_GAP) {
        if (r > 0 && runAt + (to - runFrom) > INPUT + BATCH_BYTES) break; // the next batch starts here
        runTo = to;
      } else {
        const next = runAt + (runTo - runFrom);
        if (r > 0 && next + (to - from) > INPUT + BATCH_BYTES) break;
        if (runBytes !== null) this.copyRun(w, runBytes, runFrom, runTo, runAt);
        runBytes = bytes;
        runFrom = from;
        runTo = to;
        runAt = next;
      }
      const at = runAt + (from - runFrom);
      memoryWords[ROW + 2 * r] = at;
      memoryWords[ROW + 2 * r + 1] = at + (to - from);
      this.shift[r] = from - at;
    }
    if (runBytes !== null) this.copyRun(w, runBytes, runFrom, runTo, runAt);
    this.batch = walkBatch(w, keys, r);
    const words = 2 * nKeys * r;
    if (this.results.length < words) this.results = new Int32Array(2 * MAX_KEYS * MAX_ROWS);
    this.results.set(memoryWords.subarray(RESULTS >> 2, (RESULTS >> 2) + words));
    this.status.set(memoryBytes.subarray(STATUS, STATUS + r));
    for (let k = 0; k < r; k++) this.status[k] |= this.alone[k];
    this.first = row;
    this.count = r;
  }

  /** `bytes[from, to)` into the module at `at` (grown to hold it and the slack after it). */
  private copyRun(w: WalkExports, bytes: Uint8Array, from: number, to: number, at: number): void {
    ensureMemory(w, at + (to - from) + SLACK);
    memoryBytes.set(bytes.subarray(from, to), at);
  }

  /** Row `at` of the batch into `members`. */
  private fromBatch(at: number): Uint8Array | null {
    const bytes = this.bytesOf[at];
    if (bytes === null) return null;
    const members = this.members;
    if (this.status[at] !== 0) {
      members.walk(bytes, this.from[at], this.to[at]);
      return bytes;
    }
    members.forget();
    const start = members.start, end = members.end, results = this.results;
    const n = members.wanted.length;
    // While the module still holds this batch's copy, the spans point into it: its bytes were
    // just copied and walked, so the reads that follow (a number, a string) find them in cache,
    // where the stored chunk's bytes are a cache miss per row. Once another walk's batch has
    // replaced it (two body parts read row by row), they point into the stored bytes.
    const inModule = this.batch === batchSerial;
    const shift = inModule ? 0 : this.shift[at];
    for (let k = 0, i = 2 * n * at; k < n; k++, i += 2) {
      const s = results[i];
      start[k] = s < 0 ? -1 : s + shift;
      end[k] = results[i + 1] + shift;
    }
    return inModule ? memoryBytes : bytes;
  }
}

/** Node's native UTF-8 write into a byte array at an offset (no view made), where there is one. */
const utf8Write = typeof Buffer === 'function' ? (Buffer.prototype.utf8Write as ((this: Uint8Array, text: string, offset: number, length: number) => number) | undefined) : undefined;
const encoder = new TextEncoder();

/**
 * One key's member walk over rows stored as JS strings (table rows), in order: a batch of rows
 * is encoded to UTF-8 straight into the module's memory and walked there at once (how: fill(),
 * per subclass). `walk(i)` returns the bytes the row now sits in (the module's memory, valid
 * until the next walk of another batch, or a scratch), its span in `rowFrom`/`rowTo`, whether
 * it is all ASCII in `rowAscii`, and the key's value span in `members`, as MemberSpans.walk over
 * the row's UTF-8 gives it.
 */
abstract class RowTextWalk {
  readonly members = new MemberSpans();
  rowFrom = 0;
  rowTo = 0;
  rowAscii = false;
  protected first = 0;
  protected count = 0;
  /** Per row of the batch: its span in the module's memory, and whether it is all ASCII. */
  protected readonly rowAt = new Int32Array(MAX_ROWS);
  protected readonly rowEnd = new Int32Array(MAX_ROWS);
  protected readonly ascii = new Uint8Array(MAX_ROWS);
  /** Rows of the batch longer than a batch: encoded into the scratch and walked by MemberSpans. */
  protected readonly alone = new Uint8Array(MAX_ROWS);
  private readonly wasm: boolean;
  private scratch = new Uint8Array(1024);

  constructor(step: PathStep) {
    this.members.add(step);
    this.wasm = pathWalkWasmAvailable() && keysFit(this.members.wanted) && utf8Write !== undefined;
  }

  /** Row i's text (null: a row not walked here, never asked for). */
  protected abstract textAt(i: number): string | null;
  /** Encodes the rows of a batch from `i` into the module (rowAt, rowEnd, ascii, alone, count) and walks them there. */
  protected abstract fill(i: number): void;

  walk(i: number): Uint8Array {
    if (!this.wasm) return this.walkHere(i);
    if (i < this.first || i >= this.first + this.count) this.fill(i);
    const k = i - this.first;
    if (this.alone[k] === 1) return this.walkHere(i);
    const from = this.rowAt[k], to = this.rowEnd[k];
    this.rowFrom = from;
    this.rowTo = to;
    this.rowAscii = this.ascii[k] === 1;
    // The module's memory and the scratch are rewritten for every batch and row: MemberSpans must
    // not take a walk of the same span of them for the last one it made.
    this.members.forget();
    if (memoryBytes[STATUS + k] !== 0) this.members.walk(memoryBytes, from, to);
    else {
      this.members.start[0] = memoryWords[(RESULTS >> 2) + 2 * k];
      this.members.end[0] = memoryWords[(RESULTS >> 2) + 2 * k + 1];
    }
    return memoryBytes;
  }

  /**
   * For a table's first sort of a one-key path: walks the batch of rows from `i` (as walk(i)
   * does) and has the module read, where no JavaScript is needed, each row's sort readings
   * (wasm/path-walk.ts `readings`: row-sort.ts setSortColumnsOfSpan's for an absent key, an
   * object or array, a literal, a plain string that casts to no float, in an all-ASCII row),
   * written at rows i.. of the given columns; `readHere[k]` is 1 for the rows of the batch read
   * so, 0 for the others (their entries hold 0, and -1 in `textFrom`: read them through walk()).
   * Returns the batch's row count, or 0 when the walk is not in WebAssembly (nothing written).
   */
  readBatch(i: number, present: Uint8Array, tier: Uint8Array, prefix: Float64Array, textFrom: Int32Array, textTo: Int32Array): number {
    if (!this.wasm) return 0;
    const w = instance()!;
    this.fill(i);
    const r = this.count;
    ensureMemory(w, READINGS + READINGS_BYTES);
    memoryBytes.set(this.ascii.subarray(0, r), READINGS + READ_ASCII);
    w.readings(r, READINGS);
    const buffer = w.memory.buffer;
    prefix.set(new Float64Array(buffer, READINGS, r), i);
    textFrom.set(new Int32Array(buffer, READINGS + READ_FROM, r), i);
    textTo.set(new Int32Array(buffer, READINGS + READ_TO, r), i);
    present.set(memoryBytes.subarray(READINGS + READ_PRESENT, READINGS + READ_PRESENT + r), i);
    tier.set(memoryBytes.subarray(READINGS + READ_TIER, READINGS + READ_TIER + r), i);
    this.readHere.set(memoryBytes.subarray(READINGS + READ_KIND, READINGS + READ_KIND + r));
    return r;
  }

  /** Per row of the last readBatch: 1 where the module read its sort readings. */
  readonly readHere = new Uint8Array(MAX_ROWS);

  /** The row encoded into a scratch and walked by MemberSpans. */
  private walkHere(i: number): Uint8Array {
    const text = this.textAt(i)!;
    // UTF-8 takes at most 3 bytes per UTF-16 unit.
    if (this.scratch.length <= 3 * text.length) this.scratch = new Uint8Array(3 * text.length + 1024);
    const length = encoder.encodeInto(text, this.scratch).written;
    this.rowFrom = 0;
    this.rowTo = length;
    this.rowAscii = length === text.length;
    this.members.forget();
    this.members.walk(this.scratch, 0, length);
    return this.scratch;
  }

  /** Row `r` of the batch is `text` (not null), encoded at `input`; returns the input's new end. */
  protected encodeRow(w: WalkExports, r: number, text: string, input: number): number {
    ensureMemory(w, input + 3 * text.length + SLACK);
    const length = utf8Write!.call(memoryBytes, text, input, 3 * text.length);
    this.rowAt[r] = input;
    this.rowEnd[r] = input + length;
    this.ascii[r] = length === text.length ? 1 : 0;
    return input + length;
  }

  /** The batch's `r` rows handed to the module and walked. */
  protected walkFilled(w: WalkExports, i: number, r: number): void {
    for (let k = 0; k < r; k++) {
      memoryWords[(ROWS >> 2) + 2 * k] = this.rowAt[k];
      memoryWords[(ROWS >> 2) + 2 * k + 1] = this.rowEnd[k];
    }
    walkBatch(w, this.members.wanted, r);
    this.first = i;
    this.count = r;
  }
}

/** RowTextWalk over rows each its own string: each row encoded into the module on its own. */
export class TextMemberWalk extends RowTextWalk {
  /** `textOf(i)`: row i's text, or null for a row not walked here (it is never asked for). */
  constructor(
    step: PathStep,
    private readonly textOf: (i: number) => string | null,
    private readonly rowCount: number,
  ) {
    super(step);
  }

  protected textAt(i: number): string | null {
    return this.textOf(i);
  }

  protected fill(i: number): void {
    const w = instance()!;
    const n = Math.min(MAX_ROWS, this.rowCount - i);
    let input = INPUT, r = 0;
    for (; r < n; r++) {
      const text = this.textOf(i + r);
      this.alone[r] = text !== null && 3 * text.length > BATCH_BYTES ? 1 : 0;
      if (text === null || this.alone[r] === 1) {
        this.rowAt[r] = this.rowEnd[r] = input;
        this.ascii[r] = 0;
      } else {
        if (r > 0 && input + 3 * text.length > INPUT + BATCH_BYTES) break;
        input = this.encodeRow(w, r, text, input);
      }
    }
    this.walkFilled(w, i, r);
  }
}

/**
 * RowTextWalk over rows whose texts are slices of one string (a table's rows as written,
 * store/project.ts PackedRowTexts): rows that follow one another in that string are encoded with
 * one native write per run instead of one per row (a call per row was about half of a table's
 * first sort). A run that is all ASCII (as many bytes as code units) gives each row's bytes at
 * its offset in the run; a run that is not, and rows with no place in the string
 * (`from[i] < 0`), are encoded row by row.
 */
export class PackedTextMemberWalk extends RowTextWalk {
  /**
   * Row i's text is `packed.slice(from[i], to[i])` where `from[i] >= 0`, else `textOf(i)`
   * (null: a row not walked here, never asked for).
   */
  constructor(
    step: PathStep,
    private readonly packed: string,
    private readonly from: Int32Array,
    private readonly to: Int32Array,
    private readonly textOf: (i: number) => string | null,
    private readonly rowCount: number,
  ) {
    super(step);
  }

  protected textAt(i: number): string | null {
    return this.from[i] >= 0 ? this.packed.slice(this.from[i], this.to[i]) : this.textOf(i);
  }

  protected fill(i: number): void {
    const w = instance()!;
    const n = Math.min(MAX_ROWS, this.rowCount - i);
    const from = this.from, to = this.to, rowAt = this.rowAt, rowEnd = this.rowEnd, ascii = this.ascii, alone = this.alone;
    let input = INPUT, r = 0;
    while (r < n) {
      const f = from[i + r];
      if (f < 0 || 3 * (to[i + r] - f) > BATCH_BYTES) {
        // Not in the string, or longer than a batch: the row alone.
        const text = this.textAt(i + r);
        alone[r] = text !== null && 3 * text.length > BATCH_BYTES ? 1 : 0;
        if (text === null || alone[r] === 1) {
          rowAt[r] = rowEnd[r] = input;
          ascii[r] = 0;
        } else {
          if (r > 0 && input + 3 * text.length > INPUT + BATCH_BYTES) break;
          input = this.encodeRow(w, r, text, input);
        }
        r++;
        continue;
      }
      // The run of rows from r that follow one another in the string, within the batch's bytes.
      let e = r + 1, end = to[i + r];
      while (e < n && from[i + e] === end && 3 * (to[i + e] - f) <= BATCH_BYTES && input + 3 * (to[i + e] - f) <= INPUT + BATCH_BYTES) end = to[i + e++];
      if (r > 0 && input + 3 * (end - f) > INPUT + BATCH_BYTES) break;
      ensureMemory(w, input + 3 * (end - f) + SLACK);
      const length = utf8Write!.call(memoryBytes, this.packed.slice(f, end), input, 3 * (end - f));
      if (length === end - f) {
        // All ASCII: a byte per code unit, every row at its offset in the run.
        for (let k = r; k < e; k++) {
          rowAt[k] = input + (from[i + k] - f);
          rowEnd[k] = input + (to[i + k] - f);
          ascii[k] = 1;
          alone[k] = 0;
        }
        input += length;
      } else {
        // Not ASCII: each row again, on its own (over what the run wrote).
        for (let k = r; k < e; k++) {
          input = this.encodeRow(w, k, this.packed.slice(from[i + k], to[i + k]), input);
          alone[k] = 0;
        }
      }
      r = e;
    }
    this.walkFilled(w, i, r);
  }
}
