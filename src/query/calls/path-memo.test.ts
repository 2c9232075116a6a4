import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CallTable } from '../../store/call-table.ts';
import { jsonAccessor, MEMO_PATHS_PER_TABLE, PathMemo, PathMemos, pathMemos } from './path-memo.ts';
import { MISSING } from './json-path.ts';
import { orderRows } from './order.ts';
import { readJsonSpanBytes } from '../../core/json/path-extract.ts';
import { usePathWalkWasm } from '../../core/json/path-walk.ts';
import type { RequestContext } from '../../api/types.ts';
import { createEngine } from '../../engine.ts';
import { parseCallRecord } from '../../load/calls/call-record.ts';
import { callsStreamQueryRoute } from './route.ts';

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

/**
 * JSON values as stored (`'MISSING'`: a row with no value), each located in its own bytes, and
 * what the reader's contract gives for each: the located span decoded by readJsonSpanBytes (big
 * integers exact).
 */
function locatedValues(texts: readonly string[]) {
  const encoder = new TextEncoder();
  const bytes = texts.map((t) => encoder.encode(`[${t}]`));
  const locate = (row: number, span: Int32Array): Uint8Array | null => {
    if (texts[row] === 'MISSING') return null;
    span[0] = 1;
    span[1] = bytes[row].length - 1;
    return bytes[row];
  };
  const decoded = texts.map((t, row) => (t === 'MISSING' ? MISSING : readJsonSpanBytes(bytes[row], 1, bytes[row].length - 1)));
  return { locate, decoded };
}

