/**
 * Load snapshots, the pure half: the call tables a fixture load built, as flat byte blocks
 * (typed columns and arena chunks as they are in memory, strings as one text plus offsets), and
 * back. src/io/snapshot/ writes and reads the blocks; nothing here touches a file.
 *
 * What a snapshot holds is what loading calls.jsonl produces, every project's CallTable, and
 * what loading feedback.jsonl produces (the rows, as JSON) unless that load drew ids or times
 * (records without id or created_at get fresh ones on every load, so they are not frozen). The
 * other kinds (tables, objects, costs) are small and go through their write paths on every
 * load. Indexes (byId, byTrace, feedbackByRef, ...) are rebuilt; derived caches start empty.
 * SNAPSHOT_COVERAGE says, for every field, which of these it is; a test holds it to the classes.
 */
import { holdsLosslessNumber, parseExact, stringifyExact } from '../core/json/exact.ts';
import { ByteArena, StringTable } from './columns.ts';
import { crc32 } from './snapshot-checksum.ts';
import { SnapshotBodies } from './snapshot-bodies.ts';
import { adoptStartOrder, rootStartOrder, startOrder } from './start-order.ts';
import type { FeedbackRow } from './project.ts';
import type { Store } from './store.ts';
import type { CallTable } from './call-table.ts';
import type { CallTableImage } from './snapshot-image.ts';
import { OperationalError } from '../core/operational-errors.ts';
import { imageTable, restoreTable } from './snapshot-table.ts';

export type { CallTableImage, SparseNumbers, SparseStringLists, SparseStrings } from './snapshot-image.ts';

/**
 * Every own field of the store classes a snapshot restores, and how. A field added to one of
 * these classes fails snapshot.test.ts until it is listed here (and, if it holds loaded data,
 * written by imageTable/restoreTable in snapshot-table.ts).
 */
export const SNAPSHOT_COVERAGE = {
  CallTable: {
    imaged: [
      'idColumn', 'traceIdColumn', 'parentIdColumn', 'threadIdColumn', 'turnIdColumn', 'userIdColumn', 'opNames', 'opIndex',
      'startedAt', 'endedAt', 'deletedAt', 'statusErrorCount',
      'runStep', 'runStepEnd', 'displayNames', 'exceptions', 'runIds', 'inputRefs', 'outputRefs', 'bodies',
    ],
    /**
     * byId, byTrace, byParent, byThread, byTurn, byOp, turnsByThread and sharedStrings: rebuilt
     * from the imaged columns on first use, row by row as appendRow() fills them.
     */
    rebuilt: ['indexes'],
    /** Zero / empty after a fixture load; columnsToImage() refuses a table where they are not. */
    emptyAfterLoad: ['pendingEnds', 'version', 'startVersion'],
    /**
     * Rendered lines kept by the queries (RenderedLines) and their budget, and the recent users
     * in front of the shared strings (shareUser): derived, empty after a restore.
     */
    derived: ['renderedLines', 'renderedLinesBudget', 'recentUsers'],
  },
  ProjectStore: {
    imaged: ['calls', 'feedbackRows'],
    identity: ['projectId'],
    /** Rebuilt from the feedback rows (addFeedback), and from the restored tables and rows (storeTable). */
    rebuilt: ['feedbackIndex', 'tableRowsWhenStored'],
    /**
     * Where a created table's row texts sit in the string they were written in: known only when
     * the table was written in this process (a restored table's first sort encodes row by row).
     */
    derived: ['tableTextsWhenStored'],
    /** The snapshot's feedback rows until first used (deferFeedback). */
    bookkeeping: ['pendingFeedback'],
    /** Filled by the tables and objects files, each restored from a snapshot of its own (io/snapshot/kind-image.ts). */
    imagedPerFile: ['rows', 'tables', 'objects'],
    /** Written only by requests (the journal), never by a fixture file. */
    loadedNormally: ['files'],
  },
  Store: {
    imaged: ['projects'],
    /** Filled by the costs file, restored from a snapshot of its own (io/snapshot/kind-image.ts). */
    imagedPerFile: ['prices'],
    /** The queries' derived caches (Store.derived): they start empty, as after a load. */
    derived: ['derived'],
  },
  // The column classes a CallTable is made of: imageTable()/restoreTable() go through their
  // image()/restore() (or public data), so a new field in them must be looked at too.
  StringColumn: { imaged: ['values', 'nullable'], bookkeeping: ['numbers', 'strings'] },
  CallBodies: {
    imaged: ['arena', 'chunk', 'offset', 'length', 'partSpans', 'partSpansKnown'],
    /** Reads the restored rows' bodies from the snapshot as they are needed. */
    bookkeeping: ['restoredBodies'],
    /** Scratch space; starts empty, as after a load. */
    derived: ['spanScratch'],
  },
  /** Every index is rebuilt from the columns on first use; restoredRows says over how many rows. */
  CallIndexes: { rebuilt: ['maps'], bookkeeping: ['restoredRows', 'loadDeferral', 'columns', 'idHash'] },
  Float64Column: { imaged: ['data', 'length'] },
  Int32Column: { imaged: ['data', 'length'] },
  Interner: { imaged: ['values'], rebuilt: ['ids'] },
  SparseColumn: { imaged: ['cells', 'appended'], rebuilt: ['bits'], bookkeeping: ['restored', 'appendedBits', 'rankBefore', 'rankedWords', 'lastAppended'] },
  MultiIndex: { rebuilt: ['map', 'pendingBuild'] },
  ByteArena: { imaged: ['chunks'], bookkeeping: ['current', 'currentIndex', 'used', 'chunkSize', 'chunkReader'], derived: ['views'] },
} as const;

