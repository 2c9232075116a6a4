import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatMicros } from '../../core/datetime.ts';
import { rng } from '../../gen/generate.ts';
import { datetimeJsonFormatter } from './datetime-json.ts';
import { splicedSummary } from './response.ts';
import { deriveSummary } from './summary.ts';

test('datetimeJsonFormatter: the JSON string of formatMicros for any instant, across days, before 1970, with and without micros', () => {
  const dt = datetimeJsonFormatter();
  const r = rng(3);
  const samples = [0, 1, -1, 999_999, 1_000_000, -86_400_000_000, 86_399_999_999, Date.UTC(2025, 0, 1) * 1000, Date.UTC(1969, 11, 31, 23, 59, 59) * 1000 + 5];
  for (let i = 0; i < 2000; i++) samples.push(Math.floor((r() - 0.3) * 4e15));
  // Runs of the same day, then a jump back: the cached date part must follow.
  for (let i = 0; i < 50; i++) samples.push(Date.UTC(2025, 5, 1) * 1000 + i * 1_000_003);
  samples.push(Date.UTC(2024, 1, 29, 12) * 1000);
  for (const us of samples) assert.equal(dt(us), JSON.stringify(formatMicros(us)), String(us));
  assert.equal(dt(NaN), 'null');
});

const computed = { opName: 'weave:///e/p/op/retrieve:abc', startedAt: 1_000_000, endedAt: 3_500_000, exception: null, displayName: null };

test('splicedSummary: the stored text with the computed weave block appended, as deriveSummary gives it', () => {
  const cases: Array<[string | null, number]> = [
    ['{"usage":{"m":{"requests":1}},"status_counts":{"success":1,"error":0}}', 0],
    ['{"status_counts":{"error":2}}', 2],
    ['{}', NaN],
    ['{ }', NaN],
    [null, NaN],
    ['null', NaN],
  ];
  for (const [stored, errors] of cases) {
    for (const c of [computed, { ...computed, endedAt: null }, { ...computed, exception: 'boom' }, { ...computed, displayName: 'mine' }, { ...computed, opName: 'plain' }]) {
      const summary = stored === null ? null : (JSON.parse(stored) as Record<string, unknown> | null);
      assert.equal(splicedSummary(stored, c, errors), JSON.stringify(deriveSummary({ summary, ...c })), `${stored} ${JSON.stringify(c)}`);
    }
  }
  // Spacing and number spellings of the stored text are kept, as for inputs and output.
  assert.equal(splicedSummary('{"a": 1.0 }', computed, NaN), '{"a": 1.0 ,"weave":{"status":"success","latency_ms":2500,"trace_name":"retrieve"}}');
});

test('splicedSummary: a stored weave block or a non-object summary goes the parsing way', () => {
  assert.equal(splicedSummary('{"weave":{"x":1}}', computed, NaN), null);
  assert.equal(splicedSummary('{"a":{"weave":1}}', computed, NaN), null);
  assert.equal(splicedSummary('[1]', computed, NaN), null);
  assert.equal(splicedSummary('{"we\\u0061ve":{"x":1}}', computed, NaN), null);
});

test('a stored summary.weave or status_counts that is a big integer is not read as an object (no lexeme in the answer)', async () => {
  const { createEngine } = await import('../../engine.ts');
  const { callRoute } = await import('../../api/call-route.testing.ts');
  const engine = createEngine();
  const { loadFixtureText } = await import('../../io/load-fixtures.ts');
  // A fixture line (a write would refuse a non-dict status_counts first).
  await loadFixtureText(engine, 'calls', '{"project_id":"e/p","id":"c1","op_name":"op","trace_id":"t1","started_at":"2024-01-01T00:00:00Z","ended_at":"2024-01-01T00:00:01Z","inputs":{"big":12345678901234567890},"summary":{"weave":12345678901234567890,"status_counts":12345678901234567890}}');
  const [line] = (callRoute(engine, '/calls/stream_query', { project_id: 'e/p' }) as { lines: Array<Record<string, any>> }).lines;
  assert.deepEqual(line.summary.weave, { status: 'success', latency_ms: 1000, trace_name: 'op' });
  // An expand path through a big integer finds nothing to expand (it is a number, not a dict).
  const expanded = (callRoute(engine, '/calls/stream_query', { project_id: 'e/p', expand_columns: ['inputs.big.lexeme'] }) as { lines: Array<Record<string, any>> }).lines;
  assert.equal(typeof expanded[0].inputs.big, 'number');
});

