import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createEngine } from '../engine.ts';
import type { Engine, FieldPrefix } from '../api/types.ts';
import { BUNDLED_FIXTURES, fixtureFilesIn, loadFixtureFiles, loadFixtureText } from '../io/load-fixtures.ts';
import { generateCalls } from '../gen/generate.ts';
import { arenaRegionBytes, dataRegionBytes, decodeCallTables, encodeCallTables, restoreFeedback, SNAPSHOT_COVERAGE, SnapshotDamagedError, SnapshotFormatError, type EncodedSnapshot } from './snapshot.ts';
import { crc32, crc32Portable } from './snapshot-checksum.ts';
import { rootStartOrder, startOrder } from './start-order.ts';
import { Store } from './store.ts';
import { SparseColumn, StringTable } from './columns.ts';
import type { StringColumn } from './string-column.ts';
import { answer, assertSameAnswers } from './snapshot.testing.ts';
import { columnValues } from './call-table.testing.ts';

function engine(prefix: FieldPrefix = 'svc_'): Engine {
  let id = 0;
  return createEngine(undefined, { fieldPrefix: prefix, now: () => 1.9e15, newId: () => `00000000-0000-7000-8000-${String(++id).padStart(12, '0')}` });
}

/** The encoded blocks laid out as the file does: data region 8-aligned, arena concatenated. */
function regions(e: EncodedSnapshot): { data: Uint8Array; arena: Buffer } {
  const data = new Uint8Array(dataRegionBytes(e.layout));
  let at = 0;
  for (const b of e.data) {
    data.set(b, at);
    at += (b.byteLength + 7) & ~7;
  }
  return { data, arena: Buffer.concat(e.arena) };
}

function restore(e: EncodedSnapshot, target: Engine): void {
  const { data, arena } = regions(e);
  assert.equal(arena.byteLength, arenaRegionBytes(e.layout));
  decodeCallTables(e.layout, data, (offset, length) => Buffer.from(arena.subarray(offset, offset + length)), target.store);
}

async function demo(prefix: FieldPrefix = 'svc_'): Promise<Engine> {
  const e = engine(prefix);
  await loadFixtureFiles(e, BUNDLED_FIXTURES, fixtureFilesIn(BUNDLED_FIXTURES).filter((f) => f.kind === 'calls'));
  return e;
}

async function generated(prefix: FieldPrefix, calls = 3000): Promise<Engine> {
  const e = engine(prefix);
  await loadFixtureText(e, 'calls', [...generateCalls({ calls, seed: 7, prefix, startUs: 1.7e15 })].join('\n'));
  return e;
}

const bodiesOf = (t: object) => (t as { bodies: object }).bodies;
const ownFields = (o: object) => new Set(Object.getOwnPropertyNames(o));
const listed = (cover: Record<string, readonly string[]>) => new Set(Object.values(cover).flat());

