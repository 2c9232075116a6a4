/**
 * Resolves `$getField` / sort paths of the calls query to accessors over the call table
 * (semantics.md#calls-expr-fields): plain columns, dynamic JSON fields, the computed summary
 * fields, feedback fields, and fields read through expanded refs.
 *
 * Dynamic JSON fields are what make scans slow: each read parses a call body. Their readings
 * are memoised per (table, path) across queries in the store's derived caches (path-memo.ts),
 * so repeated scans read typed arrays only.
 */
import { fieldNotAllowed, InvalidFieldError, type ErrorPath } from '../../core/errors.ts';
import { parseLossless, type LosslessValue } from '../../core/json/lossless.ts';
import { locatePathBytes, pathSteps, readJsonSpanBytes } from '../../core/json/path-extract.ts';
import { RowMemberWalk } from '../../core/json/path-walk.ts';
import { callRefUri } from '../../core/refs.ts';
import { BODY_PARTS, type CallBody, type CallTable } from '../../store/call-table.ts';
import type { FeedbackRow, ProjectStore } from '../../store/project.ts';
import type { Store } from '../../store/store.ts';
import { jsonValueString } from '../../core/ch/values.ts';
import type { FeedbackSortJoin, FieldAccessor, FieldResolver, FillNumbers } from './expr/fields.ts';
import { hasNegativeIndex, isIndexPart, MISSING, readPath, splitFieldPath, type PathReading } from './json-path.ts';
import { jsonAccessor, PathMemo, pathMemos, unmemoizedJsonAccessor, type RawReader, type SpanLocator } from './path-memo.ts';
import { resolveObjectRef, type CanRead } from '../resolve-ref.ts';
import { COMPUTED_SUMMARY_FIELDS, COMPUTED_SUMMARY_FIELDS_LISTED, COMPUTED_SUMMARY_PREFIX, isComputedSummaryField } from './summary-fields.ts';

/** The dynamic JSON roots (semantics.md#calls-expr-fields): the JSON parts of a stored call body. */
const DYNAMIC_ROOTS: ReadonlySet<string> = new Set(BODY_PARTS);
const STORAGE_FIELDS = new Set(['storage_size_bytes', 'total_storage_size_bytes']);
/** `feedback.[<type>]....` with a type (not `[*]`): read through the feedback join. */
const TYPED_FEEDBACK_FIELD = /^feedback\.\[(?!\*\])[^\]]*\]\./;

/** A body part's text parsed losslessly (document key order kept); null when absent. */
function lossless(text: string | null): LosslessValue | null {
  return text === null ? null : parseLossless(text);
}

/**
 * Whether a JSON value reads as something other than '' (semantics.md#calls-json-read: JSON null
 * and "null" read as '').
 */
function readsNonEmpty(v: unknown): boolean {
  const s = jsonValueString(v);
  return s !== '' && s !== 'null';
}

export interface CallFieldOptions {
  store: Store;
  project: ProjectStore;
  fieldPrefix: string;
  /** `expand_columns` of the request: paths whose ref values are resolved when read through. */
  expandColumns: readonly string[];
  /**
   * Which projects refs may be followed into (the caller's grants; semantics.md#auth-grants-refs).
   */
  canRead: CanRead;
}

/**
 * Where the value at `parts` below body part `part` (JSON_VALUE reading) sits in the stored
 * bytes (core/json/path-extract.ts): only the path is walked, nothing decoded. A part the body
 * lacks, or JSON null, is missing below it, as `{}` / null are when parsed. Null when the path
 * cannot be walked over bytes.
 */
function pathBytesLocator(t: CallTable, part: keyof CallBody, parts: readonly string[], members: RowMemberWalk): SpanLocator | null {
  const steps = pathSteps(parts, isIndexPart);
  if (steps === null) return null;
  const k = BODY_PARTS.indexOf(part);
  const spans = new Int32Array(8);
  if (steps[0].keyBytes === null) {
    return (row, found) => {
      const bytes = t.bodyChunkBytes(row);
      t.partByteSpans(row, spans);
      const start = spans[2 * k];
      return start >= 0 && locatePathBytes(bytes, start, spans[2 * k + 1], steps, found) ? bytes : null;
    };
  }
  // The first key is read through the part's shared member walk (RowMemberWalk, batched in
  // WebAssembly): every path of the query below this part is found in one walk of the row's part.
  const key = members.add(steps[0]);
  const rest = steps.slice(1);
  return (row, found) => {
    const bytes = members.walk(row);
    if (bytes === null) return null;
    const spans = members.members;
    const s = spans.start[key];
    if (s < 0) return null;
    if (rest.length > 0) return locatePathBytes(bytes, s, spans.end[key], rest, found) ? bytes : null;
    found[0] = s;
    found[1] = spans.end[key];
    return bytes;
  };
}