test('pageChunks: the same bytes as rowChunks for any page order, lazily (an early stop writes no more rows), touching rows ahead', async () => {
  const { createEngine } = await import('../../engine.ts');
  const { loadFixtureText } = await import('../../io/load-fixtures.ts');
  const { rowChunks } = await import('../../api/line-stream.ts');
  const { JsonLineWriter } = await import('../../core/json/line-writer.ts');
  const { pageChunks } = await import('./response.ts');
  const engine = createEngine();
  const lines = Array.from({ length: 50 }, (_, i) =>
    JSON.stringify({ project_id: 'e/p', id: `c${i}`, op_name: 'op', trace_id: `t${i % 7}`, parent_id: i % 7 === i ? null : `c${i % 7}`, started_at: `2024-01-01T00:00:${String(i % 60).padStart(2, '0')}Z`, inputs: { i, pad: 'x'.repeat(i * 10) }, summary: {} }),
  );
  await loadFixtureText(engine, 'calls', lines.join('\n'));
  const t = engine.store.project('e/p')!.calls;
  const page = [49, 3, 0, 17, 48, 2, 33, 1, 5, 40, 41, 42, 8, 9, 10, 11, 12, 13, 14, 15, 16, 18, 19, 20, 21];
  let written: number[] = [];
  const write = (row: number, w: InstanceType<typeof JsonLineWriter>) => {
    written.push(row);
    w.text(`{"row":${row},"id":${JSON.stringify(t.id(row))}}`);
  };
  const join = (chunks: Iterable<Uint8Array>) => Buffer.concat([...chunks]).toString('utf8');
  const expected = join(rowChunks(page, write, new JsonLineWriter(64)));
  written = [];
  assert.equal(join(pageChunks(t, page, write, new JsonLineWriter(64))), expected);
  assert.deepEqual(written, page);
  // Lazy: taking the first chunk writes only the rows up to that chunk's end.
  written = [];
  const first = pageChunks(t, page, write, new JsonLineWriter(64))[Symbol.iterator]().next();
  assert.equal(first.done, false);
  assert.ok(written.length < page.length && written.length >= 1, `wrote ${written.length}`);
  // touchRows reads any window, also one past the page's end, and returns a number.
  assert.equal(typeof t.touchRows(page, 20, 60), 'number');
  assert.ok(Number.isFinite(t.touchRows(page, 0, 0)));
});

test('DatetimeBytes: the bytes of datetimeJsonFormatter for whole, fractional and beyond-2^53 microseconds and NaN, within MAX_BYTES', async () => {
  const { DatetimeBytes, MAX_BYTES } = await import('./datetime-json.ts');
  const { JsonLineWriter } = await import('../../core/json/line-writer.ts');
  const text = datetimeJsonFormatter();
  const bytes = new DatetimeBytes();
  const r = rng(11);
  const samples = [NaN, 0, -1, 0.5, 1.25, 123456.78901234567, -0.000001, 5e-324, 2.5e17, 253402300799999999, Date.UTC(2025, 0, 1) * 1000 + 0.1, 1, 10, 999_999, 1_000_001, 86_399_999_999, Date.UTC(2025, 0, 1) * 1000 + 100_000];
  for (let i = 0; i < 500; i++) samples.push((r() - 0.3) * 4e15, Math.floor((r() - 0.3) * 4e15), r() * 2.5e17);
  // Days revisited out of order, more of them than the kept date parts, some sharing a slot
  // (64 days apart), before and after 1970: each must be spelled with its own date.
  const day = 86_400_000_000;
  for (let i = 0; i < 600; i++) samples.push((Math.floor(r() * 140) - 70) * day + Math.floor(r() * day), ((i % 5) - 2) * 64 * day + 1_000_000);
  for (const us of samples) {
    const w = new JsonLineWriter();
    bytes.write(w, us);
    const out = Buffer.from(w.take()).toString('latin1');
    assert.equal(out, text(us), String(us));
    assert.ok(out.length <= MAX_BYTES, `${us}: ${out.length} bytes`);
  }
});
