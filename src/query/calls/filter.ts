/**
 * `CallsFilter` (semantics.md#calls-filter) → the rows that pass it, using the store's indexes.
 *
 * The planner picks the most selective indexed list among the filter's id fields (and the
 * `$expr`'s top-level equalities on indexed columns), reads those rows only, and checks every
 * remaining clause per row. Without any indexed clause it scans the project. Rows come out in
 * insertion order either way, so the unsorted order and stable sorts do not depend on the plan.
 */
import type { CallTable } from '../../store/call-table.ts';
import type { MultiIndex, SparseColumn } from '../../store/columns.ts';
import type { CallsFilter } from './request.ts';

/** A predicate over rows; `null` means "no condition". */
type RowPredicate = ((row: number) => boolean) | null;

const WILDCARD = ':*';

/** `op_names`, `input_refs`, `output_refs` entries ending in `:*` match by prefix (keeping the colon). */
function splitWildcards(values: readonly string[]): { exact: Set<string>; prefixes: string[] } {
  const exact = new Set<string>();
  const prefixes: string[] = [];
  for (const v of values) {
    if (v.endsWith(WILDCARD)) prefixes.push(v.slice(0, -1));
    else exact.add(v);
  }
  return { exact, prefixes };
}

const matchesAny = (value: string, exact: Set<string>, prefixes: readonly string[]) =>
  exact.has(value) || prefixes.some((p) => value.startsWith(p));

/** Candidate rows for one indexed clause: the union of the index lists, ascending. */
function unionRows(index: MultiIndex<string>, keys: Iterable<string>): number[] {
  const seen = new Set<number>();
  for (const k of keys) for (const r of index.get(k) ?? []) seen.add(r);
  return [...seen].sort((a, b) => a - b);
}

/**
 * The columns with a store index, each with the rows holding any of some values (ascending, each
 * once). `$expr` equalities on these columns narrow the candidates (expr/compile.ts
 * indexableEqualities); a column added here is used there too.
 */
export const INDEXED_COLUMNS: ReadonlyMap<string, (table: CallTable, values: readonly string[]) => number[]> = new Map([
  ['id', (t, values) => [...new Set(values)].map((id) => t.rowOf(id)).filter((r): r is number => r !== undefined).sort((a, b) => a - b)],
  ['trace_id', (t, values) => unionRows(t.byTrace, values)],
  ['parent_id', (t, values) => unionRows(t.byParent, values)],
  ['thread_id', (t, values) => unionRows(t.byThread, values)],
  ['turn_id', (t, values) => unionRows(t.byTurn, values)],
]);

export interface FilterPlan {
  /** Rows to consider (ascending), or null to scan every row. */
  candidates: number[] | null;
  /** Every clause, checked per candidate row (including those the candidates came from). */
  predicate: (row: number) => boolean;
  /**
   * The same clauses split for fused loops: `predicate` is "not deleted" and, when
   * `rootsOnly`, "parent_id is null", `opMatch`, and `residual` (null: nothing else).
   */
  rootsOnly: boolean;
  /**
   * The op filter as a bitmap over op ids (opMatch[table.opIndex[row]] === 1 keeps the row),
   * read inline by the scans rather than through a closure per row; null: no op filter. Not
   * part of `residual`.
   */
  opMatch: Uint8Array | null;
  residual: RowPredicate;
}

/** Extra indexed equalities found in `$expr` (field → allowed values). */
export interface IndexedEquality {
  field: string;
  values: readonly string[];
}

