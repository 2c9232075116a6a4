/**
 * Packing a stream of byte chunks into blocks that hold whole lines, so that a block can be
 * handed to another thread (its ArrayBuffer transferred, not copied) and every line in it read
 * in place. A block ends after its last `\n`; the partial line after it starts the next block.
 * A line longer than a block grows the block.
 */

const NEWLINE = 0x0a;

export class LineBlocks {
  private block: Buffer;
  private used = 0;

  /** `onBlock(block, length)`: `block[0, length)` holds whole lines; the block is the receiver's. */
  constructor(
    private readonly size: number,
    private readonly onBlock: (block: Buffer, length: number) => void,
  ) {
    this.block = Buffer.allocUnsafeSlow(size);
  }

  push(chunk: Uint8Array): void {
    let from = 0;
    while (from < chunk.length) {
      if (this.used === this.block.length) this.cut();
      const n = Math.min(chunk.length - from, this.block.length - this.used);
      this.block.set(chunk.subarray(from, from + n), this.used);
      this.used += n;
      from += n;
    }
  }

  /** Sends the whole lines held so far (at the end of the input, or before reporting a read error). */
  flushWholeLines(): void {
    const nl = this.used === 0 ? -1 : this.block.lastIndexOf(NEWLINE, this.used - 1);
    if (nl >= 0) this.send(nl + 1);
  }

  /** At the end of the input: everything left, the last line without its `\n` included. */
  finish(): void {
    if (this.used > 0) this.send(this.used);
  }

  /** The block is full: send its whole lines, or grow it when one line fills it. */
  private cut(): void {
    const nl = this.block.lastIndexOf(NEWLINE, this.used - 1);
    if (nl >= 0) {
      this.send(nl + 1);
      return;
    }
    const bigger = Buffer.allocUnsafeSlow(this.block.length * 2);
    this.block.copy(bigger, 0, 0, this.used);
    this.block = bigger;
  }

  private send(length: number): void {
    const full = this.block, used = this.used;
    this.block = Buffer.allocUnsafeSlow(Math.max(this.size, 2 * (used - length)));
    full.copy(this.block, 0, length, used);
    this.used = used - length;
    this.onBlock(full, length);
  }
}

/**
 * The non-blank lines of `block[0, length)` as forEachLineOf sees them: split at `\n`, one
 * trailing `\r` dropped, lines of only spaces and tabs skipped (but counted). `firstLine` is
 * the number of the block's first line; returns the number of the next block's first line.
 */
export function forEachLineIn(block: Uint8Array, length: number, firstLine: number, visit: (start: number, end: number, line: number) => void): number {
  let line = firstLine;
  let start = 0;
  while (start < length) {
    let nl = block.indexOf(NEWLINE, start);
    if (nl < 0 || nl >= length) nl = length;
    let end = nl;
    if (end > start && block[end - 1] === 0x0d) end--;
    for (let i = start; i < end; i++) {
      const c = block[i];
      if (c !== 0x20 && c !== 0x09) {
        visit(start, end, line);
        break;
      }
    }
    line++;
    start = nl + 1;
  }
  return line;
}
