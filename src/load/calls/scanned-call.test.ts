import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { FIELD } from './line-scan.ts';
import { extractRefs } from '../../core/refs.ts';
import { CallTable, derivedColumns, wrapOutput } from '../../store/call-table.ts';
import { parseCallRecord } from './call-record.ts';
import { CallLinePrescan, fastCallRecord, partByteSpans, scannedCallRecord, scannedCallTaken } from './scanned-call.ts';
import { storeCallParts } from './parts-body.ts';

const scan = new CallLinePrescan();
const PARTS = ['attributes', 'inputs', 'output', 'summary'] as const;

/** The slow path: JSON.parse and parseCallRecord (null when it reports a problem). */
function slow(buf: Buffer, prefix: 'svc_' | 'wb_') {
  try {
    const value = JSON.parse(buf.toString('utf8')) as unknown;
    const parsed = parseCallRecord(value, prefix);
    return { ...parsed, derived: derivedColumns(parsed.record, parsed.record), value: value as Record<string, unknown> };
  } catch {
    return null;
  }
}

/**
 * The differential property: a line the fast path takes is one the slow path takes, to the
 * same record fields and derived columns, with part spans that parse to the parsed parts.
 */
function agree(buf: Buffer, prefix: 'svc_' | 'wb_'): 'fast' | 'slow' {
  // What a one-shot gate asks of a line it leaves out (no strings made) is the fast path's verdict.
  const taken = scan.prescan(buf, 0, buf.length, 0) && scannedCallTaken(scan, 0, buf);
  const fast = fastCallRecord(scan, buf, 0, buf.length);
  assert.equal(taken, fast !== null, `scannedCallTaken says ${taken} of ${buf.toString()}`);
  if (fast === null) return 'slow';
  const ref = slow(buf, prefix);
  assert.ok(ref !== null, `the fast path took a line the slow path refuses: ${buf.toString()}`);
  assert.equal(fast.projectId, ref.projectId);
  const { attributes: _a, inputs: _i, output: fastOutput, summary: _s, ...fastScalars } = fast.record;
  const { attributes: _a2, inputs: _i2, output: refOutput, summary: _s2, ...refScalars } = ref.record;
  assert.deepEqual(fastScalars, refScalars);
  assert.equal(fastOutput === null, refOutput === null);
  assert.deepEqual(fast.derived, ref.derived);
  for (const part of PARTS) {
    const f = FIELD[part];
    if (scan.kinds[f] === 0) assert.equal(part in ref.value, false);
    else assert.deepEqual(JSON.parse(buf.toString('utf8', scan.starts[f], scan.ends[f])), ref.value[part]);
  }
  storesAlike(buf, fast, ref);
  return 'fast';
}

/**
 * The fast path stores only the four parts (storeCallParts, load/calls/parts-body.ts), the slow path the whole line
 * (CallTable.load): both bodies read back to the same parts, as values and as stored text.
 */
function storesAlike(buf: Buffer, fast: NonNullable<ReturnType<typeof fastCallRecord>>, ref: NonNullable<ReturnType<typeof slow>>): void {
  const compact = new CallTable();
  const whole = new CallTable();
  storeCallParts(compact, fast.record, buf, partByteSpans(scan, 0, 0, new Int32Array(8)), fast.derived);
  whole.load(ref.record, buf, 0, buf.length);
  assert.deepEqual(compact.body(0), whole.body(0));
  assert.deepEqual(compact.bodyPartTexts(0), whole.bodyPartTexts(0));
  // The four parts the line has, and no other (a field between them may ride along, as in a body stored whole).
  const stored = JSON.parse(compact.bodyText(0)) as Record<string, unknown>;
  assert.deepEqual(PARTS.filter((p) => p in stored), PARTS.filter((p) => p in ref.value));
  assert.ok(compact.bodyText(0).length <= buf.length);
}

const line = (o: unknown) => Buffer.from(JSON.stringify(o));
const base = { id: 'c1', project_id: 'e/p', op_name: 'op', trace_id: 't', started_at: '2024-01-01T00:00:00Z' };
const REF = 'weave:///e/p/object/o:v1';