type Block = Int32Array | Float64Array | Uint16Array | Uint8Array;
type BlockType = 'i32' | 'f64' | 'u16' | 'u8';
const WIDTH: Record<BlockType, number> = { i32: 4, f64: 8, u16: 2, u8: 1 };
/** The typed arrays of one image, in file order. */
const BLOCKS: ReadonlyArray<[string, BlockType]> = [
  ['ids', 'i32'], ['traceIds', 'i32'], ['parentIds', 'i32'], ['threadIds', 'i32'], ['turnIds', 'i32'], ['userIds', 'i32'],
  ['opNames', 'i32'], ['opIndex', 'i32'],
  ['startedAt', 'f64'], ['endedAt', 'f64'], ['deletedAt', 'f64'], ['statusErrorCount', 'f64'],
  ['runStep.rows', 'i32'], ['runStep.values', 'f64'], ['runStepEnd.rows', 'i32'], ['runStepEnd.values', 'f64'],
  ['displayNames.rows', 'i32'], ['displayNames.values', 'i32'], ['exceptions.rows', 'i32'], ['exceptions.values', 'i32'],
  ['runIds.rows', 'i32'], ['runIds.values', 'i32'],
  ['inputRefs.rows', 'i32'], ['inputRefs.counts', 'i32'], ['inputRefs.values', 'i32'],
  ['outputRefs.rows', 'i32'], ['outputRefs.counts', 'i32'], ['outputRefs.values', 'i32'],
  ['bodyChunk', 'i32'], ['bodyOffset', 'i32'], ['bodyLength', 'i32'],
  ['partSpans', 'u16'], ['partSpansKnown', 'u8'], ['arenaChecksums', 'i32'], ['startOrder', 'i32'], ['rootOrder', 'i32'],
  ['bodyChecksums', 'i32'],
];
/**
 * Blocks holding string numbers, checked against the string count on decode (the per-row id
 * columns are checked by StringColumn.restore() as it reads them).
 */
const STRING_BLOCKS = new Set(['opNames', 'displayNames.values', 'exceptions.values', 'runIds.values', 'inputRefs.values', 'outputRefs.values']);

export type StringEncoding = 'latin1' | 'utf8' | 'utf16le';

/** What the file header records about the blocks (JSON). */
export interface SnapshotLayout {
  strings: { count: number; encoding: StringEncoding; textBytes: number };
  projects: Array<{ projectId: string; size: number; blockBytes: number[]; chunkBytes: number[] }>;
  /** Feedback rows per project (store order), or null when the snapshot holds none. */
  feedback: null | Array<{ projectId: string; rows: number; lossless: boolean; encoding: StringEncoding; textBytes: number }>;
}

