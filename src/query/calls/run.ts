/**
 * The calls query end to end (/calls/stream_query, and the filter behind /calls/query_stats and
 * /call/read): validate and plan eagerly (every error is raised before the first line), then
 * produce lines lazily.
 *
 * Pipeline: request → field resolver → compiled `$expr` → filter plan (indexes) → matching
 * rows → order + window (top-k) → one JSON line per row.
 */
import type { Engine } from '../../api/types.ts';
import type { CallTable } from '../../store/call-table.ts';
import { ProjectStore } from '../../store/project.ts';
import type { CanRead } from '../resolve-ref.ts';
import { CallFieldResolver } from './call-fields.ts';
import { compileExpr, indexableEqualities } from './expr/compile.ts';
import { INDEXED_COLUMNS, planFilter, type FilterPlan } from './filter.ts';
import { effectiveSortTerms, orderRows, validateSortTerms } from './order.ts';
import type { CallsQuery, SortTerm } from './request.ts';
import { pageChunks, registerKeptLines, renderedLineShape, rowWriter, selectColumns } from './response.ts';
import { startOrderPage } from './start-walk.ts';
import { startWindow, windowRun, type StartWindow } from './start-window.ts';
import { hasDeletedRows, rootStartOrder, startOrder } from '../../store/start-order.ts';

/** A validated calls query, planned: what finds its rows, before ordering and paging. */
export interface CallsPlan {
  project: ProjectStore;
  resolver: CallFieldResolver;
  terms: SortTerm[];
  /** The filter plan; null when nothing can match (`limit: 0`). */
  filter: FilterPlan | null;
  expr: ((row: number) => boolean | null) | null;
  /** A started_at window the expression implies (start-window.ts), or null. */
  window: StartWindow | null;
}

/**
 * Validates a calls query (columns, expression, sort) and plans its filter: the one filter
 * implementation behind /calls/stream_query, /calls/query_stats and /call/read. `canRead` says
 * which projects refs may be followed into (expansion, filters and sorts through refs).
 */
export function planCallsQuery(engine: Engine, req: CallsQuery, canRead: CanRead): CallsPlan {
  const prefix = engine.options.fieldPrefix;
  // An unknown project answers nothing, but its request is still checked in full.
  const project = engine.store.project(req.project_id) ?? new ProjectStore(req.project_id);
  const expandColumns = req.expand_columns ?? [];
  const resolver = new CallFieldResolver({ store: engine.store, project, fieldPrefix: prefix, expandColumns, canRead });

  selectColumns(req, prefix);
  const expr = req.query ? resolver.joinFeedback(compileExpr(req.query, resolver)) : null;
  const terms = effectiveSortTerms(req.sort_by);
  validateSortTerms(terms, resolver);

  const filter = req.limit === 0 ? null : planFilter(project.calls, req.filter, req.query ? indexableEqualities(req.query, (f) => INDEXED_COLUMNS.has(f)) : []);
  return { project, resolver, terms, filter, expr, window: req.query ? startWindow(req.query) : null };
}

/**
 * Every row the plan matches, ascending (storage order). The array is the table's scratch
 * (matchScratch): valid until the next matchingRows over the same table, so callers read it
 * before they return (orderRows copies the page out), and a query allocates no table-sized array.
 */
export function matchingRows(plan: CallsPlan): Int32Array {
  return plan.filter === null ? new Int32Array(0) : scanRows(plan.filter, plan.expr, plan.project.calls);
}

const matchScratches = new WeakMap<CallTable, Int32Array>();

/** A scratch of at least `n` entries for `table`'s matches, reused across queries. */
function matchScratch(table: CallTable, n: number): Int32Array {
  let scratch = matchScratches.get(table);
  if (scratch === undefined || scratch.length < n) matchScratches.set(table, (scratch = new Int32Array(Math.max(n, Math.ceil((scratch?.length ?? 0) * 1.25)))));
  return scratch;
}

/**
 * How many rows the plan matches, from the start-order indexes when they can answer alone:
 * no clause but roots and a started_at window that is the whole expression, and no deleted
 * row. Then the count is the length of the (roots) index, or of the window's run in it (two
 * binary searches). Null otherwise.
 */
export function countFromIndexes(plan: CallsPlan): number | null {
  const f = plan.filter;
  if (f === null) return 0;
  const table = plan.project.calls;
  if (f.candidates !== null || f.residual !== null || f.opMatch !== null) return null;
  if (plan.expr !== null && (plan.window === null || !plan.window.whole)) return null;
  if (hasDeletedRows(table)) return null;
  const order = f.rootsOnly ? rootStartOrder(table) : startOrder(table);
  if (order === null) return null;
  if (plan.window === null) return order.length;
  const [from, to] = windowRun(order, table.startedAt.data, plan.window);
  return to - from;
}

/**
 * Validates and plans a calls query; the returned iterable yields chunks of JSON lines as
 * bytes (StreamResult.chunks), rendered as they are pulled.
 */
export function prepareCallsQuery(engine: Engine, req: CallsQuery, canRead: CanRead): Iterable<Uint8Array> {
  const prefix = engine.options.fieldPrefix;
  const plan = planCallsQuery(engine, req, canRead);
  const { project, resolver, terms, filter, expr } = plan;
  if (filter === null) return [];
  const offset = req.offset ?? 0;
  const page = startOrderPage(project.calls, filter, expr, terms, offset, req.limit, plan.window) ?? orderRows(matchingRows(plan), terms, resolver, offset, req.limit);
  const selected = selectColumns(req, prefix);
  const options = { store: engine.store, project, req, prefix, selected, canRead };
  const shape = renderedLineShape(options);
  if (shape !== null) registerKeptLines(engine.store);
  return pageChunks(project.calls, page, rowWriter(options), undefined, shape);
}

/**
 * The rows that pass the filter plan and the expression, ascending. Fused typed loops: this
 * runs per call, so deletion and roots are read from the columns directly and a closure is
 * called only for the other clauses.
 */
function scanRows(plan: FilterPlan, expr: ((row: number) => boolean | null) | null, table: CallTable): Int32Array {
  const candidates = plan.candidates;
  const n = candidates === null ? table.size : candidates.length;
  const out = matchScratch(table, n);
  const deleted = table.deletedAt.data;
  const rootsOnly = plan.rootsOnly;
  const residual = plan.residual;
  const opMatch = plan.opMatch;
  const opIndex = table.opIndex.data;
  let m = 0;
  if (candidates === null && expr === null && residual === null && opMatch === null && !rootsOnly) {
    for (let row = 0; row < n; row++) {
      const d = deleted[row];
      if (d !== d) out[m++] = row; // not deleted (NaN)
    }
  } else {
    for (let i = 0; i < n; i++) {
      const row = candidates === null ? i : candidates[i];
      const d = deleted[row];
      if (d === d || (rootsOnly && !table.isRoot(row))) continue;
      if (opMatch !== null && opMatch[opIndex[row]] !== 1) continue;
      if ((residual === null || residual(row)) && (expr === null || expr(row) === true)) out[m++] = row;
    }
  }
  return out.subarray(0, m);
}
