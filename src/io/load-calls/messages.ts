/** What the parallel calls load's main thread and worker thread say to each other. */
import type { OneShotGateSpec, ScreenedLines } from '../../load/calls/one-shot-gate.ts';
import type { CallLinePrescanArrays } from '../../load/calls/scanned-call.ts';

export interface WorkerData {
  file: string;
  /** Bytes per block (a longer line gets a bigger block). */
  blockSize: number;
  /** Blocks sent but not yet acknowledged before the worker waits. */
  maxInFlight: number;
  /**
   * The worker sends a block unscanned (for the main thread to scan) when no more than this
   * many blocks are unacknowledged, that is when the main thread is about to run out of work;
   * -1: never.
   */
  handOverAt: number;
  /** One Int32: the blocks the main thread is done with (it adds 1 per block, then sends 'ack'). */
  blocksDone: SharedArrayBuffer;
  /** A one-shot gate's request: the worker judges each line for it (GateScreen) as it scans. */
  gateSpec: OneShotGateSpec | null;
  /** The main thread's IdHash seed: the ids this thread hashes must probe the main thread's index. */
  idHashSeed: [number, number];
}

/** The prescan of a block's lines (slot i is line i). */
export interface BlockPrescan {
  /** Per line: start and end in the block (before any byte order mark is skipped), 1-based line number. */
  starts: Int32Array;
  ends: Int32Array;
  lines: Int32Array;
  prescan: CallLinePrescanArrays;
  /** The gate's verdicts (with a gateSpec), else null. */
  screened: ScreenedLines | null;
  /** Per line i, `[2i]`, `[2i + 1]`: its id's IdHash ((0, 0): none), as CallLinePrescan.idHashes. */
  idHashes: Int32Array;
  /** Per line i, `[SAME_WIDTH * i + SAME.*]`: the earlier line with the same value, as CallLinePrescan.sameAs (null under a gate). */
  sameAs: Int32Array | null;
}

/** A block of whole lines, with their prescan or (handed over) without it. */
export interface BlockMessage {
  type: 'block';
  block: ArrayBuffer;
  /** The block's bytes are `[0, length)`. */
  length: number;
  /** The number of the block's first line. */
  firstLine: number;
  /** null: the main thread scans the block itself. */
  scan: BlockPrescan | null;
  /** File bytes read so far (compressed bytes for .gz), for progress. */
  bytesRead: number;
}

export type WorkerMessage =
  | BlockMessage
  | { type: 'end'; bytesRead: number }
  /** A read error; `code` as Node gives it (ENOENT, Z_DATA_ERROR...). */
  | { type: 'error'; message: string; code?: string };