/** A feedback row without its project and time: [id, weave_ref, feedback_type, payload, creator, user_id, 4 refs]. */
type FeedbackTuple = [string, string, string, Record<string, unknown>, string | null, string, string | null, string | null, string | null, string | null];

/** A store's call tables as bytes: `data` (strings and columns, 8-byte aligned) and `arena`. */
export interface EncodedSnapshot {
  layout: SnapshotLayout;
  /** Blocks in order; each starts at a multiple of 8 bytes from the first. */
  data: Uint8Array[];
  arena: Uint8Array[];
}

export class SnapshotFormatError extends Error {}

/** A snapshot found damaged after it was restored (an arena chunk failing its checksum when read). */
export class SnapshotDamagedError extends OperationalError<'TQ_SNAPSHOT_DAMAGED'> {
  constructor(reason: string) {
    super('TQ_SNAPSHOT_DAMAGED', { reason });
  }
}

/** A table's image with what the encoder adds: chunk checksums and the start orders. */
function imageOf(table: CallTable, str: (s: string) => number): CallTableImage {
  const image = imageTable(table, str);
  image.arenaChecksums = Int32Array.from(image.arenaChunks, (c) => crc32(c) | 0);
  const sums = (image.bodyChecksums = new Int32Array(image.size));
  const chunks = image.arenaChunks.map((c) => Buffer.from(c.buffer, c.byteOffset, c.byteLength));
  for (let r = 0; r < image.size; r++) {
    const at = image.bodyOffset[r];
    sums[r] = crc32(chunks[image.bodyChunk[r]].subarray(at, at + image.bodyLength[r])) | 0;
  }
  const rows = startOrder(table);
  if (rows !== null) {
    image.startOrder = rows;
    image.rootOrder = rootStartOrder(table)!;
  }
  return image;
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

const align8 = (n: number) => (n + 7) & ~7;
const bytesOf = (a: Block | Uint8Array) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);

function get(image: CallTableImage, path: string): Block {
  const [a, b] = path.split('.');
  const v = (image as unknown as Record<string, Record<string, Block>>)[a];
  return (b === undefined ? v : v[b]) as Block;
}

/**
 * The call tables of every project holding calls, and with `withFeedback` the feedback rows of
 * every project, encoded. Throws when a table is not as a fixture load leaves it.
 */
export function encodeCallTables(store: Store, withFeedback = false): EncodedSnapshot {
  const numbers = new Map<string, number>();
  const list: string[] = [];
  const str = (s: string) => {
    let i = numbers.get(s);
    if (i === undefined) {
      i = list.length;
      list.push(s);
      numbers.set(s, i);
    }
    return i;
  };
  const images = [...store.projects.values()].filter((p) => p.calls.size > 0).map((p) => ({ projectId: p.projectId, image: imageOf(p.calls, str) }));
  const text = list.join('');
  const ascii = Buffer.byteLength(text, 'utf8') === text.length;
  // Lone surrogates do not survive UTF-8; UTF-16 keeps every string exactly.
  const encoding: StringEncoding = ascii ? 'latin1' : LONE_SURROGATE.test(text) ? 'utf16le' : 'utf8';
  const textBytes = Buffer.from(text, encoding);
  const offsets = new Int32Array(list.length + 1);
  for (let i = 0, at = 0; i < list.length; i++) {
    at += list[i].length;
    if (at > 0x7fffffff) throw new SnapshotFormatError('string text too large for a snapshot');
    offsets[i + 1] = at;
  }
  const data: Uint8Array[] = [bytesOf(offsets), textBytes];
  const projects: SnapshotLayout['projects'] = [];
  for (const { projectId, image } of images) {
    const blocks = BLOCKS.map(([path]) => bytesOf(get(image, path)));
    data.push(...blocks);
    projects.push({ projectId, size: image.size, blockBytes: blocks.map((b) => b.byteLength), chunkBytes: image.arenaChunks.map((c) => c.byteLength) });
  }
  let feedback: SnapshotLayout['feedback'] = null;
  if (withFeedback) {
    feedback = [];
    for (const p of store.projects.values()) {
      if (p.feedback.length === 0) continue;
      const tuples: FeedbackTuple[] = p.feedback.map((f) => [f.id, f.weave_ref, f.feedback_type, f.payload, f.creator, f.user_id, f.annotation_ref, f.runnable_ref, f.call_ref, f.trigger_ref]);
      const lossless = tuples.some((t) => holdsLosslessNumber(t[3]));
      const text = lossless ? stringifyExact(tuples) : JSON.stringify(tuples);
      const textEncoding: StringEncoding = LONE_SURROGATE.test(text) ? 'utf16le' : 'utf8';
      const bytes = Buffer.from(text, textEncoding);
      data.push(bytesOf(Float64Array.from(p.feedback, (f) => f.created_at)), bytes);
      feedback.push({ projectId: p.projectId, rows: tuples.length, lossless, encoding: textEncoding, textBytes: bytes.byteLength });
    }
  }
  const arena = images.flatMap(({ image }) => image.arenaChunks);
  return { layout: { strings: { count: list.length, encoding, textBytes: textBytes.byteLength }, projects, feedback }, data, arena };
}