/** Raw reader over a locator: only the value at the path is decoded, not the part. */
function pathBytesReader(locate: SpanLocator): RawReader {
  const found = new Int32Array(2);
  return (row) => {
    const bytes = locate(row, found);
    return bytes === null ? MISSING : readJsonSpanBytes(bytes, found[0], found[1]);
  };
}

/** The FieldResolver of one calls query. */
export class CallFieldResolver implements FieldResolver {
  private readonly table: CallTable;
  private readonly plain: Record<string, () => FieldAccessor>;
  /**
   * The feedback row a filter is being evaluated against (semantics.md#calls-feedback-join):
   * typed feedback fields read it, and nothing, when it is of another type.
   */
  private joined: { row: number; feedback: FeedbackRow } | null = null;
  /** Whether some typed feedback field was resolved, so filters need the join. */
  private readsTypedFeedback = false;
  /** One parsed body at a time: successive accessors usually read the same row. */
  private lastRow = -1;
  private lastBody: ReturnType<CallTable['body']> | null = null;
  /** Per body part, the member walk its paths share (pathBytesLocator). */
  private readonly memberWalks = new Map<string, RowMemberWalk>();

  constructor(private readonly opts: CallFieldOptions) {
    const t = (this.table = opts.project.calls);
    const p = opts.fieldPrefix;
    const projectId = opts.project.projectId;
    const str = (get: (row: number) => string | null): FieldAccessor => ({ kind: 'string', get });
    const nan = (col: { data: Float64Array }) => (row: number) => {
      const v = col.data[row];
      return Number.isNaN(v) ? null : v;
    };
    const copy = (col: { data: Float64Array }): FillNumbers => (rows, out) => {
      const data = col.data;
      for (let i = 0; i < rows.length; i++) out[i] = data[rows[i]];
    };
    this.plain = {
      id: () => str((r) => t.id(r)),
      project_id: () => str(() => projectId),
      trace_id: () => str((r) => t.traceId(r)),
      parent_id: () => str((r) => t.parentId(r)),
      thread_id: () => str((r) => t.threadId(r)),
      turn_id: () => str((r) => t.turnId(r)),
      // Interned: predicates on op_name run once per distinct op (expr/compile perDistinctValue).
      op_name: () => ({ kind: 'string', get: (r: number) => t.opName(r), codes: { code: (r: number) => t.opIndex.data[r], bound: t.opNames.values.length } }),
      display_name: () => str((r) => t.displayNames.get(r)),
      exception: () => str((r) => t.exceptions.get(r)),
      [`${p}user_id`]: () => str((r) => t.userId(r)),
      [`${p}run_id`]: () => str((r) => t.runIds.get(r)),
      started_at: () => ({ kind: 'datetime', get: nan(t.startedAt), fill: copy(t.startedAt) }),
      ended_at: () => ({ kind: 'datetime', get: nan(t.endedAt), fill: copy(t.endedAt) }),
      deleted_at: () => ({ kind: 'datetime', get: nan(t.deletedAt), fill: copy(t.deletedAt) }),
      [`${p}run_step`]: () => ({ kind: 'number', get: (r) => t.runStep.get(r) }),
      [`${p}run_step_end`]: () => ({ kind: 'number', get: (r) => t.runStepEnd.get(r) }),
      input_refs: () => ({ kind: 'array', get: (r) => t.inputRefs.get(r) ?? [] }),
      output_refs: () => ({ kind: 'array', get: (r) => t.outputRefs.get(r) ?? [] }),
    };
  }

  private bodyOf(row: number) {
    if (row !== this.lastRow) {
      this.lastBody = this.table.body(row);
      this.lastRow = row;
    }
    return this.lastBody!;
  }

