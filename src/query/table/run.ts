/**
 * The rows of one table (semantics.md#table): filter by row digest, order by dot
 * paths (row-sort.ts), page, and render `{digest, val, original_index}`.
 *
 * `original_index` is the row's position in the table's digest list, kept through filter,
 * sort and paging (semantics.md#table-original-index); a digest listed k times yields k rows
 * (semantics.md#table-duplicates); a listed digest with no stored body is skipped and leaves a gap
 * in the indexes (semantics.md#table-missing-bodies); an unknown table is an empty result, not an
 * error (semantics.md#table-unknown-digest).
 */
import type { Engine } from '../../api/types.ts';
import { exactPlain, parseExact } from '../../core/json/exact.ts';
import { parseLossless } from '../../core/json/lossless.ts';
import type { StoredRow } from '../../store/project.ts';
import { topK } from '../sort.ts';
import type { TableQuery, TableQueryStats } from './request.ts';
import { columnsComparator, rowSortValue, setSortColumns, type RowSortValue, type SortColumns } from './row-sort.ts';

/** One result row: the stored body and its position in the table. */
export interface TableRowHit {
  row: StoredRow;
  original_index: number;
}

const NO_ROWS: readonly string[] = [];

/** The parsed value of a stored row, cached on the row (shared with ref resolution). */
export function parsedRow(row: StoredRow): unknown {
  if (row.parsed === undefined) row.parsed = parseRowText(row.text);
  return row.parsed;
}

function parseRowText(text: string): unknown {
  try {
    return parseExact(text);
  } catch {
    // Python's json writes NaN/Infinity, which JSON.parse refuses.
    return exactPlain(parseLossless(text));
  }
}

/**
 * The rows a table query returns, in order. Without `sort_by` the rows are produced lazily in
 * table order; with it, every candidate is keyed and only the first `offset + limit` are
 * selected (bounded top-k).
 */
export function queryTableRows(engine: Engine, req: TableQuery): Iterable<TableRowHit> {
  if (req.limit === 0) return [];
  const project = engine.store.project(req.project_id);
  const digests = project?.tables.get(req.digest) ?? NO_ROWS;
  if (!project || digests.length === 0) return [];
  const rows = project.rows;
  const wanted = req.row_digests === null ? null : new Set(req.row_digests);
  const offset = req.offset ?? 0;
  const limit = req.limit;

  if (req.sort_by.length === 0) {
    // semantics.md#table-default-order: table order; paging counts only rows that exist and pass
    // the filter.
    return (function* () {
      let skipped = 0, emitted = 0;
      for (let i = 0; i < digests.length; i++) {
        if (limit !== null && emitted >= limit) return;
        const d = digests[i];
        if (wanted !== null && !wanted.has(d)) continue;
        const row = rows.get(d);
        if (row === undefined) continue;
        if (skipped < offset) {
          skipped++;
          continue;
        }
        emitted++;
        yield { row, original_index: i };
      }
    })();
  }

  // Candidates as positions in the table; only the selected ones become hits.
  const positions = candidatePositions(digests, rows, wanted);
  const columns = req.sort_by.map((term) => tableSortColumns(digests, rows, term.path));
  const cmp = columnsComparator(columns, req.sort_by.map((t) => t.order), positions);
  const k = limit === null ? positions.length : Math.min(positions.length, offset + limit);
  return topK(positions.length, k, cmp)
    .slice(offset)
    .map((j) => ({ row: rows.get(digests[positions[j]])!, original_index: positions[j] }));
}

/**
 * The positions whose digest has a stored row (and is wanted). Unfiltered, they are cached per
 * table: a table never changes and rows are only ever added, so the list stays right while
 * the project's row count is the same (a sort of a million rows then does no lookup per row).
 */
const positionCache = new WeakMap<readonly string[], { rowCount: number; positions: Int32Array }>();

