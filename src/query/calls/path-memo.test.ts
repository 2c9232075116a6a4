import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CallTable } from '../../store/call-table.ts';
import { jsonAccessor, MEMO_PATHS_PER_TABLE, PathMemo, PathMemos } from './path-memo.ts';
import { MISSING } from './json-path.ts';
import { orderRows } from './order.ts';
import { readJsonSpanBytes } from '../../core/json/path-extract.ts';

const values: unknown[] = [5, '7.5', 'null', null, MISSING, 'abc', '1152921504606846976', { a: 1 }];

/** An accessor over `values`, counting the reads it makes. */
function counted(memo: PathMemo) {
  let reads = 0;
  const acc = jsonAccessor((row) => (reads++, values[row]), memo, values.length);
  return { acc, reads: () => reads };
}

test('path memo: each reading is computed once, and only the readings asked for hold memory', () => {
  const memo = new PathMemo(0);
  const { acc, reads } = counted(memo);
  assert.equal(memo.bytes(), 0, 'nothing allocated before a read');
  const floats = values.map((_, r) => acc.float(r));
  assert.deepEqual(floats, [5, 7.5, null, null, null, null, 2 ** 60, null]);
  assert.equal(reads(), values.length);
  assert.deepEqual(values.map((_, r) => acc.float(r)), floats);
  assert.equal(reads(), values.length, 'floats memoised');
  assert.equal(memo.str, null, 'a numeric reading keeps no text');
  assert.equal(memo.int, null);
  const floatBytes = memo.bytes();
  assert.ok(floatBytes >= 9 * values.length && floatBytes < 20 * 1024, String(floatBytes));
  // Existence came with the reads.
  assert.deepEqual(values.map((_, r) => acc.exists(r)), [true, true, true, false, false, true, true, true]);
  assert.equal(reads(), values.length);
  // Texts: read once more each, then memoised and counted.
  assert.deepEqual(values.map((_, r) => acc.str(r)), ['5', '7.5', '', '', '', 'abc', '1152921504606846976', '{"a":1}']);
  assert.equal(reads(), 2 * values.length);
  assert.deepEqual(values.map((_, r) => acc.int(r)), [5, null, null, null, null, null, 2n ** 60n, null]);
  assert.equal(reads(), 2 * values.length, 'ints cast from the memoised texts');
  assert.ok(memo.bytes() > floatBytes);
});

test('path memos: bounded per table (least recently used goes), a changed table starts afresh, bytes counted', () => {
  const memos = new PathMemos();
  const t = new CallTable();
  const first = memos.memo(t, 'inputs.p0');
  for (let i = 1; i < MEMO_PATHS_PER_TABLE; i++) memos.memo(t, `inputs.p${i}`);
  assert.equal(memos.memo(t, 'inputs.p0'), first, 'kept, and now the most recent');
  memos.memo(t, 'inputs.new');
  const paths = memos.paths(t);
  assert.equal(paths.length, MEMO_PATHS_PER_TABLE);
  assert.ok(!paths.includes('inputs.p1') && paths.includes('inputs.p0'), paths.join());
  jsonAccessor(() => 1, first, 10).float(3);
  assert.ok(memos.bytes() > 1024 * 9);
  t.version++;
  assert.notEqual(memos.memo(t, 'inputs.p0'), first, 'a row changed in place: a new memo');
  memos.clear();
  assert.deepEqual(memos.paths(t), []);
  assert.equal(memos.bytes(), 0);
});

test('a sort on a path not read before reads each row once (the text first, the cast and existence from it)', () => {
  const { acc, reads } = counted(new PathMemo(0));
  const resolver = { resolve: () => acc };
  const rows = Int32Array.from(values.keys());
  const page = orderRows(rows, [{ field: 'inputs.x', direction: 'desc' }], resolver, 0, 3);
  assert.equal(reads(), values.length);
  // Present numbers first, largest first (semantics.md#calls-sort-dynamic).
  assert.deepEqual(page, [6, 1, 0]);
});

test('path memo over located bytes: every reading, in any order, is the one the decoded value gives', () => {
  // JSON values as stored, with the spellings the byte shortcuts decide and the ones they leave to the text.
  const stored = ['5', '-0', '0.304', '1e22', '1e23', '12345678901234567', '"7.5"', '" 8 "', '"gpt-4o"', '""', '"null"', 'null', 'true', '{"a":1}', '[1,2]', '"tab\\there"', '"é"', '"inf"', '-12.5e-3'];
  const encoder = new TextEncoder();
  const texts = [...stored, 'MISSING'];
  const bytes = texts.map((t) => encoder.encode(`[${t}]`));
  const locate = (row: number, span: Int32Array): Uint8Array | null => {
    if (texts[row] === 'MISSING') return null;
    span[0] = 1;
    span[1] = bytes[row].length - 1;
    return bytes[row];
  };
  // The reader's contract: the located span decoded by readJsonSpanBytes (big integers exact).
  const decoded = texts.map((t, row) => (t === 'MISSING' ? MISSING : readJsonSpanBytes(bytes[row], 1, bytes[row].length - 1)));
  const orders: Array<Array<'str' | 'float' | 'int' | 'exists'>> = [
    ['float', 'exists', 'str', 'int'],
    ['exists', 'str', 'float', 'int'],
    ['str', 'int', 'float', 'exists'],
  ];
  for (const order of orders) {
    const plain = jsonAccessor((row) => decoded[row], new PathMemo(0), texts.length);
    const located = jsonAccessor((row) => decoded[row], new PathMemo(0), texts.length, undefined, locate);
    assert.equal(located.floatFromBytes, true);
    for (const reading of order) {
      for (let row = 0; row < texts.length; row++) {
        const want = plain[reading](row), got = located[reading](row);
        assert.ok(Object.is(got, want) || (typeof want === 'bigint' && got === want), `${reading} of ${texts[row]}: ${String(got)} vs ${String(want)}`);
      }
    }
  }
});