export function planFilter(table: CallTable, filter: CallsFilter | null, exprEqualities: readonly IndexedEquality[]): FilterPlan {
  const checks: Array<(row: number) => boolean> = [];
  const candidateLists: number[][] = [];
  const f: CallsFilter = filter ?? {};

  // semantics.md#calls-filter-empty-lists: empty list or null = no filter (truthiness), except
  // thread_ids / turn_ids (semantics.md#calls-filter-thread-turn-empty).
  const idClause = (values: string[] | null | undefined, index: MultiIndex<string>, read: (row: number) => string | null, emptyMatchesNothing: boolean) => {
    if (values == null) return;
    if (values.length === 0) {
      if (emptyMatchesNothing) candidateLists.push([]);
      return;
    }
    const set = new Set(values);
    candidateLists.push(unionRows(index, set));
    checks.push((row) => {
      const v = read(row);
      return v !== null && set.has(v);
    });
  };

  if (f.call_ids?.length) {
    const rows = [...new Set(f.call_ids)].map((id) => table.rowOf(id)).filter((r): r is number => r !== undefined);
    candidateLists.push(rows.sort((a, b) => a - b));
    const set = new Set(f.call_ids);
    checks.push((row) => set.has(table.id(row)));
  }
  // Columns read a row at a time (a table restored from a load snapshot makes no column whole).
  idClause(f.trace_ids?.length ? f.trace_ids : null, table.byTrace, (row) => table.traceId(row), false);
  idClause(f.parent_ids?.length ? f.parent_ids : null, table.byParent, (row) => table.parentId(row), false);
  idClause(f.thread_ids, table.byThread, (row) => table.threadId(row), true);
  idClause(f.turn_ids, table.byTurn, (row) => table.turnId(row), true);

  let opMatch: Uint8Array | null = null;
  if (f.op_names?.length) {
    const { exact, prefixes } = splitWildcards(f.op_names);
    const ops = (opMatch = new Uint8Array(table.opNames.values.length));
    const opIds: number[] = [];
    table.opNames.values.forEach((name, i) => {
      if (matchesAny(name, exact, prefixes)) {
        ops[i] = 1;
        opIds.push(i);
      }
    });
    const rows: number[] = [];
    for (const op of opIds) for (const r of table.byOp.get(op) ?? []) rows.push(r);
    candidateLists.push(rows.sort((a, b) => a - b));
  }

  const rootsOnly = f.trace_roots_only === true;

  const setClause = (values: string[] | null | undefined, read: (row: number) => string | null) => {
    if (!values?.length) return;
    const set = new Set(values);
    checks.push((row) => {
      const v = read(row);
      return v !== null && set.has(v);
    });
  };
  setClause(f.user_ids, (row) => table.userId(row));
  setClause(f.run_ids, (row) => table.runIds.get(row));

  const refClause = (values: string[] | null | undefined, column: SparseColumn<string[]>) => {
    if (!values?.length) return;
    const { exact, prefixes } = splitWildcards(values);
    checks.push((row) => {
      const refs = column.get(row);
      return refs !== null && refs.some((r) => matchesAny(r, exact, prefixes));
    });
  };
  refClause(f.input_refs, table.inputRefs);
  refClause(f.output_refs, table.outputRefs);

  // Indexed equalities from the expression narrow candidates; the expression itself still
  // runs on every candidate, so these lists need not be exact, only supersets.
  for (const eq of exprEqualities) {
    const rowsHolding = INDEXED_COLUMNS.get(eq.field);
    if (rowsHolding !== undefined) candidateLists.push(rowsHolding(table, eq.values));
  }

  let candidates: number[] | null = null;
  for (const list of candidateLists) if (candidates === null || list.length < candidates.length) candidates = list;

  const residual: RowPredicate =
    checks.length === 0
      ? null
      : checks.length === 1
        ? checks[0]
        : (row: number) => {
            for (let i = 0; i < checks.length; i++) if (!checks[i](row)) return false;
            return true;
          };
  // semantics.md#calls-base-deleted: deleted calls are never visible.
  const deleted = table.deletedAt;
  const ops = opMatch;
  const predicate = (row: number) =>
    Number.isNaN(deleted.data[row]) && (!rootsOnly || table.isRoot(row)) && (ops === null || ops[table.opIndex.data[row]] === 1) && (residual === null || residual(row));
  return { candidates, predicate, rootsOnly, opMatch, residual };
}