test('typical lines take the fast path to the same record', () => {
  const full = {
    ...base, display_name: 'd', parent_id: 'p', thread_id: 'th', turn_id: 'c1', ended_at: '2024-01-01T00:00:01.5Z', deleted_at: null,
    attributes: { a: 1 }, inputs: { x: REF, y: [REF, 'weave:///e/p/object/bad'] }, output: { 2: REF, 1: 'weave:///e/p/op/f:v' },
    exception: 'E', summary: { status_counts: { error: 3 } }, svc_user_id: 'u', svc_run_id: 'r', svc_run_step: 4, svc_run_step_end: 12345678901234567890,
  };
  assert.equal(agree(line(full), 'svc_'), 'fast');
  assert.equal(agree(line(full), 'wb_'), 'fast');
  assert.equal(agree(line({ ...base, wb_user_id: 'u', output: REF, ended_at: null }), 'svc_'), 'fast');
  assert.equal(agree(line({ ...base, output: [REF], summary: { status_counts: 5 } }), 'svc_'), 'fast');
  assert.equal(agree(line({ ...base, id: 'é\u2028\\"' }), 'svc_'), 'fast');
  assert.equal(agree(line({ ...base, output: 'w' }), 'svc_'), 'fast');
  assert.deepEqual(fastCallRecord(scan, line({ ...base, output: { 2: REF, 1: 'weave:///e/p/op/f:v' } }), 0, line({ ...base, output: { 2: REF, 1: 'weave:///e/p/op/f:v' } }).length)?.derived.outputRefs, ['weave:///e/p/op/f:v', REF]);
});

test('what the fast path refuses goes to the slow path, which names the problem', () => {
  for (const text of [
    JSON.stringify({ ...base, svc_user_id: 'u', wb_user_id: 'v' }), // both spellings
    JSON.stringify({ ...base, inputs: [] }),
    JSON.stringify({ ...base, id: { a: 1 } }),
    JSON.stringify({ ...base, started_at: 'yesterday' }),
    JSON.stringify(base).replace('{', '{"id":"x",'), // a repeated field
    JSON.stringify(base).replace('"id"', '"\\u0069d"'),
  ]) assert.equal(agree(Buffer.from(text), 'svc_'), 'slow', text);
  assert.equal(agree(Buffer.concat([line(base).subarray(0, 10), Buffer.from([0xff]), line(base).subarray(10)]), 'svc_'), 'slow');
});

