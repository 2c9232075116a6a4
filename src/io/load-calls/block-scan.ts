/**
 * The prescan of a block of whole calls lines: every non-blank line's place in the block, its
 * number, and its prescan (load/calls/line-scan.ts + load/calls/scanned-call.ts) in slot i for
 * line i (the JSON scan in WebAssembly, wasm-line-scan.ts, when the runtime has it). The
 * worker thread runs it on most blocks; the main thread runs the very same code on the blocks
 * the worker hands over unscanned (see worker.ts), so who scanned a block never changes what
 * is loaded.
 */
import { SCREENED, type GateScreen, type ScreenedLines } from '../../load/calls/one-shot-gate.ts';
import { FIELD, FIELD_COUNT, KIND } from '../../load/calls/line-scan.ts';
import { SAME_WIDTH, SameValues } from '../../load/calls/same-values.ts';
import { CallLinePrescan } from '../../load/calls/scanned-call.ts';
import { IdHash } from '../../store/id-index.ts';
import { hasBom } from '../utf8.ts';
import { forEachLineIn } from './line-blocks.ts';
import type { BlockPrescan } from './messages.ts';
import { WasmCallLinePrescan, wasmLineScanAvailable } from './wasm-line-scan.ts';

export class BlockScan {
  /** The JSON scan runs in WebAssembly where it can (wasm-line-scan.ts): the same results, faster. */
  readonly prescan: CallLinePrescan = wasmLineScanAvailable() ? new WasmCallLinePrescan(4096) : new CallLinePrescan(4096);
  /** Per slot: the line's start and end in the block (before any byte order mark is skipped), its 1-based number. */
  starts = new Int32Array(4096);
  ends = new Int32Array(4096);
  lines = new Int32Array(4096);
  /** Per slot i, `[2i]`, `[2i + 1]`: the IdHash of the line's plain id ((0, 0): none), so the storing thread does not hash it. */
  idHashes = new Int32Array(2 * 4096);
  private readonly idHash = new IdHash();
  /** Per slot i, `[SAME_WIDTH * i + SAME.*]`: the earlier line of the block with the same op name, trace, user id, or whose id is the parent or turn id (-1: none; same-values.ts). */
  sameAs = new Int32Array(SAME_WIDTH * 4096);
  private readonly sameValues = new SameValues();
  /** Slots filled by the last scan. */
  count = 0;
  /** With a one-shot gate's screen: its verdict on each line (one-shot-gate.ts), made here while the line's bytes are in this core's cache. */
  private readonly screen: GateScreen | null;
  private screened: ScreenedLines | null;

  constructor(screen: GateScreen | null = null) {
    this.screen = screen;
    this.screened = screen === null ? null : { verdicts: new Uint8Array(4096) };
    this.prescan.screened = this.screened;
    this.prescan.idHashes = this.idHashes;
    this.prescan.sameAs = screen === null ? this.sameAs : null;
  }

  /**
   * Scans the lines of `block[0, length)`, the first numbered `firstLine`; returns the number of
   * the next block's first line.
   */
  scan(block: Uint8Array, length: number, firstLine: number): number {
    let count = 0;
    const prescan = this.prescan, screen = this.screen;
    if (prescan instanceof WasmCallLinePrescan) prescan.setBlock(block, length);
    this.sameValues.clear();
    const next = forEachLineIn(block, length, firstLine, (start, end, line) => {
      if (count === this.starts.length) this.grow(2 * count, count);
      // As loadLine does: a byte order mark opens line 1 and is not part of the record.
      const from = line === 1 && hasBom(block, start, end) ? start + 3 : start;
      // Under a gate, the refs only of the rows it may store (none of the others' is ever read).
      const ok = prescan.prescan(block, from, end, count, screen === null);
      let screenHashed = false;
      if (screen !== null) {
        const screened = this.screened!;
        const verdict = screen.screen(prescan, count, block as Buffer);
        if (verdict === SCREENED.CANDIDATE) prescan.readRefs(block, count);
        screened.verdicts[count] = verdict;
        // A line the fast path takes had its id (escaped or not) hashed by the screen, with the
        // same IdHash: the gate and the store read that one hash.
        screenHashed = verdict !== SCREENED.SLOW;
      }
      const idAt = count * FIELD_COUNT + FIELD.id;
      if (screenHashed) {
        this.idHashes[2 * count] = screen!.idHash.a;
        this.idHashes[2 * count + 1] = screen!.idHash.b;
      } else if (ok && prescan.kinds[idAt] === KIND.STRING) {
        // Here, while the line's bytes are in this core's cache.
        this.idHash.bytes(block, prescan.starts[idAt] + 1, prescan.ends[idAt] - 1);
        this.idHashes[2 * count] = this.idHash.a;
        this.idHashes[2 * count + 1] = this.idHash.b;
      } else this.idHashes[2 * count] = this.idHashes[2 * count + 1] = 0;
      // Not under a gate: it stores few of the lines, and its main thread scans blocks too.
      if (screen === null) this.sameValues.line(block, count, ok, prescan.kinds, prescan.starts, prescan.ends, this.sameAs);
      this.starts[count] = start;
      this.ends[count] = end;
      this.lines[count] = line;
      count++;
    });
    this.count = count;
    return next;
  }

  /** Copies of the last scan's arrays, to be transferred to another thread. */
  copies(): BlockPrescan {
    const n = this.count, s = this.screened;
    const screened = s === null ? null : { verdicts: s.verdicts.slice(0, n) };
    return { starts: this.starts.slice(0, n), ends: this.ends.slice(0, n), lines: this.lines.slice(0, n), prescan: this.prescan.arrays(n), screened, idHashes: this.idHashes.slice(0, 2 * n), sameAs: this.screen === null ? this.sameAs.slice(0, SAME_WIDTH * n) : null };
  }

  private grow(capacity: number, keep: number): void {
    this.prescan.reserve(capacity, keep);
    const grow = (a: Int32Array) => {
      const next = new Int32Array(capacity);
      next.set(a);
      return next;
    };
    this.starts = grow(this.starts);
    this.ends = grow(this.ends);
    this.lines = grow(this.lines);
    const idHashes = new Int32Array(2 * capacity);
    idHashes.set(this.idHashes);
    this.prescan.idHashes = this.idHashes = idHashes;
    const sameAs = new Int32Array(SAME_WIDTH * capacity);
    sameAs.set(this.sameAs);
    this.sameAs = sameAs;
    if (this.screen === null) this.prescan.sameAs = sameAs;
    const s = this.screened;
    if (s !== null) {
      const verdicts = new Uint8Array(capacity);
      verdicts.set(s.verdicts);
      s.verdicts = verdicts;
    }
  }
}
