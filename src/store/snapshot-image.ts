/**
 * The shape of a CallTable in a load snapshot (src/store/snapshot.ts): flat typed arrays,
 * strings as numbers into the snapshot's string list (-1: null). A module of its own, importing
 * nothing, so that call-table.ts and snapshot.ts do not import each other.
 */
export interface SparseNumbers {
  rows: Int32Array;
  values: Float64Array;
}
export interface SparseStrings {
  rows: Int32Array;
  /** String numbers. */
  values: Int32Array;
}
export interface SparseStringLists {
  rows: Int32Array;
  /** Length of each row's list; the lists follow each other in `values`. */
  counts: Int32Array;
  values: Int32Array;
}

/** A CallTable as flat arrays; strings are numbers into the snapshot's string list (-1: null). */
export interface CallTableImage {
  size: number;
  ids: Int32Array;
  traceIds: Int32Array;
  parentIds: Int32Array;
  threadIds: Int32Array;
  turnIds: Int32Array;
  userIds: Int32Array;
  opNames: Int32Array;
  opIndex: Int32Array;
  startedAt: Float64Array;
  endedAt: Float64Array;
  deletedAt: Float64Array;
  statusErrorCount: Float64Array;
  runStep: SparseNumbers;
  runStepEnd: SparseNumbers;
  displayNames: SparseStrings;
  exceptions: SparseStrings;
  runIds: SparseStrings;
  inputRefs: SparseStringLists;
  outputRefs: SparseStringLists;
  bodyChunk: Int32Array;
  bodyOffset: Int32Array;
  bodyLength: Int32Array;
  arenaChunks: Uint8Array[];
  /** Where each row's parts sit in its body: 8 uint16 per row, as CallTable keeps them. */
  partSpans: Uint16Array;
  /** Per row: which of partSpans' facts are known (CallTable's flags). */
  partSpansKnown: Uint8Array;
  /** CRC-32 of each arena chunk (checked when the chunk is read); filled by the encoder. */
  arenaChecksums: Int32Array;
  /** CRC-32 of each row's body (checked when the body alone is read); filled by the encoder. */
  bodyChecksums: Int32Array;
  /** The (started_at, id) order of the rows and its trace roots (src/store/start-order.ts); empty: none. */
  startOrder: Int32Array;
  rootOrder: Int32Array;
}