const ref = fc.constantFrom(REF, 'weave:///e/p/op/f:v', 'weave:///e/p/object/bad', 'weave-trace-internal:///p/call/x', 'wandb-artifact:///a', 'w', 'weave:');
const jsonWithRefs = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, fc.jsonValue({ maxDepth: 1 }), ref, fc.array(tie('value'), { maxLength: 3 }), fc.dictionary(fc.constantFrom('a', 'b', '1', '0', 'error', 'status_counts'), tie('value'), { maxKeys: 3 })),
})).value;
/** An object part: nearly always an object. */
const part = fc.oneof({ weight: 20, arbitrary: fc.dictionary(fc.constantFrom('a', 'b', '1', 'x'), jsonWithRefs, { maxKeys: 4 }) }, { weight: 1, arbitrary: jsonWithRefs });
const maybe = <T>(a: fc.Arbitrary<T>) => fc.option(a, { freq: 3 });
const text = fc.oneof(fc.string({ maxLength: 5 }), fc.constantFrom('a', 'e/p', 'bad', 'x/..', '', 'weave:///e/p/op/f:v'));
const datetime = fc.oneof(
  { weight: 30, arbitrary: fc.constantFrom('2024-01-01T00:00:00Z', '2024-01-01T00:00:00.123456+01:00', '2023-12-31T23:59:59.5Z') },
  { weight: 1, arbitrary: fc.oneof(text, fc.constantFrom('2024-02-30T00:00:00Z')) },
);
const id = fc.oneof({ weight: 30, arbitrary: fc.constantFrom('a', 'c1', 'é', '\\"', 'x y') }, { weight: 1, arbitrary: anyValue() });
function anyValue() {
  return fc.oneof(fc.string({ maxLength: 5 }), fc.integer(), fc.constant(null), fc.constant(''), fc.constant([]));
}
const anyScalar = fc.oneof(text, fc.integer(), fc.double(), fc.boolean(), fc.constant(null));
/** Call-like records: mostly valid, often not; fields in any order, sometimes repeated. */
const record = fc.record(
  {
    id, project_id: fc.oneof({ weight: 20, arbitrary: fc.constantFrom('e/p', 'f/q') }, { weight: 1, arbitrary: fc.constantFrom('bad', 'x/..') }), op_name: id, trace_id: id, started_at: datetime, display_name: maybe(id),
    parent_id: maybe(id), thread_id: maybe(id), turn_id: maybe(id), ended_at: maybe(datetime), deleted_at: maybe(datetime), exception: maybe(id),
    attributes: maybe(part), inputs: maybe(part), output: maybe(jsonWithRefs),
    summary: maybe(fc.oneof(jsonWithRefs, fc.record({ status_counts: fc.oneof(jsonWithRefs, fc.record({ error: anyScalar, success: fc.integer() })) }))),
    svc_user_id: maybe(id), svc_run_id: maybe(id), wb_run_step: maybe(fc.oneof({ weight: 10, arbitrary: fc.integer() }, { weight: 1, arbitrary: anyScalar })), svc_run_step_end: maybe(fc.integer()),
    other: jsonWithRefs,
  },
  { requiredKeys: ['id', 'project_id', 'op_name', 'trace_id', 'started_at'] },
);
const spacing = fc.constantFrom('', ' ', '\t', ' \r ');
/** Some records spell the user/run fields wb_, a few both ways. */
const spelled = fc.tuple(record, fc.nat(9)).map(([r, spelling]) => {
  if (spelling > 3) return r;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(r)) out[spelling === 0 && k === 'svc_user_id' ? k : k.replace(/^svc_/, 'wb_')] = v;
  if (spelling === 0) out.wb_user_id = 'u';
  return out;
});
const serialised = fc.tuple(spelled, fc.oneof({ weight: 4, arbitrary: fc.constant([]) }, { weight: 1, arbitrary: fc.array(fc.nat(), { maxLength: 2 }) }), spacing).map(([r, repeats, ws]) => {
  const entries = Object.entries(r).map(([k, v]) => `${ws}${JSON.stringify(k)}${ws}:${ws}${JSON.stringify(v)}${ws}`);
  for (const k of repeats) if (entries.length) entries.push(entries[k % entries.length]);
  return `${ws}{${entries.join(',')}}${ws}`;
});
const edited = fc.tuple(serialised, fc.nat(), fc.constantFrom('', '{', '}', '[', ']', '"', ',', ':', '\\', '\\u00', '0', '-', '.', 'e', 'null', '\u0001', 'é'), fc.nat(2)).map(
  ([s, at, insert, cut]) => {
    const i = at % (s.length + 1);
    return s.slice(0, i) + insert + s.slice(i + cut);
  },
);

test('property: the fast path stores what the slow path stores, and refuses what it refuses', () => {
  let fast = 0;
  fc.assert(
    fc.property(fc.oneof({ weight: 2, arbitrary: serialised }, { weight: 1, arbitrary: edited }), fc.constantFrom('svc_' as const, 'wb_' as const), fc.nat(7), (s, prefix, bad) => {
      let buf = Buffer.from(s);
      if (bad === 0 && buf.length > 2) buf = Buffer.concat([buf.subarray(0, 2), Buffer.from([0xc0]), buf.subarray(2)]);
      if (agree(buf, prefix) === 'fast') fast++;
    }),
    { numRuns: 4000 },
  );
  assert.ok(fast > 800, `only ${fast} lines took the fast path: the property says little`);
});

test('partByteSpans: the parts of a stored body, in bytes from its start', () => {
  const body = Buffer.from(JSON.stringify({ ...base, inputs: { q: 'é' }, output: [1], summary: null }));
  const buf = Buffer.concat([Buffer.from('xx'), body]);
  assert.ok(fastCallRecord(scan, buf, 2, buf.length));
  const spans = partByteSpans(scan, 0, 2, new Int32Array(8));
  const part = (k: number) => (spans[2 * k] < 0 ? undefined : body.toString('utf8', spans[2 * k], spans[2 * k + 1]));
  assert.deepEqual([0, 1, 2, 3].map(part), [undefined, '{"q":"é"}', '[1]', 'null']);
});

