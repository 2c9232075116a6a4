/**
 * The indexes of a call table (id → row, trace/parent/thread/turn/op → rows, turn calls per
 * thread) and its shared-string cache, each either built (a load or a write keeps it up to
 * date row by row) or built on first use over the rows a snapshot restored: a query that never
 * filters by thread never builds the thread index of a restored million-row table.
 */
import { addToIndex, type Int32Column, MultiIndex, type SparseColumn } from './columns.ts';
import { IdHash, IdIndex } from './id-index.ts';

interface CallIndexMaps {
  byId: IdIndex;
  byTrace: MultiIndex<string>;
  byParent: MultiIndex<string>;
  byThread: MultiIndex<string>;
  byTurn: MultiIndex<string>;
  byOp: MultiIndex<number>;
  /** Turn calls (id == turn_id) of each thread, in insertion order. */
  turnsByThread: Map<string, number[]>;
  /** One copy of each repeated id string (trace, thread, turn, parent, user, run ids, refs). */
  sharedStrings: Map<string, string>;
}

/** The columns the indexes are built from, read a row at a time (no column is made whole). */
export interface IndexedColumns {
  id(row: number): string;
  traceId(row: number): string;
  parentId(row: number): string | null;
  threadId(row: number): string | null;
  turnId(row: number): string | null;
  userId(row: number): string | null;
  readonly opIndex: Int32Column;
  readonly runIds: SparseColumn<string>;
  readonly inputRefs: SparseColumn<string[]>;
  readonly outputRefs: SparseColumn<string[]>;
}

type IndexName = keyof CallIndexMaps;
type MultiIndexName = 'byTrace' | 'byParent' | 'byThread' | 'byTurn' | 'byOp';

function newIndexes(columns: IndexedColumns, idHash: IdHash): CallIndexMaps {
  return { byId: new IdIndex((row) => columns.id(row), idHash), byTrace: new MultiIndex(), byParent: new MultiIndex(), byThread: new MultiIndex(), byTurn: new MultiIndex(), byOp: new MultiIndex(), turnsByThread: new Map(), sharedStrings: new Map() };
}

export class CallIndexes {
  /** null: not built yet over the rows a snapshot restored. */
  private maps: { [K in IndexName]: CallIndexMaps[K] | null };
  /** Rows restored from a snapshot (their indexes are built on first use). */
  private restoredRows = 0;

  /** `idHash`: how the id index hashes ids (what a loader's hashes must agree with; see IdIndex). */
  constructor(
    private readonly columns: IndexedColumns,
    private readonly idHash: IdHash = new IdHash(),
  ) {
    this.maps = newIndexes(columns, idHash);
  }

  get byId(): IdIndex {
    return this.maps.byId ?? this.build('byId');
  }
  get byTrace(): MultiIndex<string> {
    return this.maps.byTrace ?? this.build('byTrace');
  }
  get byParent(): MultiIndex<string> {
    return this.maps.byParent ?? this.build('byParent');
  }
  get byThread(): MultiIndex<string> {
    return this.maps.byThread ?? this.build('byThread');
  }
  get byTurn(): MultiIndex<string> {
    return this.maps.byTurn ?? this.build('byTurn');
  }
  get byOp(): MultiIndex<number> {
    return this.maps.byOp ?? this.build('byOp');
  }
  get turnsByThread(): Map<string, number[]> {
    return this.maps.turnsByThread ?? this.build('turnsByThread');
  }
  get sharedStrings(): Map<string, string> {
    return this.maps.sharedStrings ?? this.build('sharedStrings');
  }

  /**
   * After a snapshot restored `rows` rows into the (empty) columns: every index is built from
   * them on first use. The MultiIndexes are handed out unbuilt (a filter takes them before
   * knowing it needs them) and fill themselves in place.
   */
  restored(rows: number): void {
    if (this.maps.byId?.size !== 0) throw new Error('indexes are restored over an empty table only');
    this.restoredRows = rows;
    const deferred = <K>(name: MultiIndexName) => MultiIndex.deferred<K>(() => this.build(name));
    this.maps = { byId: null, byTrace: deferred('byTrace'), byParent: deferred('byParent'), byThread: deferred('byThread'), byTurn: deferred('byTurn'), byOp: deferred('byOp'), turnsByThread: null, sharedStrings: null };
  }