test('path memo over located bytes: every reading, in any order, is the one the decoded value gives', () => {
  // JSON values as stored, with the spellings the byte shortcuts decide and the ones they leave to the text.
  const stored = ['5', '-0', '0.304', '1e22', '1e23', '12345678901234567', '"7.5"', '" 8 "', '"gpt-4o"', '""', '"null"', 'null', 'true', '{"a":1}', '[1,2]', '"tab\\there"', '"é"', '"inf"', '-12.5e-3'];
  const texts = [...stored, 'MISSING'];
  const { locate, decoded } = locatedValues(texts);
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

test('path memo over located bytes: $eq against a string literal gives str(row) === literal, decided from bytes or text, in any order', () => {
  // Values as stored and literals chosen to hit every branch: equal bytes, unequal ASCII,
  // escapes (equal and unequal once decoded), non-ASCII, invalid UTF-8, numbers spelt as
  // the literal, "null" and "" (which missing and JSON null also read as), lone surrogates.
  const storedTexts = ['"gpt-4o"', '"gpt-4o-mini"', '"gpt\\u002d4o"', '"gpt\\\\4o"', '"é"', '"e\\u0301"', '"\\u00e9"', '"null"', '""', 'null', '5', '"5"', '5.0', 'true', '{"a":"gpt-4o"}', '["gpt-4o"]', '"gpt-4"', '"\\ud800"', '"\ufffd"', 'MISSING'];
  const literals = ['gpt-4o', 'gpt-4o-mini', 'gpt\\4o', 'é', 'null', '', '5', 'true', 'gpt-4', '\ud800', '\ufffd', '{"a":"gpt-4o"}', 'x'];
  const encoder = new TextEncoder();
  // Random rows of those values, some with raw invalid UTF-8 bytes that decode as U+FFFD.
  let seed = 7;
  const random = (n: number) => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % n);
  for (let round = 0; round < 30; round++) {
    const rows = Array.from({ length: 40 }, () => random(storedTexts.length + 1));
    const bytes = rows.map((k) => (k === storedTexts.length ? Uint8Array.from([0x5b, 0x22, 0xff, 0x22, 0x5d]) : encoder.encode(`[${storedTexts[k]}]`)));
    const missing = rows.map((k) => k < storedTexts.length && storedTexts[k] === 'MISSING');
    const locate = (row: number, span: Int32Array): Uint8Array | null => {
      if (missing[row]) return null;
      span[0] = 1;
      span[1] = bytes[row].length - 1;
      return bytes[row];
    };
    const decoded = rows.map((_, row) => (missing[row] ? MISSING : readJsonSpanBytes(bytes[row], 1, bytes[row].length - 1)));
    const plain = jsonAccessor((row) => decoded[row], new PathMemo(0), rows.length);
    const memo = new PathMemo(0);
    // Some queries read texts first (then equality comes from them), some never do.
    const located = jsonAccessor((row) => decoded[row], memo, rows.length, undefined, locate);
    if (round % 3 === 0) for (let row = 0; row < rows.length; row += 2) located.str(row);
    for (const literal of [literals[random(literals.length)], literals[random(literals.length)]]) {
      const equals = located.textEquals!(literal);
      for (let pass = 0; pass < 2; pass++) {
        for (let row = 0; row < rows.length; row++) {
          const want = plain.str(row) === literal;
          assert.equal(equals(row), want, `round ${round}: ${JSON.stringify(literal)} vs ${new TextDecoder().decode(bytes[row])}`);
          assert.equal(located.exists(row), plain.exists(row), `exists after $eq, round ${round} row ${row}`);
        }
      }
    }
    assert.ok(memo.equal.size <= 4);
  }
});

test('path memo: $eq readings are kept per literal, a few literals per path, their bytes counted', () => {
  const memo = new PathMemo(0);
  memo.ensure(10);
  for (let k = 0; k < 6; k++) memo.equality(`literal ${k}`)[0] = 1;
  assert.deepEqual([...memo.equal.keys()], ['literal 2', 'literal 3', 'literal 4', 'literal 5']);
  assert.equal(memo.bytes(), 4 * (16 + 'literal 0'.length + memo.equality('literal 5').length));
  assert.equal(memo.equality('literal 5').length, 1024, 'the least capacity');
  memo.ensure(5000);
  assert.equal(memo.equality('literal 5').length >= 5000, true);
  assert.equal(memo.equality('literal 5')[0], 1, 'kept across growth');
});

test('$eq of a stored JSON path with a string literal: the same calls as the text compared (through $convert to string), over stored bodies', () => {
  // Raw spellings of inputs.model as a client may send them (escapes, non-ASCII, numbers, null).
  const spellings = ['"gpt-4o"', '"gpt-4o-mini"', '"gpt\\u002d4o"', '"gpt\\\\4o"', '"\u00e9"', '"\\u00e9"', '"null"', '""', 'null', '5', '"5"', '{"m":"gpt-4o"}', '"gpt-4o "', 'MISSING'];
  const literals = ['gpt-4o', 'gpt-4o-mini', 'gpt\\4o', '\u00e9', 'null', '', '5', '{"m":"gpt-4o"}', 'gpt-4o '];
  const engine = createEngine();
  const P = 'e/p';
  let seed = 11;
  const random = (n: number) => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % n);
  // More rows than a walk batch, so batches of the WebAssembly walk and their edges are crossed.
  for (let i = 0; i < 2500; i++) {
    const raw = spellings[random(spellings.length)];
    const at = new Date(Date.UTC(2024, 0, 1) + i * 1000).toISOString();
    const base = { id: `c${i}`, project_id: P, op_name: 'op', trace_id: `t${i}`, parent_id: null, started_at: at, ended_at: at, attributes: {}, inputs: {}, output: null, summary: {}, exception: null };
    const line = JSON.stringify(base).replace('"inputs":{}', raw === 'MISSING' ? '"inputs":{"n":1}' : `"inputs":{"n":1,"model":${raw}}`);
    const { projectId, record } = parseCallRecord(JSON.parse(line) as Record<string, unknown>, '');
    const bytes = Buffer.from(line);
    engine.store.projectForWrite(projectId).calls.load(record, bytes, 0, bytes.length);
  }
  const ctx: RequestContext = { userId: 'tester', authorize() {}, canRead: () => true };
  const ids = (query: unknown): string[] => {
    const result = callsStreamQueryRoute.run(engine, { kind: 'value', value: { project_id: P, query, columns: ['id'] } }, ctx);
    return [...(result as { lines: Iterable<string> }).lines].map((l) => (JSON.parse(l) as { id: string }).id);
  };
  let matched = 0;
  for (const literal of literals) {
    // The text comparison fills the path's texts, which the byte comparison then reads: each
    // side starts from no readings.
    pathMemos(engine.store).clear();
    const asText = ids({ $expr: { $eq: [{ $convert: { input: { $getField: 'inputs.model' }, to: 'string' } }, { $literal: literal }] } });
    pathMemos(engine.store).clear();
    // Both operand orders, twice (the second from the kept readings).
    for (let pass = 0; pass < 2; pass++) {
      assert.deepEqual(ids({ $expr: { $eq: [{ $getField: 'inputs.model' }, { $literal: literal }] } }), asText, `${JSON.stringify(literal)}, pass ${pass}`);
      assert.deepEqual(ids({ $expr: { $eq: [{ $literal: literal }, { $getField: 'inputs.model' }] } }), asText, `${JSON.stringify(literal)} on the left, pass ${pass}`);
    }
    matched += asText.length;
  }
  // Every spelling reads as exactly one of the literals.
  assert.equal(matched, 2500);
});