test('every field of Store, ProjectStore and CallTable is covered by the snapshot (imaged, rebuilt, derived or loaded normally)', async () => {
  const e = await demo();
  const p = [...e.store.projects.values()][0];
  const restored = engine();
  restore(encodeCallTables(e.store), restored);
  const r = [...restored.store.projects.values()][0];
  for (const [name, instance, cover] of [
    ['CallTable', p.calls, SNAPSHOT_COVERAGE.CallTable],
    ['CallTable (restored)', r.calls, SNAPSHOT_COVERAGE.CallTable],
    ['ProjectStore', p, SNAPSHOT_COVERAGE.ProjectStore],
    ['Store', e.store, SNAPSHOT_COVERAGE.Store],
    ['Float64Column', p.calls.startedAt, SNAPSHOT_COVERAGE.Float64Column],
    ['Int32Column', p.calls.opIndex, SNAPSHOT_COVERAGE.Int32Column],
    ['Interner', p.calls.opNames, SNAPSHOT_COVERAGE.Interner],
    ['SparseColumn', p.calls.runIds, SNAPSHOT_COVERAGE.SparseColumn],
    ['MultiIndex', p.calls.byTrace, SNAPSHOT_COVERAGE.MultiIndex],
    ['StringColumn', (p.calls as unknown as { idColumn: object }).idColumn, SNAPSHOT_COVERAGE.StringColumn],
    ['StringColumn (restored)', (r.calls as unknown as { idColumn: object }).idColumn, SNAPSHOT_COVERAGE.StringColumn],
    ['CallBodies', bodiesOf(p.calls), SNAPSHOT_COVERAGE.CallBodies],
    ['CallIndexes', (p.calls as unknown as { indexes: object }).indexes, SNAPSHOT_COVERAGE.CallIndexes],
    ['ByteArena', (bodiesOf(p.calls) as unknown as { arena: object }).arena, SNAPSHOT_COVERAGE.ByteArena],
  ] as const) {
    const own = ownFields(instance), known = listed(cover);
    const unlisted = [...own].filter((f) => !known.has(f)), gone = [...known].filter((f) => !own.has(f));
    assert.deepEqual({ unlisted, gone }, { unlisted: [], gone: [] }, `${name}: a field was added or removed; list it in SNAPSHOT_COVERAGE (src/store/snapshot.ts) and, if it holds loaded data, image and restore it in snapshot-table.ts`);
  }
});

test('a restored store answers every read route exactly as a freshly loaded one (demo fixtures), before and after writes', async () => {
  const fresh = await demo();
  const restored = engine();
  restore(encodeCallTables(fresh.store), restored);
  const compared = assertSameAnswers(fresh, restored);
  assert.ok(compared > 50, `compared ${compared}`);
});

for (const prefix of ['svc_', 'wb_'] as const) {
  test(`round trip of generated calls with the ${prefix} prefix`, async () => {
    const fresh = await generated(prefix);
    const restored = engine(prefix);
    const encoded = encodeCallTables(fresh.store);
    restore(encoded, restored);
    assert.equal(restored.store.counts().calls, 3000);
    // Re-encoding the restored store gives the same layout and bytes.
    const again = encodeCallTables(restored.store);
    assert.deepEqual(again.layout, encoded.layout);
    assert.ok(Buffer.from(regions(again).data).equals(Buffer.from(regions(encoded).data)));
    assert.ok(regions(again).arena.equals(regions(encoded).arena));
    assertSameAnswers(fresh, restored);
  });
}

test('bodies of 64 KiB and more (part spans not remembered, scanned per read) come back and answer exactly', async () => {
  const e = engine();
  const sizes = [10, 65_520, 65_535, 65_536, 70_000, 200_000];
  const lines = sizes.map((size, i) =>
    JSON.stringify({
      project_id: 'p/big', id: `c${i}`, trace_id: `t${i % 2}`, parent_id: i % 2 === 1 ? `c${i - 1}` : null, thread_id: 'th', turn_id: `c${i}`, op_name: 'op',
      started_at: `2024-01-01T00:00:0${i}Z`, ended_at: '2024-01-01T00:00:09Z',
      attributes: { a: i }, inputs: { pad: 'x'.repeat(size), n: i }, output: { pad: 'é'.repeat(size >> 2) }, summary: { status_counts: { error: i } },
      svc_run_step_end: i,
    }),
  );
  await loadFixtureText(e, 'calls', lines.join('\n'));
  const fresh = e.store.project('p/big')!.calls;
  assert.ok(fresh.bodyByteLength(5) > 0xffff && fresh.bodyByteLength(0) < 0xffff, 'a small body and bodies past the span limit');
  const restored = engine();
  restore(encodeCallTables(e.store), restored);
  const t = restored.store.project('p/big')!.calls;
  for (let r = 0; r < sizes.length; r++) {
    assert.equal(t.bodyText(r), fresh.bodyText(r), `row ${r}`);
    assert.deepEqual(t.bodyPartTexts(r), fresh.bodyPartTexts(r), `row ${r}`);
  }
  assert.ok(assertSameAnswers(e, restored) > 10);
});