/** Drops a table's cached positions and sort readings: the state right after a load. */
export function forgetTableCaches(digests: readonly string[]): void {
  positionCache.delete(digests);
  sortCache.delete(digests);
}

export function candidatePositions(digests: readonly string[], rows: ReadonlyMap<string, StoredRow>, wanted: ReadonlySet<string> | null): Int32Array {
  const cached = wanted === null ? positionCache.get(digests) : undefined;
  if (cached && cached.rowCount === rows.size) return cached.positions;
  const found = new Int32Array(digests.length);
  let n = 0;
  for (let i = 0; i < digests.length; i++) {
    const d = digests[i];
    if (wanted !== null && !wanted.has(d)) continue;
    if (rows.has(d)) found[n++] = i;
  }
  const positions = found.slice(0, n);
  if (wanted === null) positionCache.set(digests, { rowCount: rows.size, positions });
  return positions;
}

/**
 * Sort readings of one path for every position of a table, cached: a table (its digest list)
 * and its rows are content-addressed and never change, so the readings of a path are computed
 * once, and a repeated sort reads typed arrays instead of parsing rows. A few paths per table
 * are kept (least recently used goes first).
 */
const sortCache = new WeakMap<readonly string[], Map<string, SortColumns>>();
const SORT_PATHS_PER_TABLE = 8;

function tableSortColumns(digests: readonly string[], rows: ReadonlyMap<string, StoredRow>, path: readonly string[]): SortColumns {
  let perPath = sortCache.get(digests);
  if (!perPath) sortCache.set(digests, (perPath = new Map()));
  const key = JSON.stringify(path);
  let cols = perPath.get(key);
  if (cols) {
    perPath.delete(key); // refresh its place in the LRU order
  } else {
    const n = digests.length;
    cols = { present: new Uint8Array(n), tier: new Uint8Array(n), float: new Float64Array(n), text: new Array<string>(n) };
    const byDigest = new Map<string, RowSortValue>();
    let complete = true;
    for (let i = 0; i < n; i++) {
      const row = rows.get(digests[i]);
      if (row === undefined) {
        complete = false; // the row may be stored later: do not cache a gap
        continue;
      }
      let v = byDigest.get(row.digest);
      // Parsed here without keeping the parse on the row: the readings are what is kept.
      if (v === undefined) byDigest.set(row.digest, (v = rowSortValue(row.parsed ?? parseRowText(row.text), path)));
      setSortColumns(cols, i, v);
    }
    if (!complete) return cols;
    if (perPath.size >= SORT_PATHS_PER_TABLE) perPath.delete(perPath.keys().next().value as string);
  }
  perPath.set(key, cols);
  return cols;
}

/** CR/LF can only be insignificant whitespace in JSON text (never raw inside a string). */
const LINE_BREAKS = /[\r\n]/g;

/**
 * One JSONL line; `val` is the stored text verbatim (original key order, `1.0`, big ints:
 * semantics.md#table-val-verbatim), minus any line breaks a pretty-printed body would carry, which
 * would split the line.
 */
export function tableRowLine(hit: TableRowHit): string {
  const text = hit.row.text;
  const val = text.includes('\n') || text.includes('\r') ? text.replace(LINE_BREAKS, '') : text;
  return `{"digest":${JSON.stringify(hit.row.digest)},"val":${val},"original_index":${hit.original_index}}`;
}

/** The row as a plain object (the non-streaming `/table/query` body). */
export function tableRowObject(hit: TableRowHit): { digest: string; val: unknown; original_index: number } {
  return { digest: hit.row.digest, val: parsedRow(hit.row), original_index: hit.original_index };
}

/**
 * semantics.md#table-stats: the length of the table's digest list, duplicates included; unknown
 * table → 0.
 */
export function tableQueryStats(engine: Engine, req: TableQueryStats): { count: number } {
  return { count: engine.store.project(req.project_id)?.tables.get(req.digest)?.length ?? 0 };
}
