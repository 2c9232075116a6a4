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
import { stringBytes, type DerivedCache } from '../../store/derived.ts';
import type { PackedRowTexts, StoredRow } from '../../store/project.ts';
import type { Store } from '../../store/store.ts';
import { selectWindow } from '../sort.ts';
import type { TableQuery, TableQueryStats } from './request.ts';
import { firstKeyCandidates } from './sort-candidates.ts';
import { columnsComparator, lazySortColumns, rowSortSteps, type RowSortSteps, rowSortValue, setSortColumns, setSortColumnsOfSpan, setSortColumnsOfText, type SortColumns } from './row-sort.ts';
import { locatePathBytes, type PathStep } from '../../core/json/path-extract.ts';
import { PackedTextMemberWalk, TextMemberWalk } from '../../core/json/path-walk.ts';
import { isNullLiteral } from '../../core/json/bytes.ts';

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
  const caches = tableCaches(engine.store);
  const whenStored = project.tableRowsWhenStored.get(req.digest);
  const positions = candidatePositions(caches, digests, rows, wanted, whenStored);
  const byPosition = resolvedTable(caches, digests, rows, whenStored).rows;
  const packed = project.tableTextsWhenStored.get(req.digest);
  const columns = req.sort_by.map((term) => tableSortColumns(caches, digests, byPosition, term.path, packed));
  const k = limit === null ? positions.length : Math.min(positions.length, offset + limit);
  // Only rows that can reach the first k on the first term's readings are ranked in full.
  const ranked = firstKeyCandidates(columns[0], req.sort_by[0].order === 'desc', positions, k) ?? positions;
  const cmp = columnsComparator(columns, req.sort_by.map((t) => t.order), ranked);
  return selectWindow(ranked.length, offset, k, cmp).map((j) => ({ row: byPosition[ranked[j]]!, original_index: ranked[j] }));
}

/** Tables whose positions and sort readings are kept (least recently used goes first). */
const CACHED_TABLES = 16;
/** Sort paths kept per table. */
const SORT_PATHS_PER_TABLE = 8;

/**
 * Per-table derived data, in the store's derived caches (per engine, counted): a table (its
 * digest list) and its rows are content-addressed and never change, so its candidate
 * positions and the sort readings of a path stay right while the project's rows are the same.
 */
export class TableCaches implements DerivedCache {
  readonly positions = new Map<readonly string[], ResolvedTable>();
  readonly sorts = new Map<readonly string[], Map<string, SortColumns>>();

  clear(): void {
    this.positions.clear();
    this.sorts.clear();
  }

  bytes(): number {
    let n = 0;
    for (const p of this.positions.values()) n += p.positions.byteLength + 8 * p.rows.length + (p.keys?.byteLength ?? 0);
    for (const perPath of this.sorts.values()) {
      for (const [key, c] of perPath) {
        n += stringBytes(key) + c.present.byteLength + c.tier.byteLength + c.float.byteLength + 8 * c.text.length;
        n += (c.prefix?.byteLength ?? 0) + (c.textFrom?.byteLength ?? 0) + (c.textTo?.byteLength ?? 0);
        for (const t of c.text) if (t !== undefined) n += stringBytes(t);
      }
    }
    return n;
  }
}

export const tableCaches = (store: Store): TableCaches => store.derived.get('table.positions_and_sorts', () => new TableCaches());

/** `map.get(key)`, moved to the most recently used end. */
function touch<K, V>(map: Map<K, V>, key: K): V | undefined {
  const v = map.get(key);
  if (v !== undefined) {
    map.delete(key);
    map.set(key, v);
  }
  return v;
}

/** Sets `key` as the most recently used, evicting the least recently used beyond `limit`. */
function remember<K, V>(map: Map<K, V>, key: K, value: V, limit: number): void {
  map.delete(key);
  if (map.size >= limit) map.delete(map.keys().next().value as K);
  map.set(key, value);
}

/** A table's rows resolved by position (undefined where no body is stored), and the positions that have one. */
interface ResolvedTable {
  rowCount: number;
  rows: ReadonlyArray<StoredRow | undefined>;
  positions: Int32Array;
  /** digestKey of each position's digest, made by the first digest filter on the table. */
  keys?: Uint32Array;
}