test('strings that are not ASCII, and lone surrogates, come back exactly', async () => {
  const e = engine();
  const lines = [
    { id: 'a-é', trace_id: 't\ud800', op_name: 'op-日本', started_at: '2024-01-01T00:00:00Z' },
    { id: 'b', trace_id: 'x\udc00', parent_id: 'a-é', op_name: 'op', display_name: '😀', started_at: '2024-01-01T00:00:01Z', ended_at: '2024-01-01T00:00:02Z', exception: 'boom', output: { r: 'weave:///p/q/object/o:abc' }, summary: {} },
  ].map((c) => JSON.stringify({ project_id: 'p/q', attributes: {}, inputs: { s: 'weave:///p/q/object/i:def' }, ...c }));
  await loadFixtureText(e, 'calls', lines.join('\n'));
  const encoded = encodeCallTables(e.store);
  assert.equal(encoded.layout.strings.encoding, 'utf16le');
  const restored = engine();
  restore(encoded, restored);
  const t = restored.store.project('p/q')!.calls;
  assert.deepEqual(columnValues(t, 'id'), ['a-é', 'b']);
  assert.deepEqual(columnValues(t, 'traceId'), ['t\ud800', 'x\udc00']);
  assert.equal(t.displayNames.get(1), '😀');
  assert.equal(t.exceptions.get(1), 'boom');
  assert.deepEqual(t.outputRefs.get(1), ['weave:///p/q/object/o:abc']);
  assert.deepEqual(t.inputRefs.get(0), ['weave:///p/q/object/i:def']);
  assertSameAnswers(e, restored);
});

test('a table changed in place (or with ends waiting) is not snapshotted', async () => {
  const e = await demo();
  const t = [...e.store.projects.values()][0].calls;
  t.setDisplayName(0, 'x');
  assert.throws(() => encodeCallTables(e.store), /freshly loaded/);
});

test('corrupt blocks are refused, never restored', async () => {
  const fresh = await generated('svc_', 200);
  const encoded = encodeCallTables(fresh.store);
  const { data, arena } = regions(encoded);
  const read = (offset: number, length: number) => Buffer.from(arena.subarray(offset, offset + length));
  // An id's string number out of range.
  const idsAt = ((4 * (encoded.layout.strings.count + 1) + 7) & ~7) + ((encoded.layout.strings.textBytes + 7) & ~7);
  const bad = data.slice();
  new DataView(bad.buffer).setInt32(idsAt, 1 << 30, true);
  assert.throws(() => decodeCallTables(encoded.layout, bad, read, new Store()), /string number 1073741824 out of range in row 0/);
  // A body handle past its chunk.
  const layout = structuredClone(encoded.layout);
  layout.projects[0].chunkBytes[0] = 10;
  assert.throws(() => decodeCallTables(layout, data, read, new Store()), /outside the arena/);
  // A layout that does not match the region.
  const short = structuredClone(encoded.layout);
  short.projects[0].size += 1;
  assert.throws(() => decodeCallTables(short, data, read, new Store()), SnapshotFormatError);
  assert.throws(() => decodeCallTables(encoded.layout, data.subarray(8), read, new Store()), SnapshotFormatError);
});