test('a prescan grows its slots keeping the ones filled, and hands over exactly `count` of them', () => {
  const p = new CallLinePrescan(1);
  const lines = [line({ ...base, id: 'a', inputs: { r: REF } }), line({ ...base, id: 'b', ended_at: '2024-01-01T00:00:01Z' })];
  assert.ok(p.prescan(lines[0], 0, lines[0].length, 0));
  p.reserve(4, 1);
  assert.ok(p.prescan(lines[1], 0, lines[1].length, 1));
  const copy = new CallLinePrescan(0, p.arrays(2));
  assert.equal(copy.capacity, 2);
  assert.deepEqual(scannedCallRecord(copy, 0, lines[0])?.derived.inputRefs, [REF]);
  assert.equal(scannedCallRecord(copy, 1, lines[1])?.record.ended_at, Date.UTC(2024, 0, 1, 0, 0, 1) * 1000);
});

test('status_counts.error is read only as a number directly under status_counts', () => {
  // Found by the property above: a number in an array after status_counts was taken for the
  // error count once `error` had been seen (fast path 0, JSON.parse path NaN).
  for (const summary of [
    { status_counts: { error: false }, a: [0] },
    { status_counts: { error: 2 }, a: [0] },
    { status_counts: { error: [5] } },
    { a: [1], status_counts: { success: 1, error: 3 }, b: { error: 4 } },
  ]) {
    const buf = line({ ...base, summary });
    assert.equal(agree(buf, 'svc_'), 'fast', JSON.stringify(summary));
  }
});

/**
 * JSON text of `value` whose objects may repeat a key (an earlier entry again, later in the
 * object) or spell one with an escape: what JSON.stringify never writes and JSON.parse reads
 * with the last value winning at the first one's place.
 */
function withRepeats(value: unknown, pick: () => number): string {
  if (Array.isArray(value)) return `[${value.map((v) => withRepeats(v, pick)).join(',')}]`;
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  const keys = Object.keys(value);
  const spell = (k: string) => (pick() % 5 === 0 ? escapeFirst(k) : JSON.stringify(k));
  const entries = keys.map((k) => [spell(k), withRepeats((value as Record<string, unknown>)[k], pick)]);
  if (keys.length > 0 && pick() % 3 === 0) entries.push([spell(keys[pick() % keys.length]), pick() % 2 ? JSON.stringify(REF) : '0']);
  return `{${entries.map(([k, v]) => `${k}:${v}`).join(',')}}`;
}
const escapeFirst = (k: string) => (k === '' ? '""' : `"\\u${k.charCodeAt(0).toString(16).padStart(4, '0')}${JSON.stringify(k.slice(1)).slice(1)}`);

test('property: refs read without parsing the part are the ones extractRefs finds in the parsed part', () => {
  let unparsed = 0;
  fc.assert(
    fc.property(jsonWithRefs, jsonWithRefs, fc.array(fc.nat(), { minLength: 1, maxLength: 20 }), (inputs, output, picks) => {
      let k = 0;
      const pick = () => picks[k++ % picks.length];
      const inputsText = withRepeats({ x: inputs }, pick), outputText = withRepeats(output, pick);
      const buf = Buffer.from(`{"id":"c","project_id":"e/p","op_name":"o","trace_id":"t","started_at":"2024-01-01T00:00:00Z","ended_at":"2024-01-01T00:00:01Z","inputs":${inputsText},"output":${outputText}}`);
      const got = fastCallRecord(scan, buf, 0, buf.length);
      assert.ok(got !== null, buf.toString());
      assert.deepEqual(got.derived.inputRefs, extractRefs(JSON.parse(inputsText)), inputsText);
      assert.deepEqual(got.derived.outputRefs, extractRefs(wrapOutput(JSON.parse(outputText))), outputText);
      for (const p of [0, 1]) if (scan.refCount[p] === 1 && scan.refUnsure[p] === 0) unparsed++;
    }),
    { numRuns: 3000 },
  );
  assert.ok(unparsed > 300, `only ${unparsed} parts read without a parse`);
});