/**
 * A number from a digest's first characters, for a prefilter only (equal digests, equal keys;
 * the converse is checked by the string). Row digests are hashes, so a few characters spread.
 */
function digestKey(d: string): number {
  let h = 0;
  const n = Math.min(d.length, 6);
  for (let i = 0; i < n; i++) h = (Math.imul(h, 33) + d.charCodeAt(i)) | 0;
  return h >>> 0;
}

/** Bits of the wanted-key set a digest filter builds per query (32 KiB). */
const WANTED_KEY_BITS = 1 << 18;

/**
 * The table's rows by position, one digest lookup each, cached per table: rows are only ever
 * added, so the list stays right while the project's row count is the same. A first sort looks
 * each digest up once here (a lookup in a million-entry map misses the caches several times),
 * then reads rows by position.
 */
export function resolvedTable(caches: TableCaches, digests: readonly string[], rows: ReadonlyMap<string, StoredRow>, whenStored?: ReadonlyArray<StoredRow | undefined>): ResolvedTable {
  const cached = touch(caches.positions, digests);
  if (cached && cached.rowCount === rows.size) return cached;
  const n = digests.length;
  // The rows as the table was stored (ProjectStore.storeTable): only its gaps are looked up.
  const stored = whenStored !== undefined && whenStored.length === n ? whenStored : null;
  if (stored !== null && !stored.includes(undefined)) {
    // Every body was stored with the table: its rows as they are, every position present.
    const every = new Int32Array(n);
    for (let i = 0; i < n; i++) every[i] = i;
    const table = { rowCount: rows.size, rows: stored, positions: every };
    remember(caches.positions, digests, table, CACHED_TABLES);
    return table;
  }
  // Pushed, not `new Array(n)`: a large preallocated array is a slow dictionary.
  const resolved: Array<StoredRow | undefined> = [];
  const found = new Int32Array(n);
  let present = 0;
  for (let i = 0; i < n; i++) {
    const row = stored?.[i] ?? rows.get(digests[i]);
    resolved.push(row);
    if (row !== undefined) found[present++] = i;
  }
  const table = { rowCount: rows.size, rows: resolved, positions: present === n ? found : found.slice(0, present) };
  remember(caches.positions, digests, table, CACHED_TABLES);
  return table;
}

/** The positions whose digest has a stored row (and is wanted). */
export function candidatePositions(caches: TableCaches, digests: readonly string[], rows: ReadonlyMap<string, StoredRow>, wanted: ReadonlySet<string> | null, whenStored?: ReadonlyArray<StoredRow | undefined>): Int32Array {
  const table = resolvedTable(caches, digests, rows, whenStored);
  if (wanted === null) return table.positions;
  // A set lookup of every position's digest cost ~40 ms at a million rows for a filter of a
  // thousand: a bit per wanted key first, the string only where the key's bit is set.
  if (table.keys === undefined) {
    const keys = new Uint32Array(digests.length);
    for (let i = 0; i < digests.length; i++) keys[i] = digestKey(digests[i]);
    table.keys = keys;
  }
  const keys = table.keys;
  const mask = WANTED_KEY_BITS - 1;
  const bits = new Uint32Array(WANTED_KEY_BITS >>> 5);
  for (const d of wanted) {
    const k = digestKey(d) & mask;
    bits[k >>> 5] |= 1 << (k & 31);
  }
  const positions = table.positions;
  const found = new Int32Array(positions.length);
  let n = 0;
  for (let j = 0; j < positions.length; j++) {
    const i = positions[j];
    const k = keys[i] & mask;
    if ((bits[k >>> 5] & (1 << (k & 31))) !== 0 && wanted.has(digests[i])) found[n++] = i;
  }
  return found.slice(0, n);
}

/**
 * Sort readings of one path for every position of a table, cached: a repeated sort reads
 * typed arrays instead of parsing rows.
 */