test('a restored sparse column makes each cell on first read, and materialises before any change', () => {
  const made: number[] = [];
  const c = new SparseColumn<string[]>();
  c.restore(Int32Array.from([2, 40, 41, 1000]), (k) => (made.push(k), [`v${k}`]));
  assert.equal(c.get(0), null);
  assert.equal(c.get(39), null);
  assert.deepEqual(c.get(40), ['v1']);
  assert.equal(c.get(40), c.get(40), 'one object per cell');
  assert.deepEqual(made, [1]);
  const read = c.get(40);
  c.set(41, null);
  assert.deepEqual(made, [1, 0, 2, 3]);
  assert.equal(c.get(41), null);
  assert.equal(c.get(40), read);
  c.init(2000, ['new']);
  assert.deepEqual([...c.entries()].map(([r]) => r), [2, 40, 1000, 2000]);
  assert.throws(() => new SparseColumn<number>().restore(Int32Array.from([3, 3]), () => 1), /ascend/);
  const filled = new SparseColumn<number>();
  filled.init(1, 1);
  assert.throws(() => filled.restore(Int32Array.from([2]), () => 2), /empty column/);
});

/** The private string-column arrays of a table (null: not made whole). */
const columnLists = (t: object) => {
  const o = t as Record<string, unknown>;
  return ['idColumn', 'traceIdColumn', 'parentIdColumn', 'threadIdColumn', 'turnIdColumn', 'userIdColumn'].map((k) => (o[k] as StringColumn<string | null>).backing);
};

test('a restored table makes strings only for the rows read: a roots page makes no column whole; every column, the part spans and the start orders come back', async () => {
  const fresh = await generated('svc_', 3000);
  const restored = engine();
  restore(encodeCallTables(fresh.store), restored);
  const [projectId, p] = [...fresh.store.projects][0];
  const t = restored.store.project(projectId)!.calls;
  assert.deepEqual(columnLists(t), Array(6).fill('snapshot'));
  const page = answer(restored, '/calls/stream_query', { project_id: projectId, filter: { trace_roots_only: true }, sort_by: [{ field: 'started_at', direction: 'desc' }], limit: 100 });
  assert.equal(page, answer(fresh, '/calls/stream_query', { project_id: projectId, filter: { trace_roots_only: true }, sort_by: [{ field: 'started_at', direction: 'desc' }], limit: 100 }));
  assert.deepEqual(columnLists(t), Array(6).fill('snapshot'), 'a page made a column whole');
  // The start orders were adopted, not rebuilt (the same arrays as the snapshot's).
  assert.deepEqual([...startOrder(t)!], [...startOrder(p.calls)!]);
  assert.deepEqual([...rootStartOrder(t)!], [...rootStartOrder(p.calls)!]);
  // Row by row, then whole: every string column as loaded.
  for (let r = 0; r < p.calls.size; r += 7) {
    assert.deepEqual([t.id(r), t.traceId(r), t.parentId(r), t.threadId(r), t.turnId(r), t.userId(r), t.isRoot(r)], [p.calls.id(r), p.calls.traceId(r), p.calls.parentId(r), p.calls.threadId(r), p.calls.turnId(r), p.calls.userId(r), p.calls.parentId(r) === null]);
  }
  assert.deepEqual([columnValues(t, 'id'), columnValues(t, 'traceId'), columnValues(t, 'parentId'), columnValues(t, 'threadId'), columnValues(t, 'turnId'), columnValues(t, 'userId')], [columnValues(p.calls, 'id'), columnValues(p.calls, 'traceId'), columnValues(p.calls, 'parentId'), columnValues(p.calls, 'threadId'), columnValues(p.calls, 'turnId'), columnValues(p.calls, 'userId')]);
  assert.deepEqual(columnLists(t), Array(6).fill('snapshot'), 'reading every row makes no column whole');
  const spans = (c: object) => {
    const b = bodiesOf(c) as { partSpans: Uint16Array; partSpansKnown: Uint8Array };
    return [b.partSpans.subarray(0, 8 * sizeOf(c)), b.partSpansKnown.subarray(0, sizeOf(c))].map((a) => [...a]);
  };
  assert.deepEqual(spans(t), spans(p.calls));
  assert.ok(spans(t)[1].every((k) => k !== 0), 'part spans known for every fixture row');
});
const sizeOf = (c: object) => (c as { size: number }).size;