  /**
   * Rows a fixture load appended from row 0 on are left out of the trace, parent, thread, turn
   * and op indexes and turns-by-thread, which are built from the columns on first use, as after
   * a restore (a one-off query, or `tq serve` filtering by id only, never builds the rest).
   * Only the id index and the shared strings are kept row by row (a load checks ids, and shares
   * strings). Once any deferred index is built, rows add themselves through the getters again.
   */
  private loadDeferral = false;

  /**
   * Whether the loaded row `row` may skip the deferred indexes (true: it is counted as one of
   * the rows they are built over); false: add it to every index now.
   */
  deferLoadedRow(row: number): boolean {
    if (row === 0 && this.restoredRows === 0 && !this.loadDeferral) {
      const deferred = <K>(name: MultiIndexName) => MultiIndex.deferred<K>(() => this.build(name));
      this.maps = { ...this.maps, byTrace: deferred('byTrace'), byParent: deferred('byParent'), byThread: deferred('byThread'), byTurn: deferred('byTurn'), byOp: deferred('byOp'), turnsByThread: null };
      this.loadDeferral = true;
    }
    if (!this.loadDeferral || row !== this.restoredRows) return false;
    this.restoredRows++;
    return true;
  }

  /** Builds every index not built yet (before restored rows' indexed columns change). */
  buildAll(): void {
    if (this.restoredRows === 0) return;
    for (const name of Object.keys(this.maps) as IndexName[]) {
      const index = this.maps[name];
      if (index === null) this.build(name);
      else if (index instanceof MultiIndex) void index.size; // a deferred index builds on first use
    }
  }

  /**
   * One index over the rows a snapshot restored, built from their columns in row order as a
   * load would have built it (rows appended since add themselves through the getters).
   */
  private build<K extends IndexName>(name: K): CallIndexMaps[K] {
    // Rows loaded from now on add themselves to every index (the unbuilt ones build first).
    this.loadDeferral = false;
    const c = this.columns, n = this.restoredRows;
    // A deferred MultiIndex is filled in place (it is the object callers already hold).
    const target = this.maps[name];
    const built = (target ?? newIndexes(c, this.idHash)[name]) as CallIndexMaps[K];
    if (name === 'byId') for (let r = 0, m = built as IdIndex; r < n; r++) m.set(c.id(r), r);
    else if (name === 'byTrace') for (let r = 0, m = built as MultiIndex<string>; r < n; r++) m.add(c.traceId(r), r);
    else if (name === 'byOp') for (let r = 0, ops = c.opIndex.data, m = built as MultiIndex<number>; r < n; r++) m.add(ops[r], r);
    else if (name === 'byParent') fill(built as MultiIndex<string>, n, (r) => c.parentId(r));
    else if (name === 'byThread') fill(built as MultiIndex<string>, n, (r) => c.threadId(r));
    else if (name === 'byTurn') fill(built as MultiIndex<string>, n, (r) => c.turnId(r));
    else if (name === 'turnsByThread') {
      const m = built as Map<string, number[]>;
      for (let r = 0; r < n; r++) {
        const thread = c.threadId(r);
        if (thread !== null && thread !== '' && c.turnId(r) === c.id(r)) addToIndex(m, thread, r);
      }
    } else {
      // Only a dedupe cache for later writes: the distinct shared values, in any order.
      const shared = built as Map<string, string>;
      for (const cell of [c.traceId, c.threadId, c.userId]) {
        for (let r = 0; r < n; r++) {
          const v = cell.call(c, r);
          if (v !== null) shared.set(v, v);
        }
      }
      for (const [, v] of c.runIds.entries()) shared.set(v, v);
      for (const col of [c.inputRefs, c.outputRefs]) for (const [, refs] of col.entries()) for (const ref of refs) shared.set(ref, ref);
    }
    this.maps[name] = built;
    return built;
  }
}

function fill(index: MultiIndex<string>, n: number, key: (row: number) => string | null): void {
  for (let r = 0; r < n; r++) {
    const k = key(r);
    if (k !== null) index.add(k, r);
  }
}
