/**
 * Everything stored for one project: calls, tables, object versions, feedback, files.
 * LLM prices are global or per project and live in the Store.
 */
import { CallTable } from './call-table.ts';

/** A stored table row: its digest and the JSON text of the first body written for it. */
export interface StoredRow {
  digest: string;
  /** JSON text in original key order (returned as `val`). */
  text: string;
  /** Parsed value, filled on first use by sorts. */
  parsed?: unknown;
}

/**
 * Where the texts of a table's rows sit in one string (a table_create's rows arrive packed,
 * api/packed-strings.ts): position i's stored row text is `text.slice(from[i], to[i])` where
 * `from[i] >= 0`. A first sort encodes runs of rows with one call instead of one per row.
 */
export interface PackedRowTexts {
  text: string;
  from: Int32Array;
  to: Int32Array;
}

export interface ObjectVersion {
  projectId: string;
  objectId: string;
  digest: string;
  versionIndex: number;
  createdAtUs: number;
  deletedAtUs: number | null;
  kind: 'op' | 'object';
  baseObjectClass: string | null;
  leafObjectClass: string | null;
  /** The value, as plain JSON. */
  val: unknown;
  /** The value's JSON text in original key order (what `obj/read` returns). */
  valText: string;
  isLatest: boolean;
}

export interface FeedbackRow {
  id: string;
  project_id: string;
  weave_ref: string;
  feedback_type: string;
  payload: Record<string, unknown>;
  creator: string | null;
  created_at: number;
  user_id: string;
  annotation_ref: string | null;
  runnable_ref: string | null;
  call_ref: string | null;
  trigger_ref: string | null;
}

export class ProjectStore {
  readonly calls = new CallTable();
  /** Row bodies by row digest (first writer wins). */
  readonly rows = new Map<string, StoredRow>();
  /** Table digest → ordered row digests. */
  readonly tables = new Map<string, string[]>();
  /**
   * Table digest → its rows by position as they stood when the table was stored (undefined
   * where no body was stored yet; storeTable): a first sort reads the rows by position instead
   * of looking each digest up in `rows` (query/table/run.ts resolvedTable fills the gaps).
   */
  readonly tableRowsWhenStored = new Map<string, ReadonlyArray<StoredRow | undefined>>();
  /** Table digest → where its rows' texts sit in the string they were written in, when known. */
  readonly tableTextsWhenStored = new Map<string, PackedRowTexts>();
  /** Object id → versions in creation order. */
  readonly objects = new Map<string, ObjectVersion[]>();
  private readonly feedbackRows: FeedbackRow[] = [];
  private readonly feedbackIndex = new Map<string, FeedbackRow[]>();
  /**
   * Feedback rows a load snapshot holds, added on first use of `feedback` or `feedbackByRef`
   * (src/store/snapshot.ts): a query that reads no feedback does not decode it.
   */
  private pendingFeedback: (() => FeedbackRow[]) | null = null;

  get feedback(): FeedbackRow[] {
    if (this.pendingFeedback !== null) this.addPendingFeedback();
    return this.feedbackRows;
  }

  /** weave_ref → feedback rows, in creation order. */
  get feedbackByRef(): Map<string, FeedbackRow[]> {
    if (this.pendingFeedback !== null) this.addPendingFeedback();
    return this.feedbackIndex;
  }
  /**
   * Stores a table's digest list (the same digest is the same list: the first is kept) and its
   * rows by position: `byPosition` when the caller holds them (each the stored row of its
   * digest), else each looked up; `texts`, where its rows' texts sit in one string, when known.
   */
  storeTable(digest: string, rowDigests: string[], byPosition?: ReadonlyArray<StoredRow | undefined>, texts?: PackedRowTexts): void {
    if (this.tables.has(digest)) return;
    if (texts !== undefined && texts.from.length === rowDigests.length) this.tableTextsWhenStored.set(digest, texts);
    this.tables.set(digest, rowDigests);
    if (byPosition === undefined || byPosition.length !== rowDigests.length) {
      // Pushed, not `new Array(n)`: a large preallocated array is a slow dictionary.
      const found: Array<StoredRow | undefined> = [];
      for (let i = 0; i < rowDigests.length; i++) found.push(this.rows.get(rowDigests[i]));
      byPosition = found;
    }
    this.tableRowsWhenStored.set(digest, byPosition);
  }

  /** File digest → bytes. */
  readonly files = new Map<string, Uint8Array>();

  constructor(readonly projectId: string) {}

  /** The version of `objectId` named by `version`: a digest, `latest`, or `v<N>`. */
  objectVersion(objectId: string, version: string): ObjectVersion | undefined {
    const versions = this.objects.get(objectId);
    if (!versions) return undefined;
    const live = versions.filter((v) => v.deletedAtUs === null);
    if (version === 'latest') return live[live.length - 1];
    const vIndex = /^v(\d+)$/.exec(version);
    if (vIndex) return live.find((v) => v.versionIndex === Number(vIndex[1]));
    return live.find((v) => v.digest === version);
  }

  addFeedback(row: FeedbackRow): void {
    this.feedback.push(row);
    const list = this.feedbackIndex.get(row.weave_ref);
    if (list) list.push(row);
    else this.feedbackIndex.set(row.weave_ref, [row]);
  }

  /** Rows to add (as addFeedback would, in order) when feedback is first used; the project must hold none yet. */
  deferFeedback(rows: () => FeedbackRow[]): void {
    if (this.pendingFeedback !== null || this.feedbackRows.length !== 0) throw new Error('deferred feedback goes into a project without feedback');
    this.pendingFeedback = rows;
  }

  private addPendingFeedback(): void {
    const rows = this.pendingFeedback!();
    this.pendingFeedback = null;
    for (const row of rows) this.addFeedback(row);
  }
}
