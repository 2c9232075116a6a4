/** What the parallel calls load's main thread and worker thread say to each other. */
import type { CallLinePrescanArrays } from '../../load/scanned-call.ts';

export interface WorkerData {
  file: string;
  /** Bytes per block (a longer line gets a bigger block). */
  blockSize: number;
  /** Blocks sent but not yet acknowledged before the worker waits. */
  maxInFlight: number;
}

/** A block of whole lines and the prescan of each non-blank line (slot i is line i). */
export interface BlockMessage {
  type: 'block';
  block: ArrayBuffer;
  /** The block's bytes are `[0, length)`. */
  length: number;
  /** Per line: start and end in the block (before any byte order mark is skipped), 1-based line number. */
  starts: Int32Array;
  ends: Int32Array;
  lines: Int32Array;
  prescan: CallLinePrescanArrays;
  /** File bytes read so far (compressed bytes for .gz), for progress. */
  bytesRead: number;
}

export type WorkerMessage =
  | BlockMessage
  | { type: 'end'; bytesRead: number }
  /** A read error; `code` as Node gives it (ENOENT, Z_DATA_ERROR...). */
  | { type: 'error'; message: string; code?: string };
