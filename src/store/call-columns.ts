import type { CallBodies } from './call-bodies.ts';
import type { Float64Column, Int32Column, Interner, SparseColumn } from './columns.ts';
import type { StringColumn } from './string-column.ts';

/** Every column of a CallTable by its name in a load snapshot's image (CallTableImage). */
export interface CallColumns {
  ids: StringColumn<string>;
  traceIds: StringColumn<string>;
  parentIds: StringColumn<string | null>;
  threadIds: StringColumn<string | null>;
  turnIds: StringColumn<string | null>;
  userIds: StringColumn<string | null>;
  opNames: Interner;
  opIndex: Int32Column;
  startedAt: Float64Column;
  endedAt: Float64Column;
  deletedAt: Float64Column;
  statusErrorCount: Float64Column;
  runStep: SparseColumn<number>;
  runStepEnd: SparseColumn<number>;
  displayNames: SparseColumn<string>;
  exceptions: SparseColumn<string>;
  runIds: SparseColumn<string>;
  inputRefs: SparseColumn<string[]>;
  outputRefs: SparseColumn<string[]>;
  bodies: CallBodies;
}
