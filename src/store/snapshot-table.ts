/**
 * A CallTable to and from its load snapshot image (CallTableImage), column by column through
 * each column's own image()/restore(): string columns become string numbers, typed columns and
 * arena chunks go out as views (not copies) and come back as views of the snapshot's bytes,
 * sparse columns as (rows, values) and are made a cell at a time when read.
 */
import type { CallTable } from './call-table.ts';
import type { ByteArena, SparseColumn, StringTable } from './columns.ts';
import type { SnapshotBodies } from './snapshot-bodies.ts';
import type { CallTableImage, SparseNumbers, SparseStringLists, SparseStrings } from './snapshot-image.ts';

/**
 * The table as flat arrays; strings become numbers through `str` (numbered in the order asked:
 * the id columns first, then op names, then the sparse strings, as the format has always done).
 */
export function imageTable(table: CallTable, str: (s: string) => number): CallTableImage {
  const c = table.columnsToImage();
  const n = table.size;
  return {
    size: n,
    ids: c.ids.image(str),
    traceIds: c.traceIds.image(str),
    parentIds: c.parentIds.image(str),
    threadIds: c.threadIds.image(str),
    turnIds: c.turnIds.image(str),
    userIds: c.userIds.image(str),
    opNames: Int32Array.from(c.opNames.values, str),
    opIndex: c.opIndex.image(),
    startedAt: c.startedAt.image(),
    endedAt: c.endedAt.image(),
    deletedAt: c.deletedAt.image(),
    statusErrorCount: c.statusErrorCount.image(),
    runStep: sparseNumbers(c.runStep),
    runStepEnd: sparseNumbers(c.runStepEnd),
    displayNames: sparseStrings(c.displayNames, str),
    exceptions: sparseStrings(c.exceptions, str),
    runIds: sparseStrings(c.runIds, str),
    inputRefs: sparseStringLists(c.inputRefs, str),
    outputRefs: sparseStringLists(c.outputRefs, str),
    ...c.bodies.image(n),
    arenaChecksums: new Int32Array(0),
    bodyChecksums: new Int32Array(0),
    startOrder: new Int32Array(0),
    rootOrder: new Int32Array(0),
  };
}

/**
 * Fills an empty table with the one an image describes, as a fixture load would have built it:
 * the string columns keep their numbers (strings are made on use), typed columns are views,
 * bodies stay in `arena` until read (by `bodies`), indexes are built on first use.
 */
export function restoreTable(table: CallTable, image: CallTableImage, strings: StringTable, arena: ByteArena, bodies: SnapshotBodies | null = null): void {
  const n = image.size;
  table.restoreColumns(n, (c) => {
    c.ids.restore(image.ids, strings, n);
    c.traceIds.restore(image.traceIds, strings, n);
    c.parentIds.restore(image.parentIds, strings, n);
    c.threadIds.restore(image.threadIds, strings, n);
    c.turnIds.restore(image.turnIds, strings, n);
    c.userIds.restore(image.userIds, strings, n);
    for (const i of image.opNames) c.opNames.id(strings.get(i));
    c.opIndex.restore(image.opIndex, n);
    c.startedAt.restore(image.startedAt, n);
    c.endedAt.restore(image.endedAt, n);
    c.deletedAt.restore(image.deletedAt, n);
    c.statusErrorCount.restore(image.statusErrorCount, n);
    // Sparse cells are made when first read (most queries read a few rows of them).
    const numbers = (col: SparseColumn<number>, from: SparseNumbers) => col.restore(from.rows, (k) => from.values[k]);
    const texts = (col: SparseColumn<string>, from: SparseStrings) => col.restore(from.rows, (k) => strings.get(from.values[k]));
    const lists = (col: SparseColumn<string[]>, from: SparseStringLists) => {
      const starts = new Int32Array(from.counts.length + 1);
      for (let k = 0; k < from.counts.length; k++) starts[k + 1] = starts[k] + from.counts[k];
      col.restore(from.rows, (k) => {
        const list: string[] = [];
        for (let at = starts[k]; at < starts[k + 1]; at++) list.push(strings.get(from.values[at]));
        return list;
      });
    };
    numbers(c.runStep, image.runStep);
    numbers(c.runStepEnd, image.runStepEnd);
    texts(c.displayNames, image.displayNames);
    texts(c.exceptions, image.exceptions);
    texts(c.runIds, image.runIds);
    lists(c.inputRefs, image.inputRefs);
    lists(c.outputRefs, image.outputRefs);
    c.bodies.restore(n, image, arena, bodies);
  });
}

function sparseNumbers(c: SparseColumn<number>): SparseNumbers {
  const rows: number[] = [], values: number[] = [];
  for (const [r, v] of c.entries()) rows.push(r), values.push(v);
  return { rows: Int32Array.from(rows), values: Float64Array.from(values) };
}

function sparseStrings(c: SparseColumn<string>, str: (s: string) => number): SparseStrings {
  const rows: number[] = [], values: number[] = [];
  for (const [r, v] of c.entries()) rows.push(r), values.push(str(v));
  return { rows: Int32Array.from(rows), values: Int32Array.from(values) };
}

function sparseStringLists(c: SparseColumn<string[]>, str: (s: string) => number): SparseStringLists {
  const rows: number[] = [], counts: number[] = [], values: number[] = [];
  for (const [r, list] of c.entries()) {
    rows.push(r);
    counts.push(list.length);
    for (const v of list) values.push(str(v));
  }
  return { rows: Int32Array.from(rows), counts: Int32Array.from(counts), values: Int32Array.from(values) };
}