test('feedback rows are decoded when a project first reads its feedback', async () => {
  const fresh = engine();
  await loadFixtureFiles(fresh, BUNDLED_FIXTURES, fixtureFilesIn(BUNDLED_FIXTURES).filter((f) => f.kind === 'calls' || f.kind === 'feedback'));
  const encoded = encodeCallTables(fresh.store, true);
  const { data, arena } = regions(encoded);
  const restored = engine();
  const feedback = decodeCallTables(encoded.layout, data, (o, l) => Buffer.from(arena.subarray(o, o + l)), restored.store)!;
  assert.ok(feedback.length > 0);
  restoreFeedback(feedback, restored.store);
  const [projectId, p] = [...fresh.store.projects].find(([, q]) => q.feedback.length > 0)!;
  const q = restored.store.project(projectId)!;
  assert.equal(typeof (q as unknown as { pendingFeedback: unknown }).pendingFeedback, 'function');
  assert.equal(feedback.find((f) => f.projectId === projectId)!.count, p.feedback.length);
  assert.deepEqual(q.feedback, p.feedback);
  assert.equal((q as unknown as { pendingFeedback: unknown }).pendingFeedback, null);
  assert.deepEqual([...q.feedbackByRef], [...p.feedbackByRef]);
  assertSameAnswers(fresh, restored);
});

test('a damaged arena chunk is refused when it is read (never a wrong body), through the damaged callback', async () => {
  const fresh = await generated('svc_', 1000);
  const encoded = encodeCallTables(fresh.store);
  const { data, arena } = regions(encoded);
  const hurt = Buffer.from(arena);
  hurt[hurt.length - 5] ^= 0x01;
  const reasons: string[] = [];
  const restored = engine();
  decodeCallTables(encoded.layout, data, (o, l) => Buffer.from(hurt.subarray(o, o + l)), restored.store, (reason) => {
    reasons.push(reason);
    throw new SnapshotDamagedError(reason);
  });
  const [projectId] = [...restored.store.projects.keys()];
  // The last row alone: its body is read by itself, and fails its own checksum.
  const t = restored.store.project(projectId)!.calls;
  const lastId = [...fresh.store.projects.values()][0].calls.id(t.size - 1);
  assert.throws(() => answer(restored, '/call/read', { project_id: projectId, id: lastId }), SnapshotDamagedError);
  assert.match(reasons[0], new RegExp(`the body of row ${t.size - 1} of project .* fails its checksum`));
  // Every row: past a number of single reads the chunk is read whole, and fails the chunk's checksum.
  assert.throws(() => answer(restored, '/calls/stream_query', { project_id: projectId }), SnapshotDamagedError);
  assert.match(reasons[1], /arena chunk \d+ of project .* fails its checksum/);
  // Bodies read alone before the damage count are served (they pass their checksums).
  const first = [...fresh.store.projects.values()][0].calls.id(0);
  assert.equal(answer(restored, '/call/read', { project_id: projectId, id: first }), answer(fresh, '/call/read', { project_id: projectId, id: first }));
  // Without a callback: the same error class.
  const again = engine();
  decodeCallTables(encoded.layout, data, (o, l) => Buffer.from(hurt.subarray(o, o + l)), again.store);
  assert.throws(() => answer(again, '/calls/stream_query', { project_id: projectId }), /fails its checksum/);
});