/** Bytes the data region takes (every block padded to 8). */
export function dataRegionBytes(layout: SnapshotLayout): number {
  let n = align8(4 * (layout.strings.count + 1)) + align8(layout.strings.textBytes);
  for (const p of layout.projects) for (const b of p.blockBytes) n += align8(b);
  for (const f of layout.feedback ?? []) n += align8(8 * f.rows) + align8(f.textBytes);
  return n;
}

export function arenaRegionBytes(layout: SnapshotLayout): number {
  let n = 0;
  for (const p of layout.projects) for (const c of p.chunkBytes) n += c;
  return n;
}

/**
 * Reads `length` bytes at `offset` of the arena region, a whole chunk (the bytes must be
 * exactly those written, or the read throws).
 */
export type ArenaReader = (offset: number, length: number) => Buffer;

/** Reads one body's bytes (`length` at `offset` of the arena region) into `into[at, at + length)`. */
export type BodyReader = (into: Buffer, at: number, length: number, offset: number) => void;

/** Single bodies through the chunk reader (a copy more than a reader of its own). */
const bodyThroughChunks =
  (read: ArenaReader): BodyReader =>
  (into, at, length, offset) =>
    into.set(read(offset, length), at);

/**
 * Restores the call tables into an empty store (projects created in the snapshot's order).
 * `data` must start 8-byte aligned. Every length, string number and body handle is checked;
 * a mismatch is a SnapshotFormatError, never a wrong table. Arena chunks are read through
 * `readArena` (single bodies through `readBody`) when first needed and checked against their
 * CRC-32: damaged bytes are handed to `damaged` (which throws; by default a
 * SnapshotDamagedError).
 */
