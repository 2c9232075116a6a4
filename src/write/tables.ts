/**
 * Table writes (semantics.md#writes-table-create, semantics.md#writes-table-update,
 * semantics.md#writes-table-from-digests). Tables are immutable values: a table is its ordered list
 * of row digests, named by the digest of that list (semantics.md#digest-table); rows are stored
 * once per digest, first body wins (semantics.md#table-val-verbatim). Rows arrive losslessly parsed
 * so that their digests are Weave's (semantics.md#digest-row).
 */
import type { Engine } from '../api/types.ts';
import { invalidRequest, tqError } from '../core/errors.ts';
import { rowDigest, tableDigest } from '../core/digest.ts';
import type { LosslessObject } from '../core/json/lossless.ts';
import type { ProjectStore } from '../store/project.ts';
import { storedRowText } from '../core/json/stored-text.ts';

export type TableUpdate =
  | { append: { row: LosslessObject } }
  | { pop: { index: number } }
  | { insert: { index: number; row: LosslessObject } };

/** Weave's DigestMismatchError (409) when a client-sent expected digest differs. */
export function checkExpectedDigest(expected: string | null | undefined, actual: string, label: string): void {
  if (expected !== null && expected !== undefined && expected !== actual) {
    throw tqError('TQ_EXPECTED_DIGEST_MISMATCH', { label, expected, actual });
  }
}

/**
 * The stored texts of the rows the project does not hold yet (first writer wins), computed before
 * anything is stored so that a throw stores nothing.
 */
function newRowTexts(engine: Engine, projectId: string, rows: ReadonlyArray<readonly [string, LosslessObject]>, progress?: (share: number) => void): Array<[string, string]> {
  const held = engine.store.project(projectId)?.rows;
  const texts = new Map<string, string>();
  for (let i = 0; i < rows.length; i++) {
    const [digest, row] = rows[i];
    if (!held?.has(digest) && !texts.has(digest)) texts.set(digest, storedRowText(row));
    if (progress !== undefined && (i & PROGRESS_ROWS_MASK) === PROGRESS_ROWS_MASK) progress(DIGEST_SHARE + ((1 - DIGEST_SHARE) * i) / rows.length);
  }
  return [...texts];
}

/** Progress is told every 4096 rows; digesting is about two thirds of a table's work, its texts the rest. */
const PROGRESS_ROWS_MASK = 4095;
const DIGEST_SHARE = 2 / 3;

function storeRows(project: ProjectStore, texts: ReadonlyArray<[string, string]>): void {
  for (const [digest, text] of texts) project.rows.set(digest, { digest, text });
}

/** Stores the table's digest list (idempotent: the same digest is the same list). */
function storeTable(project: ProjectStore, digest: string, rowDigests: string[]): void {
  if (!project.tables.has(digest)) project.tables.set(digest, rowDigests);
}

/**
 * `table_create` (semantics.md#writes-table-create): `{digest, row_digests}` with one row digest
 * per row, in order.
 */
export function createTable(
  engine: Engine,
  projectId: string,
  rows: readonly LosslessObject[],
  expectedDigest?: string | null,
  /** Told the share of the work done (0..1) now and then: a million-row fixture table takes a minute. */
  progress?: (share: number) => void,
): { digest: string; row_digests: string[] } {
  const rowDigests = new Array<string>(rows.length);
  for (let i = 0; i < rows.length; i++) {
    rowDigests[i] = rowDigest(rows[i]);
    if (progress !== undefined && (i & PROGRESS_ROWS_MASK) === PROGRESS_ROWS_MASK) progress((DIGEST_SHARE * i) / rows.length);
  }
  const digest = tableDigest(rowDigests);
  checkExpectedDigest(expectedDigest, digest, `table (${rowDigests.length} rows)`);
  const texts = newRowTexts(engine, projectId, rows.map((row, i) => [rowDigests[i], row] as const), progress);
  const project = engine.store.projectForWrite(projectId);
  storeRows(project, texts);
  storeTable(project, digest, rowDigests.slice());
  return { digest, row_digests: rowDigests };
}

/**
 * `table_update` (semantics.md#writes-table-update): updates apply in order to the evolving list;
 * pop takes 0 ≤ index < length, insert 0 ≤ index ≤ length, no negative indexes
 * (semantics.md#writes-table-update-indexes); one `updated_row_digests` entry per update, popped
 * digests included (semantics.md#writes-table-update-digests). Nothing is stored unless every
 * update is valid. An unknown base table is a 404 (ClickHouse).
 */
export function updateTable(
  engine: Engine,
  projectId: string,
  baseDigest: string,
  updates: readonly TableUpdate[],
): { digest: string; updated_row_digests: string[] } {
  const base = engine.store.project(projectId)?.tables.get(baseDigest);
  if (base === undefined) throw tqError('TQ_TABLE_NOT_FOUND', { project: projectId, digest: baseDigest });
  const list = base.slice();
  const known = new Set(list);
  const newRows: Array<[string, LosslessObject]> = [];
  const addRow = (row: LosslessObject): string => {
    const digest = rowDigest(row);
    if (!known.has(digest)) {
      known.add(digest);
      newRows.push([digest, row]);
    }
    return digest;
  };
  const updated: string[] = [];
  for (const u of updates) {
    if ('append' in u) {
      const d = addRow(u.append.row);
      list.push(d);
      updated.push(d);
    } else if ('pop' in u) {
      const i = u.pop.index;
      if (i < 0 || i >= list.length) throw invalidRequest('TQ_INDEX_OUT_OF_RANGE');
      updated.push(list.splice(i, 1)[0]);
    } else {
      const i = u.insert.index;
      if (i < 0 || i > list.length) throw invalidRequest('TQ_INDEX_OUT_OF_RANGE');
      const d = addRow(u.insert.row);
      list.splice(i, 0, d);
      updated.push(d);
    }
  }
  const texts = newRowTexts(engine, projectId, newRows);
  const digest = tableDigest(list);
  const project = engine.store.projectForWrite(projectId);
  storeRows(project, texts);
  storeTable(project, digest, list);
  return { digest, updated_row_digests: updated };
}

/**
 * `table_create_from_digests` (semantics.md#writes-table-from-digests): stores the list without
 * checking that the rows exist.
 */
export function createTableFromDigests(
  engine: Engine,
  projectId: string,
  rowDigests: readonly string[],
  expectedDigest?: string | null,
): { digest: string } {
  const digest = tableDigest(rowDigests);
  checkExpectedDigest(expectedDigest, digest, `table (${rowDigests.length} rows)`);
  storeTable(engine.store.projectForWrite(projectId), digest, rowDigests.slice());
  return { digest };
}