test('a ref whose key comes again later is dropped as JSON.parse drops it; an escaped key may spell it', () => {
  for (const [inputs, refs] of [
    [`{"p":"${REF}"}`, [REF]],
    [`{"p":"${REF}","p":1}`, []],
    [`{"p":"${REF}","\\u0070":1}`, []],
    [`{"\\u0070":"${REF}","p":1}`, []],
    [`{"p":1,"p":"${REF}"}`, [REF]],
    [`{"a":{"p":"${REF}"},"b":2,"a":{}}`, []],
    [`{"a":[{"p":"${REF}"}],"a2":1}`, [REF]],
    [`{"a":{"p":"${REF}","q":1},"b":{"p":2}}`, [REF]],
  ] as const) {
    const buf = Buffer.from(`{"id":"c","project_id":"e/p","op_name":"o","trace_id":"t","started_at":"2024-01-01T00:00:00Z","inputs":${inputs}}`);
    assert.deepEqual(fastCallRecord(scan, buf, 0, buf.length)?.derived.inputRefs, refs, inputs);
  }
});

test('storeCallParts stores the run of members holding the parts when they come in order, else assembles them', () => {
  const stored = (o: Record<string, unknown>) => {
    const buf = line(o);
    const fast = fastCallRecord(scan, buf, 0, buf.length)!;
    const t = new CallTable();
    storeCallParts(t, fast.record, buf, partByteSpans(scan, 0, 0, new Int32Array(8)), fast.derived);
    return t.bodyText(0);
  };
  const parts = { attributes: { a: 1 }, inputs: { x: 2 }, output: 3, exception: 'E', summary: { s: 4 } };
  assert.equal(stored({ ...base, ...parts, svc_user_id: 'u' }), '{"attributes":{"a":1},"inputs":{"x":2},"output":3,"exception":"E","summary":{"s":4}}');
  const { summary, ...rest } = parts;
  assert.equal(stored({ ...base, summary, ...rest }), '{"attributes":{"a":1},"inputs":{"x":2},"output":3,"summary":{"s":4}}');
  assert.equal(stored({ ...base, inputs: { x: 2 }, exception: null, output: 3 }), '{"inputs":{"x":2},"exception":null,"output":3}');
  const spaced = Buffer.from(`{"id":"c","project_id":"e/p","op_name":"o","trace_id":"t","started_at":"2024-01-01T00:00:00Z", "inputs" :\t{"x":2} , "output": 3 }`);
  const fast = fastCallRecord(scan, spaced, 0, spaced.length)!;
  const t = new CallTable();
  storeCallParts(t, fast.record, spaced, partByteSpans(scan, 0, 0, new Int32Array(8)), fast.derived);
  assert.equal(t.bodyText(0), '{"inputs" :\t{"x":2} , "output": 3}');
  assert.deepEqual(t.bodyPartTexts(0), [null, '{"x":2}', '3', null]);
});

test('storeCallParts refuses a stored id and leaves the table as it was', () => {
  const t = new CallTable();
  const put = (o: Record<string, unknown>) => {
    const buf = line(o);
    const fast = fastCallRecord(scan, buf, 0, buf.length)!;
    return storeCallParts(t, fast.record, buf, partByteSpans(scan, 0, 0, new Int32Array(8)), fast.derived);
  };
  assert.equal(put({ ...base, id: 'a', inputs: { x: 1 } }), 0);
  assert.equal(put({ ...base, id: 'b' }), 1);
  assert.throws(() => put({ ...base, id: 'a', inputs: { x: 2 } }), /duplicate call id a/);
  assert.equal(t.size, 2);
  assert.equal(t.rowOf('a'), 0);
  assert.equal(t.rowOf('b'), 1);
  assert.deepEqual([...t.byId], [['a', 0], ['b', 1]]);
  assert.equal(t.bodyText(0), '{"inputs":{"x":1}}');
  assert.equal(put({ ...base, id: 'c', trace_id: 't' }), 2);
  assert.equal(t.traceId(2), t.traceId(0));
});