export function decodeCallTables(
  layout: SnapshotLayout,
  data: Uint8Array,
  readArena: ArenaReader,
  store: Store,
  damaged: (reason: string) => never = fail,
  readBody: BodyReader = bodyThroughChunks(readArena),
): DecodedFeedback {
  if (data.byteOffset % 8 !== 0) throw new SnapshotFormatError('data region not aligned');
  if (data.byteLength !== dataRegionBytes(layout)) throw new SnapshotFormatError('region lengths do not match the layout');
  let at = 0;
  const take = (bytes: number) => {
    const view = data.subarray(at, at + bytes);
    at += align8(bytes);
    return view;
  };
  const { count, encoding, textBytes } = layout.strings;
  const offBytes = take(4 * (count + 1));
  const offsets = new Int32Array(offBytes.buffer, offBytes.byteOffset, count + 1);
  const textView = take(textBytes);
  const text = Buffer.from(textView.buffer, textView.byteOffset, textView.byteLength);
  // The offsets count the text's UTF-16 units: one byte each in latin1, two in utf16le.
  const units = encoding === 'latin1' ? textBytes : encoding === 'utf16le' ? textBytes / 2 : text.toString('utf8').length;
  if (offsets[0] !== 0 || offsets[count] !== units) throw new SnapshotFormatError('string offsets do not match the text');
  for (let i = 0; i < count; i++) if (offsets[i + 1] < offsets[i]) throw new SnapshotFormatError('string offsets out of order');
  const strings = new StringTable(text, offsets, encoding);
  let arenaAt = 0;
  for (const p of layout.projects) {
    if (p.blockBytes.length !== BLOCKS.length) throw new SnapshotFormatError('wrong number of blocks');
    const blocks: Record<string, Block> = {};
    BLOCKS.forEach(([path, type], k) => {
      const bytes = take(p.blockBytes[k]);
      const width = WIDTH[type];
      if (bytes.byteLength % width !== 0) throw new SnapshotFormatError(`block ${path} has a partial element`);
      const length = bytes.byteLength / width;
      const block =
        type === 'i32'
          ? new Int32Array(bytes.buffer, bytes.byteOffset, length)
          : type === 'f64'
            ? new Float64Array(bytes.buffer, bytes.byteOffset, length)
            : type === 'u16'
              ? new Uint16Array(bytes.buffer, bytes.byteOffset, length)
              : bytes;
      if (STRING_BLOCKS.has(path)) {
        for (let k = 0; k < block.length; k++) if (block[k] < 0 || block[k] >= count) throw new SnapshotFormatError(`block ${path}: string number out of range`);
      }
      blocks[path] = block;
    });
    const starts = p.chunkBytes.map((len) => {
      if (!Number.isInteger(len) || len < 0) throw new SnapshotFormatError('bad chunk length');
      arenaAt += len;
      return arenaAt - len;
    });
    const lengths = [...p.chunkBytes];
    const image = imageFromBlocks(p.size, blocks);
    checkImage(image, p.projectId, lengths);
    // Bodies are read when first needed: a row's alone (checked against its CRC-32) or its
    // whole chunk (checked against the chunk's), see snapshot-bodies.ts.
    const reads = { chunk: readArena, body: readBody, damaged };
    const arena = ByteArena.lazy(lengths.length, (i) => bodies.wholeChunk(i));
    const bodies = new SnapshotBodies(arena, starts, lengths, image.arenaChecksums, image.bodyChecksums, reads, `project ${p.projectId}`);
    const table = store.projectForWrite(p.projectId).calls;
    restoreTable(table, image, strings, arena, bodies);
    if (image.startOrder.length > 0 && !adoptStartOrder(table, image.startOrder, image.rootOrder)) {
      throw new SnapshotFormatError(`project ${p.projectId}: the stored start order is not the table's`);
    }
  }
  if (layout.feedback === null) return null;
  const feedback: NonNullable<DecodedFeedback> = [];
  for (const f of layout.feedback) {
    const created = take(8 * f.rows);
    const createdAt = new Float64Array(created.buffer, created.byteOffset, f.rows);
    const bytes = take(f.textBytes);
    // Parsed when the project's feedback is first used (the region's checksum was checked).
    const rows = (): FeedbackRow[] => {
      const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString(f.encoding);
      let tuples: FeedbackTuple[];
      try {
        tuples = (f.lossless ? parseExact(text) : JSON.parse(text)) as FeedbackTuple[];
      } catch (e) {
        return damaged(`feedback of ${f.projectId}: ${(e as Error).message}`);
      }
      if (!Array.isArray(tuples) || tuples.length !== f.rows) return damaged(`feedback of ${f.projectId}: ${f.rows} rows expected`);
      return tuples.map((t, i) => {
        if (!Array.isArray(t) || t.length !== 10) return damaged(`feedback of ${f.projectId}: row ${i} malformed`);
        const [id, weave_ref, feedback_type, payload, creator, user_id, annotation_ref, runnable_ref, call_ref, trigger_ref] = t;
        return { id, project_id: f.projectId, weave_ref, feedback_type, payload, creator, created_at: createdAt[i], user_id, annotation_ref, runnable_ref, call_ref, trigger_ref };
      });
    };
    feedback.push({ projectId: f.projectId, count: f.rows, rows });
  }
  return feedback;
}

const fail = (reason: string): never => {
  throw new SnapshotDamagedError(reason);
};

/**
 * Feedback rows per project, in store order, to add once tables and objects are loaded (null:
 * none snapshotted): `count` rows, made by `rows()`.
 */
export type DecodedFeedback = Array<{ projectId: string; count: number; rows: () => FeedbackRow[] }> | null;

/**
 * Gives a store the decoded feedback rows, as the feedback file's load would have (projects
 * created in the same order); each project adds its rows when its feedback is first used.
 */