  /**
   * Raw reader of a dynamic root (`inputs`, ...) with a path below it. Only this root's JSON is
   * parsed (CallTable.bodyPart), not the whole call; 'hops' readings parse it losslessly, since
   * member positions follow the document's key order (which JS objects do not keep).
   */
  private rootReader(root: string, parts: string[], reading: PathReading): RawReader {
    const part = root as keyof CallBody;
    const t = this.table;
    const docOf = reading === 'hops' ? (row: number) => lossless(t.bodyPartText(row, part)) : (row: number) => t.bodyPart(row, part);
    return (row) => {
      const doc = docOf(row);
      if (root === 'summary' && (doc === null || doc === undefined)) return parts.length ? MISSING : null;
      return parts.length ? readPath(doc, parts, reading) : doc;
    };
  }

  resolve(path: string, loc: ErrorPath = []): FieldAccessor {
    // Own keys only: `constructor` or `toString` is an unknown field, not an Object method.
    if (Object.hasOwn(this.plain, path)) return this.plain[path]();
    if (STORAGE_FIELDS.has(path)) throw fieldNotAllowed(path, loc);
    if (path.startsWith(COMPUTED_SUMMARY_PREFIX)) {
      const name = path.slice(COMPUTED_SUMMARY_PREFIX.length);
      if (!isComputedSummaryField(name)) {
        throw new InvalidFieldError('TQ_SUMMARY_FIELD_NOT_ALLOWED', { field: name, supported: COMPUTED_SUMMARY_FIELDS_LISTED }, loc);
      }
      return COMPUTED_SUMMARY_FIELDS[name](this.table);
    }
    if (path.startsWith('feedback.')) return this.feedbackField(path, loc);

    const parts = splitFieldPath(path);
    const root = parts[0];
    if (!DYNAMIC_ROOTS.has(root) || parts.some((x) => x === '')) throw fieldNotAllowed(path, loc);

    // Through an expanded ref: some expand column prefixes the path
    // (semantics.md#calls-expr-through-refs).
    if (this.readsThroughExpand(path)) {
      return jsonAccessor(this.expandedReader(path), new PathMemo(this.table.version), this.table.size);
    }
    // Index parts: a negative one makes production read the whole path with hops; otherwise
    // only existence is read with hops (JSONType) while the value is JSON_VALUE's
    // (semantics.md#calls-json-read).
    const rest = parts.slice(1);
    const negative = hasNegativeIndex(rest);
    // JSON_VALUE readings walk the stored bytes to the value (decoding only it); a numeric
    // reading or existence is then often decided from the bytes alone (path-memo.ts).
    const locate = negative || rest.length === 0 ? null : pathBytesLocator(this.table, root as keyof CallBody, rest, this.membersOf(root));
    const value = locate !== null ? pathBytesReader(locate) : this.rootReader(root, rest, negative ? 'hops' : 'json-value');
    const existence = !negative && rest.some(isIndexPart) ? this.rootReader(root, rest, 'hops') : undefined;
    return jsonAccessor(value, pathMemos(this.opts.store).memo(this.table, path), this.table.size, existence, locate ?? undefined);
  }

  private membersOf(root: string): RowMemberWalk {
    let members = this.memberWalks.get(root);
    if (members === undefined) {
      const t = this.table, k = BODY_PARTS.indexOf(root as keyof CallBody);
      const partOf = (row: number, span: Int32Array): Uint8Array | null => t.bodyPartBytes(row, k, span);
      this.memberWalks.set(root, (members = new RowMemberWalk(partOf, () => t.size)));
    }
    return members;
  }

  /** Reading these parses JSON per row: a dynamic root's body part or a feedback payload. */
  readsJson(path: string): boolean {
    const root = path.split('.', 1)[0];
    return (DYNAMIC_ROOTS.has(root) || root === 'feedback') && !path.startsWith(COMPUTED_SUMMARY_PREFIX);
  }

  private readsThroughExpand(path: string): boolean {
    return this.opts.expandColumns.some((col) => path === col || path.startsWith(col + '.'));
  }

  /**
   * Reads `path` through refs: every expand column on the way is resolved, shallowest first
   * (semantics.md#calls-expr-through-refs); unresolvable refs read as no value.
   */
  private expandedReader(path: string): RawReader {
    const expandSet = new Set(this.opts.expandColumns);
    const parts = splitFieldPath(path);
    const root = parts[0];
    return (row) => {
      const body = this.bodyOf(row) as unknown as Record<string, unknown>;
      let cur: unknown = body[root];
      let prefix = root;
      for (let i = 1; i <= parts.length; i++) {
        if (expandSet.has(prefix) && typeof cur === 'string') {
          const resolved = resolveObjectRef(this.opts.store, cur, this.opts.canRead);
          if (!resolved.found) return MISSING;
          cur = resolved.value;
        }
        if (i === parts.length) break;
        cur = readPath(cur, [parts[i]]);
        if (cur === MISSING) return MISSING;
        prefix += '.' + parts[i];
      }
      return cur;
    };
  }