test('stored start orders and part spans that do not describe the table are refused', async () => {
  const fresh = await generated('svc_', 300);
  const read = (arena: Buffer) => (o: number, l: number) => Buffer.from(arena.subarray(o, o + l));
  const mutate = (what: 'startOrder' | 'rootOrder' | 'partSpans', change: (a: Int32Array | Uint16Array) => void) => {
    const encoded = encodeCallTables(fresh.store);
    // One project: the data blocks are the string offsets, the text, then the table's blocks
    // in file order (31 columns, then part spans, their flags, chunk checksums, the two orders).
    const index = ['partSpans', 'partSpansKnown', 'arenaChecksums', 'startOrder', 'rootOrder'].indexOf(what) + 31;
    const block = encoded.data[2 + index];
    const view = what === 'partSpans' ? new Uint16Array(block.slice().buffer) : new Int32Array(block.slice().buffer);
    change(view);
    encoded.data[2 + index] = new Uint8Array(view.buffer);
    const { data, arena } = regions(encoded);
    return () => decodeCallTables(encoded.layout, data, read(arena), new Store());
  };
  assert.doesNotThrow(mutate('startOrder', () => {}));
  assert.throws(mutate('startOrder', (a) => ([a[0], a[1]] = [a[1], a[0]])), /start order is not the table's/);
  assert.throws(mutate('startOrder', (a) => (a[3] = a[4])), /start order is not the table's/);
  assert.throws(mutate('rootOrder', (a) => (a[0] = a[1])), /start order is not the table's/);
  assert.throws(mutate('partSpans', (a) => (a[1] = 0xfffe)), /part span outside its body/);
});

test('CRC-32: zlib and the portable loop agree, chunks chain, and an empty view keeps the running value', () => {
  const bytes = Buffer.from(Array.from({ length: 5000 }, (_, i) => (i * 7919) & 0xff));
  assert.equal(crc32Portable(bytes), crc32(bytes));
  assert.equal(crc32(Buffer.from('123456789')), 0xcbf43926);
  assert.equal(crc32Portable(Buffer.from('123456789')), 0xcbf43926);
  assert.equal(crc32(bytes.subarray(1000), crc32(bytes.subarray(0, 1000))), crc32(bytes));
  assert.equal(crc32Portable(bytes.subarray(1000), crc32Portable(bytes.subarray(0, 1000))), crc32(bytes));
  assert.equal(crc32(new Uint8Array(new Int32Array(0).buffer), 12345), 12345);
});

test('a string table makes each string once, on first use, in every encoding', () => {
  for (const [encoding, list] of [
    ['latin1', ['abc', '', 'dé', 'x']],
    ['utf8', ['日本', 'a', '😀b']],
    ['utf16le', ['t\ud800', '', 'z']],
  ] as const) {
    const text = list.join('');
    const offsets = new Int32Array(list.length + 1);
    list.forEach((s, i) => (offsets[i + 1] = offsets[i] + s.length));
    const strings = new StringTable(Buffer.from(text, encoding), offsets, encoding);
    assert.equal(strings.count, list.length);
    list.forEach((s, i) => assert.equal(strings.get(i), s, encoding));
    assert.equal(strings.nullable(-1), null);
    assert.equal(strings.get(0), strings.get(0));
  }
});

test('a page reads its rows\' bodies alone; many rows of one chunk read the chunk whole', async () => {
  const fresh = await generated('svc_', 3000);
  const encoded = encodeCallTables(fresh.store);
  const { data, arena } = regions(encoded);
  const reads: Array<[number, boolean]> = [];
  const restored = engine();
  decodeCallTables(
    encoded.layout,
    data,
    (o, l) => (reads.push([l, true]), Buffer.from(arena.subarray(o, o + l))),
    restored.store,
    undefined,
    (into, at, l, o) => (reads.push([l, false]), into.set(arena.subarray(o, o + l), at)),
  );
  const [projectId] = [...fresh.store.projects.keys()];
  const page = { project_id: projectId, sort_by: [{ field: 'started_at', direction: 'desc' }], limit: 5 };
  assert.equal(answer(restored, '/calls/stream_query', page), answer(fresh, '/calls/stream_query', page));
  assert.equal(reads.length, 5);
  assert.ok(reads.every(([, whole]) => !whole));
  assert.equal(answer(restored, '/calls/stream_query', { project_id: projectId }), answer(fresh, '/calls/stream_query', { project_id: projectId }));
  assert.ok(reads.some(([, whole]) => whole), 'chunks read whole');
  assert.ok(reads.length < 3000, `${reads.length} reads`);
});
