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
import type { PackedRowTexts, ProjectStore } from '../store/project.ts';
import { storedRowText } from '../core/json/stored-text.ts';
import { packStrings, unpackStrings, type PackedStrings } from '../api/packed-strings.ts';

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
 * What a table write derives from its rows alone (semantics.md#digest-row): each row's digest,
 * and the stored text of each row whose digest did not come earlier in the list ('' for a
 * repeat). Pure, so that a large write can derive it off the event loop (Route.prepare);
 * packed (src/api/packed-strings.ts) so that handing it back is cheap.
 */
export interface DerivedRows {
  digests: PackedStrings;
  texts: PackedStrings;
}

export function deriveRows(rows: readonly LosslessObject[], progress?: (share: number) => void): DerivedRows {
  const digests: string[] = [];
  const texts: string[] = [];
  const seen = new Set<string>();
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i];
    const digest = rowDigest(row);
    digests.push(digest);
    texts.push(seen.has(digest) ? '' : storedRowText(row));
    seen.add(digest);
    if (progress !== undefined && (i & PROGRESS_ROWS_MASK) === PROGRESS_ROWS_MASK) progress(i / rows.length);
  }
  return { digests: packStrings(digests), texts: packStrings(texts) };
}

/** Progress is told every 4096 rows (a million-row fixture table takes a minute). */
const PROGRESS_ROWS_MASK = 4095;

/**
 * The stored texts of the rows the project does not hold yet (first writer wins), computed before
 * anything is stored so that a throw stores nothing. `texts` are slices of one packed string
 * (`packedLength` long), and a slice keeps all of it alive: when the new rows are under half of
 * it (a body of rows mostly held already), each is copied out, so a small write cannot pin a
 * 32 MiB string.
 */
function newRowTexts(engine: Engine, projectId: string, digests: readonly string[], texts: readonly string[], packedLength: number, isNew?: Uint8Array, textOf?: Int32Array): Array<[string, string]> {
  const held = engine.store.project(projectId)?.rows;
  // Digest → the index of its first new row (whose text is stored).
  const out = new Map<string, number>();
  let newLength = 0;
  for (let i = 0; i < digests.length; i++) {
    const digest = digests[i];
    let first = -1;
    if ((isNew === undefined || isNew[i] === 1) && !held?.has(digest)) {
      const seen = out.get(digest);
      if (seen === undefined) {
        out.set(digest, (first = i));
        newLength += texts[i].length;
      } else first = seen;
    }
    if (textOf !== undefined) textOf[i] = first;
  }
  const entries: Array<[string, string]> = [];
  for (const [digest, i] of out) entries.push([digest, texts[i]]);
  if (newLength * 2 < packedLength) {
    for (const entry of entries) entry[1] = ownCopy(entry[1]);
    textOf?.fill(-1);
  }
  return entries;
}

/**
 * Where each position's stored text sits in the packed texts, given the index of the row whose
 * text it is (newRowTexts' `textOf`, -1: none of this write's).
 */
function packedRowTexts(texts: PackedStrings, textOf: Int32Array): PackedRowTexts | undefined {
  const n = textOf.length;
  const from = new Int32Array(n), to = new Int32Array(n);
  let any = false;
  for (let i = 0; i < n; i++) {
    const j = textOf[i];
    if (j < 0) from[i] = -1;
    else {
      from[i] = j === 0 ? 0 : texts.ends[j - 1];
      to[i] = texts.ends[j];
      any = true;
    }
  }
  return any ? { text: texts.text, from, to } : undefined;
}

/** A string that shares no memory with the one it was sliced from. */
const ownCopy = (text: string): string => Buffer.from(text, 'utf8').toString('utf8');

function storeRows(project: ProjectStore, texts: ReadonlyArray<[string, string]>): void {
  for (const [digest, text] of texts) project.rows.set(digest, { digest, text });
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
  return storeCreatedTable(engine, projectId, deriveRows(rows, progress), expectedDigest);
}