export function restoreFeedback(feedback: NonNullable<DecodedFeedback>, store: Store): void {
  for (const { projectId, rows } of feedback) store.projectForWrite(projectId).deferFeedback(rows);
}

function imageFromBlocks(size: number, b: Record<string, Block>): CallTableImage {
  const i = (k: string) => b[k] as Int32Array;
  const f = (k: string) => b[k] as Float64Array;
  return {
    size,
    ids: i('ids'), traceIds: i('traceIds'), parentIds: i('parentIds'), threadIds: i('threadIds'), turnIds: i('turnIds'), userIds: i('userIds'),
    opNames: i('opNames'), opIndex: i('opIndex'),
    startedAt: f('startedAt'), endedAt: f('endedAt'), deletedAt: f('deletedAt'), statusErrorCount: f('statusErrorCount'),
    runStep: { rows: i('runStep.rows'), values: f('runStep.values') },
    runStepEnd: { rows: i('runStepEnd.rows'), values: f('runStepEnd.values') },
    displayNames: { rows: i('displayNames.rows'), values: i('displayNames.values') },
    exceptions: { rows: i('exceptions.rows'), values: i('exceptions.values') },
    runIds: { rows: i('runIds.rows'), values: i('runIds.values') },
    inputRefs: { rows: i('inputRefs.rows'), counts: i('inputRefs.counts'), values: i('inputRefs.values') },
    outputRefs: { rows: i('outputRefs.rows'), counts: i('outputRefs.counts'), values: i('outputRefs.values') },
    bodyChunk: i('bodyChunk'), bodyOffset: i('bodyOffset'), bodyLength: i('bodyLength'),
    arenaChunks: [],
    partSpans: b.partSpans as Uint16Array, partSpansKnown: b.partSpansKnown as Uint8Array,
    arenaChecksums: i('arenaChecksums'), startOrder: i('startOrder'), rootOrder: i('rootOrder'), bodyChecksums: i('bodyChecksums'),
  };
}

/** The structural checks: per-row columns hold `size` rows, sparse rows and handles are in range. */
function checkImage(im: CallTableImage, projectId: string, chunkLengths: readonly number[]): void {
  const n = im.size;
  const bad = (what: string) => new SnapshotFormatError(`project ${projectId}: ${what}`);
  for (const k of ['ids', 'traceIds', 'parentIds', 'threadIds', 'turnIds', 'userIds', 'opIndex', 'startedAt', 'endedAt', 'deletedAt', 'statusErrorCount', 'bodyChunk', 'bodyOffset', 'bodyLength'] as const) {
    if (im[k].length !== n) throw bad(`column ${k} holds ${im[k].length} rows, not ${n}`);
  }
  for (let r = 0, ops = im.opIndex, m = im.opNames.length; r < n; r++) if (ops[r] < -1 || ops[r] >= m) throw bad('op number out of range');
  for (const k of ['runStep', 'runStepEnd', 'displayNames', 'exceptions', 'runIds', 'inputRefs', 'outputRefs'] as const) {
    const s = im[k];
    if (s.values.length !== ('counts' in s ? s.counts.reduce((a, c) => a + c, 0) : s.rows.length)) throw bad(`sparse column ${k} lengths differ`);
    if ('counts' in s && s.counts.length !== s.rows.length) throw bad(`sparse column ${k} lengths differ`);
    for (let i = 0; i < s.rows.length; i++) if (s.rows[i] < 0 || s.rows[i] >= n) throw bad(`sparse column ${k}: row out of range`);
  }
  if (im.arenaChecksums.length !== chunkLengths.length) throw bad('one checksum per arena chunk expected');
  if (im.bodyChecksums.length !== n) throw bad('one checksum per body expected');
  const chunkOf = im.bodyChunk, offsetOf = im.bodyOffset, lengthOf = im.bodyLength, chunks = chunkLengths.length;
  for (let r = 0; r < n; r++) {
    const c = chunkOf[r], o = offsetOf[r], l = lengthOf[r];
    if (c < 0 || c >= chunks || o < 0 || l < 0 || o + l > chunkLengths[c]) throw bad(`row ${r}: body outside the arena`);
  }
}
