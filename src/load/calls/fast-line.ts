/**
 * The fast path of one calls.jsonl line, from its bytes to a stored row: a byte scan that
 * validates the line and reads its fields without building the JSON parts (or the worker
 * thread's prescan of the same bytes), then storeCallParts. The slow path (JSON.parse and
 * parseCallRecord, in the fixture loader) takes every line this one declines.
 */
import { STORED_RELATION, type CallTable } from '../../store/call-table.ts';
import type { Store } from '../../store/store.ts';
import { SCREENED, type OneShotGate } from './one-shot-gate.ts';
import { storeCallParts } from './parts-body.ts';
import { SAME, SAME_WIDTH } from './same-values.ts';
import { CallLinePrescan, fastCallRecord, forgetBlockStrings, partByteSpans, scannedCallRecord } from './scanned-call.ts';

const linePrescan = new CallLinePrescan();
const partSpans = new Int32Array(8);

/**
 * Stores the calls line `buf[start, end)` when the fast path takes it, and says whether it did
 * (false: take the slow path, which either stores the same row or names the line's problem).
 * `prescan`: the line's prescan from the worker thread, in `slot`. DuplicateCallError for an
 * id already stored. With a one-shot `gate`, a line it does not admit is taken (true) but not
 * stored; `line` is its number.
 */
export function storeFastCallLine(store: Store, buf: Buffer, start: number, end: number, prescan?: CallLinePrescan, slot = 0, gate?: OneShotGate, line = 0): boolean {
  if (gate !== undefined) {
    // Rows the gate leaves out are judged from the scan alone, their strings never made; on the
    // scanning thread when it judged them (prescan.screened).
    const screened = prescan?.screened;
    if (screened) {
      const verdict = screened.verdicts[slot];
      if (verdict === SCREENED.SLOW) return false;
      const idHashes = prescan!.idHashes!;
      if (!gate.screened(verdict, idHashes[2 * slot], idHashes[2 * slot + 1], prescan!, slot, buf, start, end, line)) return true;
    } else {
      const p = prescan ?? (linePrescan.prescan(buf, start, end, 0) ? linePrescan : null);
      if (p === null) return false;
      const judged = gate.screen(p, prescan ? slot : 0, buf, start, end, line);
      if (!judged.taken) return false;
      if (!judged.store) return true;
      if (!prescan) slot = 0;
      prescan = p;
    }
  }
  const scanned = prescan ? scannedCallRecord(prescan, slot, buf) : fastCallRecord(linePrescan, buf, start, end);
  if (scanned === null) return false;
  // Only the four JSON parts are stored (storeCallParts): their spans come from the same scan.
  const spans = partByteSpans(prescan ?? linePrescan, slot, 0, partSpans);
  // The id's hash from the scanning thread, where it made one: the id string is not hashed here.
  const idHashes = prescan?.idHashes;
  const table = store.projectForWrite(scanned.projectId).calls;
  const same = prescan?.sameAs;
  if (!same) {
    storeCallParts(table, scanned.record, plainView(buf), spans, scanned.derived, idHashes?.[2 * slot] ?? 0, idHashes?.[2 * slot + 1] ?? 0);
    return true;
  }
  // A parent (turn) id that is the id of an earlier line of the block is that line's own id
  // string (scannedCallRecord): when that line went into this table, no lookup is needed.
  if (buf !== tablesBuf) {
    tablesBuf = buf;
    tablesBySlot = [];
  }
  const parentLine = same[SAME_WIDTH * slot + SAME.parentId], turnLine = same[SAME_WIDTH * slot + SAME.turnId];
  const storedRelations =
    (parentLine >= 0 && tablesBySlot[parentLine] === table ? STORED_RELATION.parent : 0) | (turnLine >= 0 && tablesBySlot[turnLine] === table ? STORED_RELATION.turn : 0);
  storeCallParts(table, scanned.record, plainView(buf), spans, scanned.derived, idHashes![2 * slot], idHashes![2 * slot + 1], storedRelations);
  tablesBySlot[slot] = table;
  return true;
}

/** The block the tables below are for, and per slot the table its line was stored in (fast path). */
let tablesBuf: Buffer | null = null;
let tablesBySlot: Array<CallTable | undefined> = [];

/**
 * A plain Uint8Array over a Buffer's bytes, made once per buffer: copies out of it take a
 * subarray per part, which a Buffer makes far more slowly (its species constructor).
 */
function plainView(buf: Buffer): Uint8Array {
  if (buf !== lastBuffer) {
    lastBuffer = buf;
    lastView = new Uint8Array(buf.buffer, buf.byteOffset, buf.length);
  }
  return lastView;
}
let lastBuffer: Buffer | null = null;
let lastView: Uint8Array = new Uint8Array(0);

/** Drops the view of the last block stored (after a file: the block is not kept alive). */
export function forgetLastBlock(): void {
  lastBuffer = null;
  lastView = new Uint8Array(0);
  tablesBuf = null;
  tablesBySlot = [];
  forgetBlockStrings();
}
