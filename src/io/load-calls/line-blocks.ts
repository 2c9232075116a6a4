/**
 * Packing a stream of byte chunks into blocks that hold whole lines, so that a block can be
 * handed to another thread (its ArrayBuffer transferred, not copied) and every line in it read
 * in place. A block ends after its last `\n`; the partial line after it starts the next block.
 * A line longer than a block grows the block.
 */
import type { FileHandle } from 'node:fs/promises';

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
 * LineBlocks over a plain file, read straight into the blocks: the same blocks as LineBlocks
 * fed the file's bytes (a block is sent once full, cut after its last `\n`), without copying
 * every byte from a read chunk into a block. The read of the next block is under way while
 * `onBlock` handles the last one (awaited: the caller may hold the reading back there).
 * `onRead(n)` counts the bytes read. A read error rejects after the whole lines read before it
 * were sent.
 */
export async function readLineBlocks(
  file: FileHandle,
  size: number,
  onBlock: (block: Buffer, length: number) => void | Promise<void>,
  onRead: (bytes: number) => void = () => {},
): Promise<void> {
  let block = Buffer.allocUnsafeSlow(size);
  let used = 0;
  // A read's rejection is taken where it is awaited; marked handled so that one pending while
  // onBlock throws is not an unhandled rejection.
  const read = (at: number) => {
    const pending = file.read(block, at, block.length - at, null);
    pending.catch(() => {});
    return pending;
  };
  let reading = read(0);
  for (;;) {
    let bytesRead: number;
    try {
      ({ bytesRead } = await reading);
    } catch (e) {
      const nl = used === 0 ? -1 : block.lastIndexOf(NEWLINE, used - 1);
      if (nl >= 0) await onBlock(block, nl + 1);
      throw e;
    }
    if (bytesRead === 0) break;
    onRead(bytesRead);
    used += bytesRead;
    if (used < block.length) {
      reading = read(used);
      continue;
    }
    // Full: its whole lines go, the partial line after them starts the next block (or, when one
    // line fills it, the block grows), as LineBlocks.cut does.
    const nl = block.lastIndexOf(NEWLINE, used - 1);
    if (nl < 0) {
      const bigger = Buffer.allocUnsafeSlow(block.length * 2);
      block.copy(bigger, 0, 0, used);
      block = bigger;
      reading = read(used);
      continue;
    }
    const full = block, length = nl + 1;
    block = Buffer.allocUnsafeSlow(Math.max(size, 2 * (used - length)));
    full.copy(block, 0, length, used);
    used -= length;
    reading = read(used);
    await onBlock(full, length);
  }
  if (used > 0) await onBlock(block, used);
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