  /**
   * `feedback.[<type>].payload.<path>`, `feedback.[<type>].runnable_ref|trigger_ref`
   * (semantics.md#calls-expr-fields).
   */
  private feedbackField(path: string, loc: ErrorPath): FieldAccessor {
    const m = /^feedback\.\[([^\]]*)\]\.(.+)$/.exec(path);
    if (!m) throw fieldNotAllowed(path, loc);
    const [, type, rest] = m;
    const restParts = splitFieldPath(rest);
    const isRefField = rest === 'runnable_ref' || rest === 'trigger_ref';
    if (!isRefField && restParts[0] !== 'payload') throw fieldNotAllowed(path, loc);
    const project = this.opts.project;
    const t = this.table;
    if (type !== '*') this.readsTypedFeedback = true;
    /** The call's feedback row of the type: the joined one under a filter or sort, else its first. */
    const first = (row: number) => {
      const joined = this.joined;
      if (joined !== null && joined.row === row && type !== '*') return joined.feedback.feedback_type === type ? joined.feedback : undefined;
      const rows = project.feedbackByRef.get(callRefUri(project.projectId, t.id(row)));
      return rows?.find((f) => type === '*' || f.feedback_type === type);
    };
    if (isRefField) {
      const key = rest as 'runnable_ref' | 'trigger_ref';
      return { kind: 'string', get: (row) => first(row)?.[key] ?? null };
    }
    const payloadPath = restParts.slice(1);
    const reading: PathReading = hasNegativeIndex(payloadPath) ? 'hops' : 'json-value';
    // A typed field reads the joined feedback row (its first outside a join); `[*]` reads the
    // first non-empty value of any row (production: anyIf(value, value != ''), calls_query_builder/fields.py).
    const reader: RawReader =
      type === '*'
        ? (row) => {
            for (const fb of project.feedbackByRef.get(callRefUri(project.projectId, t.id(row))) ?? []) {
              const v = readPath(fb.payload, payloadPath, reading);
              if (v !== MISSING && readsNonEmpty(v)) return v;
            }
            return MISSING;
          }
        : (row) => {
            const fb = first(row);
            return fb ? readPath(fb.payload, payloadPath, reading) : MISSING;
          };
    return type === '*' ? jsonAccessor(reader, new PathMemo(t.version), t.size) : unmemoizedJsonAccessor(reader);
  }

  /**
   * A filter under production's feedback join (semantics.md#calls-feedback-join): when it reads
   * a typed feedback field, a call matches if the filter holds with any one of its feedback
   * rows joined (typed fields of another type read as missing); a call without feedback is
   * tested once, with none. Without such a field the filter is returned as it is.
   */
  feedbackSortJoin(fields: readonly string[]): FeedbackSortJoin | null {
    if (!fields.some((f) => TYPED_FEEDBACK_FIELD.test(f))) return null;
    const project = this.opts.project;
    const t = this.table;
    const rowsOf = (row: number) => project.feedbackByRef.get(callRefUri(project.projectId, t.id(row)));
    return {
      count: (row) => Math.max(1, rowsOf(row)?.length ?? 0),
      joined: (row, k, read) => {
        const rows = rowsOf(row);
        if (rows === undefined || rows.length === 0) return read();
        this.joined = { row, feedback: rows[k] };
        try {
          return read();
        } finally {
          this.joined = null;
        }
      },
    };
  }

  joinFeedback(filter: (row: number) => boolean | null): (row: number) => boolean | null {
    if (!this.readsTypedFeedback) return filter;
    const project = this.opts.project;
    const t = this.table;
    return (row) => {
      const rows = project.feedbackByRef.get(callRefUri(project.projectId, t.id(row)));
      if (rows === undefined || rows.length === 0) return filter(row);
      let answer: boolean | null = null;
      try {
        for (const feedback of rows) {
          this.joined = { row, feedback };
          const r = filter(row);
          if (r === true) return true;
          if (r === false) answer = false;
        }
      } finally {
        this.joined = null;
      }
      return answer;
    };
  }
}
