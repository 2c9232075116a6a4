/**
 * Repeated values within a block of calls lines, found by the scanning thread so that the
 * storing thread makes each repeated string once per block instead of once per line: per line
 * and per repeated field (SAME), the first earlier line of the block whose value has the same
 * bytes. A parent or turn id is matched against the ids of earlier lines: the storing thread
 * then takes that line's own id string, and when that line went into the same table, skips the
 * id lookup that would have found that very string (CallTable's callIdString).
 *
 * Only plain (unescaped), non-empty strings are matched; equal bytes decode to equal strings,
 * so a reused string is the string the line would have made.
 */
import { FIELD, FIELD_COUNT, KIND } from './line-scan.ts';

// Field numbers as constants (FIELD is built at run time: a property read per use in a hot loop).
const OP_NAME = FIELD.op_name, TRACE_ID = FIELD.trace_id, SVC_USER_ID = FIELD.svc_user_id, WB_USER_ID = FIELD.wb_user_id;
const PARENT_ID = FIELD.parent_id, TURN_ID = FIELD.turn_id, ID = FIELD.id;
const PLAIN = KIND.STRING, ABSENT = KIND.ABSENT;

/** The repeated fields, in their order per line in `sameAs` (SAME_WIDTH entries a line). */
export const SAME = { opName: 0, traceId: 1, userId: 2, parentId: 3, turnId: 4 } as const; // line() writes these as literals
export const SAME_WIDTH = 5;

/**
 * One dictionary of the values of a block: per entry, the field slot (line * FIELD_COUNT +
 * field) holding its first occurrence, in open addressing keyed by a hash of its bytes.
 * Cleared per block.
 */
class BlockValues {
  private hashes = new Int32Array(1 << 13);
  /** Per table slot: the entry's field slot + 1 (0: empty). */
  private fields = new Int32Array(1 << 13);
  private mask = (1 << 13) - 1;
  private count = 0;

  clear(): void {
    if (this.count > 0) this.fields.fill(0);
    this.count = 0;
  }

  /**
   * The field slot of an entry whose value's bytes equal `buf[from, to)` (hash `h`), else -1;
   * `addAt` >= 0: added as the entry for those bytes when there is none.
   */
  find(buf: Uint8Array, from: number, to: number, h: number, starts: Int32Array, ends: Int32Array, addAt: number): number {
    const hashes = this.hashes, fields = this.fields, mask = this.mask;
    let s = h & mask;
    for (; ; s = (s + 1) & mask) {
      const stored = fields[s];
      if (stored === 0) break;
      if (hashes[s] !== h) continue;
      const at = stored - 1;
      const f = starts[at] + 1, t = ends[at] - 1;
      if (t - f !== to - from) continue;
      let i = 0;
      while (i < t - f && buf[f + i] === buf[from + i]) i++;
      if (i === t - f) return at;
    }
    if (addAt >= 0) {
      hashes[s] = h;
      fields[s] = addAt + 1;
      if (2 * ++this.count > mask) this.grow();
    }
    return -1;
  }

  private grow(): void {
    const oldHashes = this.hashes, oldFields = this.fields;
    const size = 2 * (this.mask + 1);
    this.hashes = new Int32Array(size);
    this.fields = new Int32Array(size);
    this.mask = size - 1;
    for (let i = 0; i < oldFields.length; i++) {
      if (oldFields[i] === 0) continue;
      let s = oldHashes[i] & this.mask;
      while (this.fields[s] !== 0) s = (s + 1) & this.mask;
      this.hashes[s] = oldHashes[i];
      this.fields[s] = oldFields[i];
    }
  }
}

/**
 * A 32-bit hash of `buf[from, to)` from its length and its last 16 bytes (ids, trace ids and op
 * names differ in their tails; it only places entries: a match is confirmed byte by byte).
 */
function hashOf(buf: Uint8Array, from: number, to: number): number {
  let h = Math.imul(0x811c9dc5 ^ (to - from), 0x01000193);
  for (let i = Math.max(from, to - 16); i < to; i++) h = Math.imul(h ^ buf[i], 0x01000193);
  return h ^ (h >>> 15);
}

/**
 * Fills `sameAs` for the lines of a block, one line at a time in slot order (the scanning
 * thread's BlockScan; the same on whichever thread scans the block).
 */
export class SameValues {
  private readonly ops = new BlockValues();
  private readonly traces = new BlockValues();
  private readonly users = new BlockValues();
  private readonly ids = new BlockValues();

  /** Before a block's first line. */
  clear(): void {
    this.ops.clear();
    this.traces.clear();
    this.users.clear();
    this.ids.clear();
  }

  /**
   * The entries of line `slot` (prescanned into `kinds`/`starts`/`ends`; `ok`: the prescan took
   * it) in `sameAs[SAME_WIDTH * slot + SAME.*]`: the earlier line of this block with the same
   * value (for parent and turn ids: whose id is that value), -1 for none.
   */
  line(buf: Uint8Array, slot: number, ok: boolean, kinds: Uint8Array, starts: Int32Array, ends: Int32Array, sameAs: Int32Array): void {
    const out = SAME_WIDTH * slot;
    if (!ok) {
      for (let k = 0; k < SAME_WIDTH; k++) sameAs[out + k] = -1;
      return;
    }
    const base = slot * FIELD_COUNT;
    sameAs[out] = this.value(this.ops, buf, base + OP_NAME, kinds, starts, ends, true);
    sameAs[out + 1] = this.value(this.traces, buf, base + TRACE_ID, kinds, starts, ends, true);
    // The user field as the record reads it: either spelling, none when the line gives both.
    const svc = base + SVC_USER_ID, wb = base + WB_USER_ID;
    const userAt = kinds[svc] === ABSENT ? wb : kinds[wb] === ABSENT ? svc : -1;
    sameAs[out + 2] = userAt < 0 ? -1 : this.value(this.users, buf, userAt, kinds, starts, ends, true);
    // Parent and turn ids before this line's own id is added: a line naming itself finds no earlier line.
    sameAs[out + 3] = this.value(this.ids, buf, base + PARENT_ID, kinds, starts, ends, false);
    sameAs[out + 4] = this.value(this.ids, buf, base + TURN_ID, kinds, starts, ends, false);
    this.value(this.ids, buf, base + ID, kinds, starts, ends, true);
  }

  /** The line (slot) of the first earlier value with the bytes of field slot `at`, or -1 (`add`: this one is added when new). */
  private value(values: BlockValues, buf: Uint8Array, at: number, kinds: Uint8Array, starts: Int32Array, ends: Int32Array, add: boolean): number {
    if (kinds[at] !== PLAIN) return -1;
    const from = starts[at] + 1, to = ends[at] - 1;
    if (to <= from) return -1; // an empty string: a required field refuses it, so it is never shared
    const found = values.find(buf, from, to, hashOf(buf, from, to), starts, ends, add ? at : -1);
    return found < 0 ? -1 : (found / FIELD_COUNT) | 0;
  }
}