/** `table_create` from its derived rows (the store half of createTable). */
export function storeCreatedTable(
  engine: Engine,
  projectId: string,
  rows: DerivedRows,
  expectedDigest?: string | null,
): { digest: string; row_digests: string[] } {
  const rowDigests = unpackStrings(rows.digests);
  const digest = tableDigest(rowDigests);
  checkExpectedDigest(expectedDigest, digest, `table (${rowDigests.length} rows)`);
  const textOf = new Int32Array(rowDigests.length);
  const texts = newRowTexts(engine, projectId, rowDigests, unpackStrings(rows.texts), rows.texts.text.length, undefined, textOf);
  const project = engine.store.projectForWrite(projectId);
  storeRows(project, texts);
  project.storeTable(digest, rowDigests.slice(), undefined, packedRowTexts(rows.texts, textOf));
  return { digest, row_digests: rowDigests };
}

/** A table update with its row (if any) as an index into the update's derived rows. */
export type DerivedTableUpdate = { append: number } | { pop: number } | { insert: number; at: number };

/** The updates with their rows derived (deriveRows), rows numbered in update order. */
export function deriveTableUpdates(updates: readonly TableUpdate[]): { updates: DerivedTableUpdate[]; rows: DerivedRows } {
  const rows: LosslessObject[] = [];
  const derived = updates.map((u): DerivedTableUpdate => {
    if ('pop' in u) return { pop: u.pop.index };
    rows.push('append' in u ? u.append.row : u.insert.row);
    return 'append' in u ? { append: rows.length - 1 } : { insert: rows.length - 1, at: u.insert.index };
  });
  return { updates: derived, rows: deriveRows(rows) };
}

/**
 * `table_update` (semantics.md#writes-table-update): updates apply in order to the evolving list;
 * pop takes 0 ≤ index < length, insert 0 ≤ index ≤ length, no negative indexes
 * (semantics.md#writes-table-update-indexes); one `updated_row_digests` entry per update, popped
 * digests included (semantics.md#writes-table-update-digests). Nothing is stored unless every
 * update is valid. An unknown base table is a 404 (ClickHouse). The updates come derived
 * (deriveTableUpdates), so this part only reads and changes the store.
 */
export function storeUpdatedTable(
  engine: Engine,
  projectId: string,
  baseDigest: string,
  updates: readonly DerivedTableUpdate[],
  rows: DerivedRows,
): { digest: string; updated_row_digests: string[] } {
  const base = engine.store.project(projectId)?.tables.get(baseDigest);
  if (base === undefined) throw tqError('TQ_TABLE_NOT_FOUND', { project: projectId, digest: baseDigest });
  const rowDigests = unpackStrings(rows.digests);
  const list = base.slice();
  const known = new Set(list);
  // A row is new when its digest is neither in the base list nor an earlier update's.
  const isNew = new Uint8Array(rowDigests.length);
  const addRow = (row: number): string => {
    const digest = rowDigests[row];
    if (!known.has(digest)) {
      known.add(digest);
      isNew[row] = 1;
    }
    return digest;
  };
  const updated: string[] = [];
  for (const u of updates) {
    if ('append' in u) {
      const d = addRow(u.append);
      list.push(d);
      updated.push(d);
    } else if ('pop' in u) {
      const i = u.pop;
      if (i < 0 || i >= list.length) throw invalidRequest('TQ_INDEX_OUT_OF_RANGE');
      updated.push(list.splice(i, 1)[0]);
    } else {
      const i = u.at;
      if (i < 0 || i > list.length) throw invalidRequest('TQ_INDEX_OUT_OF_RANGE');
      const d = addRow(u.insert);
      list.splice(i, 0, d);
      updated.push(d);
    }
  }
  const texts = newRowTexts(engine, projectId, rowDigests, unpackStrings(rows.texts), rows.texts.text.length, isNew);
  const digest = tableDigest(list);
  const project = engine.store.projectForWrite(projectId);
  storeRows(project, texts);
  project.storeTable(digest, list);
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
  engine.store.projectForWrite(projectId).storeTable(digest, rowDigests.slice());
  return { digest };
}