test('path memo over located bytes: a sort\'s first key in one loop is what float and exists give per row, whatever was read before', () => {
  const stored = ['5', '-0', '0.304', '1e400', '-1e400', '12345678901234567', '"7.5"', '" 8 "', '"nan"', '"inf"', '""', '"null"', 'null', 'true', '{"a":1}', '[1,2]', '"1\\u0030"', '-12.5e-3', 'MISSING'];
  const { locate, decoded } = locatedValues(stored);
  const rows = Int32Array.from([...stored.keys(), ...stored.keys()].reverse());
  for (const worst of [Infinity, -Infinity]) {
    for (const before of ['nothing', 'str', 'float', 'exists', 'half'] as const) {
      const plain = jsonAccessor((row) => decoded[row], new PathMemo(0), stored.length);
      const located = jsonAccessor((row) => decoded[row], new PathMemo(0), stored.length, undefined, locate);
      for (let row = 0; row < stored.length; row++) {
        if (before === 'str' || (before === 'half' && row % 2 === 0)) located.str(row);
        if (before === 'float' || (before === 'half' && row % 3 === 0)) located.float(row);
        if (before === 'exists') located.exists(row);
      }
      const got = located.presenceAndNumbers!(rows, worst, new Float64Array(rows.length));
      rows.forEach((row, i) => {
        const f = plain.float(row);
        const want = !plain.exists(row) ? NaN : f === null || Number.isNaN(f) ? worst : f;
        assert.ok(Object.is(got[i], want), `${stored[row]} after ${before}: ${got[i]} vs ${want}`);
      });
    }
  }
});

test('first use over two body parts read row by row (inputs and output in one $expr, a sort on output): the calls and order the JavaScript walk gives', () => {
  const engine = createEngine();
  const P = 'e/p';
  let seed = 5;
  const random = (n: number) => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % n);
  const models = ['"gpt-4o"', '"gpt-4o-mini"', '"gpt\\u002d4o"', 'null', '7'];
  const scores = ['0.304', '-1', '"0.5"', '1e3', 'null', '"x"', '0.5'];
  // More rows than a walk batch (up to 1024), so both parts' batches replace each other in the module.
  for (let i = 0; i < 3000; i++) {
    const at = new Date(Date.UTC(2024, 0, 1) + i * 1000).toISOString();
    const inputs = `{"model":${models[random(models.length)]},"max_tokens":${random(600)},"pad":"${'p'.repeat(random(40))}"}`;
    const output = random(9) === 0 ? 'null' : `{"answer":"${'a'.repeat(random(30))}","score":${scores[random(scores.length)]}}`;
    const base = { id: `c${i}`, project_id: P, op_name: 'op', trace_id: `t${i}`, parent_id: null, started_at: at, ended_at: at, attributes: { k: i }, inputs: {}, output: null, summary: {}, exception: null };
    const line = JSON.stringify(base).replace('"inputs":{}', `"inputs":${inputs}`).replace('"output":null', `"output":${output}`);
    const { projectId, record } = parseCallRecord(JSON.parse(line) as Record<string, unknown>, '');
    const bytes = Buffer.from(line);
    engine.store.projectForWrite(projectId).calls.load(record, bytes, 0, bytes.length);
  }
  const ctx: RequestContext = { userId: 'tester', authorize() {}, canRead: () => true };
  const query = {
    $expr: {
      $or: [
        { $and: [{ $eq: [{ $getField: 'inputs.model' }, { $literal: 'gpt-4o-mini' }] }, { $gt: [{ $getField: 'output.score' }, { $literal: 0.3 }] }] },
        { $gt: [{ $convert: { input: { $getField: 'inputs.max_tokens' }, to: 'double' } }, { $convert: { input: { $getField: 'output.score' }, to: 'double' } }] },
      ],
    },
  };
  const ids = (): string[] => {
    pathMemos(engine.store).clear();
    const body = { project_id: P, query, sort_by: [{ field: 'output.score', direction: 'desc' }, { field: 'inputs.max_tokens', direction: 'asc' }, { field: 'id', direction: 'asc' }], columns: ['id'] };
    const result = callsStreamQueryRoute.run(engine, { kind: 'value', value: body }, ctx);
    return [...(result as { lines: Iterable<string> }).lines].map((l) => (JSON.parse(l) as { id: string }).id);
  };
  const wasm = ids();
  usePathWalkWasm(false);
  let js: string[];
  try {
    js = ids();
  } finally {
    usePathWalkWasm(true);
  }
  assert.ok(js.length > 500 && js.length < 2900, `${js.length} calls`);
  assert.deepEqual(wasm, js);
});