function tableSortColumns(caches: TableCaches, digests: readonly string[], rows: ReadonlyArray<StoredRow | undefined>, path: readonly string[], packed?: PackedRowTexts): SortColumns {
  let perPath = touch(caches.sorts, digests);
  if (!perPath) remember(caches.sorts, digests, (perPath = new Map()), CACHED_TABLES);
  const key = JSON.stringify(path);
  let cols = touch(perPath, key);
  if (cols) return cols;
  const n = digests.length;
  cols = lazySortColumns(n, rows);
  const steps = rowSortSteps(path);
  // A path of keys only has its first key found in batches of rows, in WebAssembly
  // (core/json/path-walk.ts), the rest walked from there.
  const walked = steps !== null && steps.sameWalk && steps.bytesWalk && steps.value.length > 0;
  if (walked) {
    const textOf = (i: number) => textToWalk(rows[i]);
    const walk = packed !== undefined && packed.from.length === n ? new PackedTextMemberWalk(steps.value[0], packed.text, packed.from, packed.to, textOf, n) : new TextMemberWalk(steps.value[0], textOf, n);
    if (walkRows(cols, rows, path, steps, walk)) remember(perPath, key, cols, SORT_PATHS_PER_TABLE);
    return cols;
  }
  let complete = true;
  for (let i = 0; i < n; i++) {
    const row = rows[i];
    if (row === undefined) {
      complete = false; // the row may be stored later: do not cache a gap
      continue;
    }
    // A row not parsed yet is not parsed here: the path is walked over its stored text
    // (setSortColumnsOfText), and only the readings are kept. A digest listed twice is read
    // twice, which costs less than remembering every digest read.
    if (row.parsed !== undefined || steps === null) setSortColumns(cols, i, rowSortValue(row.parsed ?? parseRowText(row.text), path));
    else setSortColumnsOfText(cols, i, row.text, steps);
  }
  if (complete) remember(perPath, key, cols, SORT_PATHS_PER_TABLE);
  return cols;
}

/**
 * tableSortColumns' loop over the rows, their path's first key walked in batches
 * (core/json/path-walk.ts; rows that are one string's slices, PackedTextMemberWalk, are encoded
 * a run at a time). For a one-key path the module also reads most rows' readings itself
 * (RowTextWalk.readBatch); the others are read here from the spans it found. Whether every row
 * had a body (a gap may be filled later: the readings are then not cached).
 */
function walkRows(cols: SortColumns, rows: ReadonlyArray<StoredRow | undefined>, path: readonly string[], steps: RowSortSteps, walk: TextMemberWalk | PackedTextMemberWalk): boolean {
  const rest = steps.value.slice(1);
  const n = cols.present.length;
  let complete = true;
  if (rest.length === 0 && n > 0) {
    for (let i = 0; i < n; ) {
      const r = walk.readBatch(i, cols.present, cols.tier, cols.prefix!, cols.textFrom!, cols.textTo!);
      if (r === 0) break; // not in WebAssembly: row by row below
      const here = walk.readHere;
      for (let k = 0; k < r; k++) if (here[k] === 0 && !readRow(cols, rows, path, steps, rest, walk, i + k)) complete = false;
      i += r;
      if (i === n) return complete;
    }
  }
  for (let i = 0; i < n; i++) if (!readRow(cols, rows, path, steps, rest, walk, i)) complete = false;
  return complete;
}

/** Row i's readings through the walk (false: the row has no body). */
function readRow(cols: SortColumns, rows: ReadonlyArray<StoredRow | undefined>, path: readonly string[], steps: RowSortSteps, rest: readonly PathStep[], walk: TextMemberWalk | PackedTextMemberWalk, i: number): boolean {
  const row = rows[i];
  if (row === undefined) return false;
  if (row.parsed !== undefined) {
    setSortColumns(cols, i, rowSortValue(row.parsed, path));
    return true;
  }
  const b = walk.walk(i);
  let s = walk.members.start[0], e = walk.members.end[0];
  let found = s >= 0;
  if (found && rest.length > 0) {
    found = locatePathBytes(b, s, e, rest, restSpan);
    s = restSpan[0];
    e = restSpan[1];
  }
  // An all-ASCII row (as many bytes as code units) lends its text's slices as values.
  setSortColumnsOfSpan(cols, i, row.text, steps, b, found, s, e, found && !isNullLiteral(b, s, e), walk.rowAscii ? walk.rowFrom : -1);
  return true;
}

/** The text a table's first sort walks for a row (a row parsed already is read parsed). */
const textToWalk = (row: StoredRow | undefined): string | null => (row === undefined || row.parsed !== undefined ? null : row.text);
const restSpan = new Int32Array(2);

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
