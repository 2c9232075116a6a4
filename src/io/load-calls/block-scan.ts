/**
 * The prescan of a block of whole calls lines: every non-blank line's place in the block, its
 * number, and its prescan (load/calls/line-scan.ts + load/calls/scanned-call.ts) in slot i for
 * line i (the JSON scan in WebAssembly, wasm-line-scan.ts, when the runtime has it). The
 * worker thread runs it on most blocks; the main thread runs the very same code on the blocks
 * the worker hands over unscanned (see worker.ts), so who scanned a block never changes what
 * is loaded.
 */
import { CallLinePrescan, type CallLinePrescanArrays } from '../../load/calls/scanned-call.ts';
import { hasBom } from '../utf8.ts';
import { forEachLineIn } from './line-blocks.ts';
import { WasmCallLinePrescan, wasmLineScanAvailable } from './wasm-line-scan.ts';

export class BlockScan {
  /** The JSON scan runs in WebAssembly where it can (wasm-line-scan.ts): the same results, faster. */
  readonly prescan: CallLinePrescan = wasmLineScanAvailable() ? new WasmCallLinePrescan(4096) : new CallLinePrescan(4096);
  /** Per slot: the line's start and end in the block (before any byte order mark is skipped), its 1-based number. */
  starts = new Int32Array(4096);
  ends = new Int32Array(4096);
  lines = new Int32Array(4096);
  /** Slots filled by the last scan. */
  count = 0;

  /**
   * Scans the lines of `block[0, length)`, the first numbered `firstLine`; returns the number of
   * the next block's first line.
   */
  scan(block: Uint8Array, length: number, firstLine: number): number {
    let count = 0;
    const prescan = this.prescan;
    if (prescan instanceof WasmCallLinePrescan) prescan.setBlock(block, length);
    const next = forEachLineIn(block, length, firstLine, (start, end, line) => {
      if (count === this.starts.length) this.grow(2 * count, count);
      // As loadLine does: a byte order mark opens line 1 and is not part of the record.
      const from = line === 1 && hasBom(block, start, end) ? start + 3 : start;
      prescan.prescan(block, from, end, count);
      this.starts[count] = start;
      this.ends[count] = end;
      this.lines[count] = line;
      count++;
    });
    this.count = count;
    return next;
  }

  /** Copies of the last scan's arrays, to be transferred to another thread. */
  copies(): { starts: Int32Array; ends: Int32Array; lines: Int32Array; prescan: CallLinePrescanArrays } {
    const n = this.count;
    return { starts: this.starts.slice(0, n), ends: this.ends.slice(0, n), lines: this.lines.slice(0, n), prescan: this.prescan.arrays(n) };
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
  }
}
