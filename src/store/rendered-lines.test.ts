import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MAX_SHAPES, RenderedLines } from './rendered-lines.ts';

const MIB = 1024 * 1024;
const enc = new TextEncoder();
const dec = new TextDecoder();

/** The line kept for `row` of the shape `key`, as text, or null. */
function found(lines: RenderedLines, key: string, row: number): string | null {
  const chunk = lines.find(lines.shape(key), row);
  return chunk === null ? null : dec.decode(chunk.subarray(lines.foundStart, lines.foundEnd));
}

function keep(lines: RenderedLines, key: string, row: number, text: string): void {
  const bytes = enc.encode(`..${text}..`);
  lines.keep(lines.shape(key), row, bytes, 2, bytes.length - 2);
}

test('RenderedLines: a kept line is found by shape and row, byte for byte; other rows and shapes find nothing', () => {
  const lines = new RenderedLines(() => 4 * MIB);
  assert.equal(found(lines, 'a', 0), null);
  keep(lines, 'a', 3, '{"id":"é"}');
  keep(lines, 'a', 5000, '');
  keep(lines, 'b', 3, '{"other":1}');
  assert.equal(found(lines, 'a', 3), '{"id":"é"}');
  assert.equal(found(lines, 'a', 5000), '');
  assert.equal(found(lines, 'b', 3), '{"other":1}');
  assert.equal(found(lines, 'a', 4), null);
  assert.equal(found(lines, 'a', 5001), null);
  assert.equal(found(lines, 'c', 3), null);
  // Kept again (a re-render after a change): the newer bytes.
  keep(lines, 'a', 3, '{"id":"new"}');
  assert.equal(found(lines, 'a', 3), '{"id":"new"}');
  // A chunk, and a page of positions and lengths (4,096 rows, 10 bytes a row) per page a kept row falls in:
  // rows 3 and 5000 of 'a' are in two pages, row 3 of 'b' in one.
  assert.equal(lines.byteSize, MIB + 3 * 10 * 4096);
});

test('RenderedLines: scattered rows of a big table cost a page of positions each, not arrays as long as the table', () => {
  const lines = new RenderedLines(() => 4 * MIB);
  const rows = [2_999_999, 7, 1_500_000, 4095, 4096, 2_000_000];
  for (const row of rows) keep(lines, 'a', row, `{"row":${row}}`);
  for (const row of rows) assert.equal(found(lines, 'a', row), `{"row":${row}}`);
  // Neighbours in a made page, rows in pages never made, and rows past the last page find nothing.
  for (const row of [2_999_998, 8, 4094, 4097, 1_000_000, 3_000_000, 50_000_000]) assert.equal(found(lines, 'a', row), null);
  // Rows 4095 and 4096 straddle pages 0 and 1; 7 shares page 0: five pages in all.
  assert.equal(lines.byteSize, MIB + 5 * 10 * 4096);
  // Forgetting a row in a page never made changes nothing; in a made page, only that row.
  lines.forget(1_000_000);
  lines.forget(4096);
  assert.equal(found(lines, 'a', 4096), null);
  assert.equal(found(lines, 'a', 4095), '{"row":4095}');
  assert.equal(found(lines, 'a', 2_999_999), '{"row":2999999}');
});

test('RenderedLines: lines kept one after the other lie one after the other in one chunk (a stretch a render hands on whole)', () => {
  const lines = new RenderedLines(() => 4 * MIB);
  const shape = lines.shape('a');
  for (const [row, text] of [[9, 'nine\n'], [2, 'two\n'], [5, 'five\n']] as const) lines.keep(shape, row, enc.encode(text), 0, text.length);
  const chunk = lines.find(shape, 9)!;
  const start = lines.foundStart;
  assert.equal(lines.find(shape, 2), chunk);
  assert.equal(lines.foundStart, start + 5);
  assert.equal(lines.find(shape, 5), chunk);
  assert.equal(dec.decode(chunk.subarray(start, lines.foundEnd)), 'nine\ntwo\nfive\n');
});

test('RenderedLines: forget() drops a row in every shape; clear() drops everything; a line of 64 KiB or more is not kept', () => {
  const lines = new RenderedLines(() => 4 * MIB);
  keep(lines, 'a', 1, 'one');
  keep(lines, 'b', 1, 'uno');
  keep(lines, 'a', 2, 'two');
  lines.forget(1);
  lines.forget(99_999); // beyond every shape's rows: nothing to do
  assert.equal(found(lines, 'a', 1), null);
  assert.equal(found(lines, 'b', 1), null);
  assert.equal(found(lines, 'a', 2), 'two');
  keep(lines, 'a', 3, 'x'.repeat(0xffff));
  assert.equal(found(lines, 'a', 3), 'x'.repeat(0xffff));
  keep(lines, 'a', 4, 'x'.repeat(0x10000));
  assert.equal(found(lines, 'a', 4), null);
  const shape = lines.shape('a');
  lines.clear();
  assert.equal(lines.byteSize, 0);
  assert.equal(found(lines, 'a', 2), null);
  // A shape held across clear() (a render under way) finds and keeps nothing.
  assert.equal(lines.find(shape, 2), null);
  lines.keep(shape, 2, enc.encode('late'), 0, 4);
  assert.equal(lines.find(shape, 2), null);
  assert.equal(found(lines, 'a', 2), null);
});

test('RenderedLines: past the budget the oldest chunk goes first and its lines are absent; a budget under one chunk keeps nothing', () => {
  let budget = 2 * MIB;
  const lines = new RenderedLines(() => budget);
  const line = 'y'.repeat(60_000); // 17 lines (with their length bytes) fill a 1 MiB chunk
  for (let row = 0; row < 40; row++) keep(lines, 'a', row, `${row}:${line}`);
  // Rows 0..16 were in the first chunk, 17..33 in the second, 34..39 in the third: the first was dropped.
  assert.equal(found(lines, 'a', 0), null);
  assert.equal(found(lines, 'a', 16), null);
  assert.equal(found(lines, 'a', 17), `17:${line}`);
  assert.equal(found(lines, 'a', 39), `39:${line}`);
  assert.equal(lines.byteSize, 2 * MIB + 10 * 4096);
  budget = MIB - 1;
  for (let row = 40; row < 60; row++) keep(lines, 'a', row, `${row}:${line}`);
  assert.equal(found(lines, 'a', 39), `39:${line}`); // its chunk is still the newest: no new chunk could be added
  assert.equal(found(lines, 'a', 59), null);
});

test(`RenderedLines: at most ${MAX_SHAPES} shapes; the least recently used goes, and a render holding it finds nothing after a forget`, () => {
  const lines = new RenderedLines(() => 4 * MIB);
  for (let i = 0; i < MAX_SHAPES; i++) keep(lines, `s${i}`, 7, `line ${i}`);
  const held = lines.shape('s1');
  assert.equal(lines.find(held, 7) !== null, true);
  for (const key of ['s0', 's2', 's3']) assert.equal(found(lines, key, 7), `line ${key.slice(1)}`); // s1 is now the least recently used
  keep(lines, 'new', 7, 'line new'); // drops s1
  assert.equal(lines.find(held, 7) === null, true);
  lines.forget(7);
  assert.equal(lines.find(held, 7) === null, true);
  assert.equal(found(lines, 's1', 7), null);
  keep(lines, 's0', 7, 'again');
  assert.equal(found(lines, 's0', 7), 'again');
});
