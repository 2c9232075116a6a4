/**
 * One test per gotcha of semantics.md#pitfalls, named after it. Each builds a small project,
 * runs /calls/stream_query in-process and asserts the exact lines or error.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { RequestContext } from '../../api/types.ts';
import { TqError } from '../../core/errors.ts';
import { createEngine } from '../../engine.ts';
import { parseCallRecord } from '../../load/calls/call-record.ts';
import type { ObjectVersion } from '../../store/project.ts';
import { callsStreamQueryRoute } from './route.ts';

const P = 'e/p';
const ctx: RequestContext = { userId: 'tester', authorize() {}, canRead: () => true };
type Rec = Record<string, unknown>;

const at = (s: number) => new Date(Date.UTC(2024, 0, 1, 0, 0, 0) + s * 1000).toISOString();

function call(id: string, startSec: number, extra: Rec = {}): Rec {
  return {
    id, project_id: P, op_name: `weave:///${P}/op/alpha:d1`, trace_id: `t-${id}`, parent_id: null,
    started_at: at(startSec), ended_at: at(startSec + 0.5), attributes: {}, inputs: {}, output: null,
    summary: {}, exception: null, svc_user_id: 'u1', ...extra,
  };
}

/** The base data set: c2 is stored first, so insertion order differs from started_at order. */
const BASE: Rec[] = [
  call('c2', 2, { parent_id: 'c1', trace_id: 't-c1', op_name: `weave:///${P}/op/beta:d2`, inputs: { x: '10', s: 'Hello' }, ended_at: at(3) }),
  call('c1', 1, { inputs: { x: 5, s: 'hello world', obj: { a: 1 }, flag: true, n: null }, ended_at: at(2.5) }),
  call('c4', 4, { op_name: `weave:///${P}/op/alpha:d9`, exception: 'Boom', ended_at: at(5) }),
  call('c3', 3, { op_name: 'plain_op', inputs: { x: 'abc' }, ended_at: null, summary: null, display_name: 'Shown' }),
  call('c5', 5, { deleted_at: at(6) }),
];

function engineWith(records: Rec[]) {
  const engine = createEngine();
  for (const r of records) {
    const { projectId, record } = parseCallRecord(r, 'svc_');
    const bytes = Buffer.from(JSON.stringify(r));
    engine.store.projectForWrite(projectId).calls.load(record, bytes, 0, bytes.length);
  }
  return engine;
}

function query(body: Rec, records: Rec[] = BASE, engine = engineWith(records)): Rec[] {
  const result = callsStreamQueryRoute.run(engine, { kind: 'value', value: { project_id: P, ...body } }, ctx);
  assert.equal(result.kind, 'stream');
  return [...(result as { lines: Iterable<string> }).lines].map((l) => JSON.parse(l) as Rec);
}

const ids = (body: Rec, records?: Rec[]) => query(body, records).map((l) => l.id);

function error(body: Rec): { status: number; body: Rec } {
  try {
    query(body);
  } catch (e) {
    assert.ok(e instanceof TqError, `expected a TqError, got ${String(e)}`);
    return { status: e.status, body: e.body() };
  }
  assert.fail('expected an error');
}

const field = (f: string) => ({ $getField: f });
const lit = (v: unknown) => ({ $literal: v });
const expr = (e: Rec) => ({ query: { $expr: e } });

test('semantics.md#calls-filter-thread-turn-empty: thread_ids [] and turn_ids [] match nothing; [] elsewhere is no filter', () => {
  assert.deepEqual(ids({ filter: { thread_ids: [] } }), []);
  assert.deepEqual(ids({ filter: { turn_ids: [] } }), []);
  assert.deepEqual(ids({ filter: { trace_ids: [], op_names: [], call_ids: [] } }), ['c1', 'c2', 'c3', 'c4']);
});

test('semantics.md#calls-filter-op-names: op_names wildcard is the ":*" suffix keeping the colon; otherwise exact', () => {
  assert.deepEqual(ids({ filter: { op_names: [`weave:///${P}/op/alpha:*`] } }), ['c1', 'c4']);
  assert.deepEqual(ids({ filter: { op_names: ['alpha'] } }), []);
  assert.deepEqual(ids({ filter: { op_names: [`weave:///${P}/op/alph:*`] } }), []);
  assert.deepEqual(ids({ filter: { op_names: ['plain_op'] } }), ['c3']);
});

test('semantics.md#calls-json-read: dynamic fields read as strings, never null; objects minified, booleans true/false', () => {
  assert.deepEqual(ids(expr({ $eq: [field('inputs.n'), lit(null)] })), []);
  assert.deepEqual(ids(expr({ $eq: [field('inputs.s'), lit('')] })), ['c3', 'c4']);
  assert.deepEqual(ids(expr({ $eq: [field('inputs.n'), lit('')] })), ['c1', 'c2', 'c3', 'c4']);
  assert.deepEqual(ids(expr({ $eq: [field('inputs.obj'), lit('{"a":1}')] })), ['c1']);
  assert.deepEqual(ids(expr({ $eq: [field('inputs.flag'), lit('true')] })), ['c1']);
});

test('semantics.md#calls-expr-inferred-cast: a numeric literal casts the JSON field; non-numeric values become NULL and drop out', () => {
  assert.deepEqual(ids(expr({ $gt: [field('inputs.x'), lit(6)] })), ['c2']);
  assert.deepEqual(ids(expr({ $lt: [field('inputs.x'), lit(6)] })), ['c1']);
});

test('semantics.md#calls-expr-logic: NULL comparisons are neither true nor false, so $not does not bring rows back', () => {
  assert.deepEqual(ids(expr({ $not: [{ $gt: [field('inputs.x'), lit(6)] }] })), ['c1']);
});

test('semantics.md#calls-sort-dynamic: dynamic sort puts existing values first both ways; plain NULLs last both ways', () => {
  assert.deepEqual(ids({ sort_by: [{ field: 'inputs.x', direction: 'asc' }] }), ['c1', 'c2', 'c3', 'c4']);
  assert.deepEqual(ids({ sort_by: [{ field: 'inputs.x', direction: 'desc' }] }), ['c2', 'c1', 'c3', 'c4']);
  assert.deepEqual(ids({ sort_by: [{ field: 'ended_at', direction: 'asc' }] }), ['c1', 'c2', 'c4', 'c3']);
  assert.deepEqual(ids({ sort_by: [{ field: 'ended_at', direction: 'desc' }] }), ['c4', 'c2', 'c1', 'c3']);
});

test('semantics.md#calls-sort-tiebreak: the implicit id tie-break is id asc whatever the terms and directions', () => {
  // c1, c2, c3 tie on exception (NULL, last); id asc orders them.
  assert.deepEqual(ids({ sort_by: [{ field: 'exception', direction: 'asc' }] }), ['c4', 'c1', 'c2', 'c3']);
  assert.deepEqual(ids({ sort_by: [{ field: 'exception', direction: 'desc' }] }), ['c4', 'c1', 'c2', 'c3']);
  const same = BASE.slice(0, 4).map((r) => ({ ...r, started_at: at(1) }));
  // started_at desc is a walk of the start-order index that turns each run of equal starts around.
  assert.deepEqual(ids({ sort_by: [{ field: 'started_at', direction: 'desc' }] }, same), ['c1', 'c2', 'c3', 'c4']);
  assert.deepEqual(ids({ sort_by: [{ field: 'started_at', direction: 'asc' }] }, same), ['c1', 'c2', 'c3', 'c4']);
  assert.deepEqual(ids({ sort_by: [{ field: 'started_at', direction: 'desc' }, { field: 'id', direction: 'desc' }] }, same), ['c4', 'c3', 'c2', 'c1']);
  assert.deepEqual(ids({ sort_by: [{ field: 'started_at', direction: 'asc' }, { field: 'id', direction: 'desc' }] }, same), ['c4', 'c3', 'c2', 'c1']);
  // Two runs of equal starts, walked newest first with ids ascending inside each run, paged.
  const runs = BASE.slice(0, 4).map((r, i) => ({ ...r, started_at: at(i < 2 ? 1 : 2) })); // c2,c1 at 1; c4,c3 at 2
  const desc = { sort_by: [{ field: 'started_at', direction: 'desc' }] };
  assert.deepEqual(ids(desc, runs), ['c3', 'c4', 'c1', 'c2']);
  assert.deepEqual(ids({ ...desc, offset: 1, limit: 2 }, runs), ['c4', 'c1']);
  assert.deepEqual(ids({ ...desc, ...expr({ $not: [{ $eq: [field('id'), lit('c4')] }] }) }, runs), ['c3', 'c1', 'c2']);
});

test('semantics.md#calls-sort-empty: sort_by [] orders by id asc, unlike an omitted sort_by', () => {
  assert.deepEqual(ids({ sort_by: [] }), ['c1', 'c2', 'c3', 'c4']);
  const late = BASE.slice(0, 4).map((r) => ({ ...r, started_at: at(r.id === 'c1' ? 9 : 1) }));
  assert.deepEqual(ids({ sort_by: [] }, late), ['c1', 'c2', 'c3', 'c4']);
  assert.deepEqual(ids({}, late), ['c2', 'c3', 'c4', 'c1']);
});

test('semantics.md#paging-limits: limit 0 returns nothing; negative limit or offset is a 400', () => {
  assert.deepEqual(ids({ limit: 0 }), []);
  assert.deepEqual(error({ limit: -1 }), { status: 400, body: { reason: 'Limit must be a positive integer' } });
  assert.deepEqual(error({ offset: -1 }), { status: 400, body: { reason: 'Offset must be a positive integer' } });
  assert.deepEqual(ids({ offset: 1, limit: 2 }), ['c2', 'c3']);
});

test('semantics.md#calls-columns-defaults: columns keep whole objects, always add the key columns, default the rest', () => {
  const [line] = query({ columns: ['inputs.x'], filter: { call_ids: ['c1'] } });
  assert.deepEqual(line.inputs, { x: 5, s: 'hello world', obj: { a: 1 }, flag: true, n: null });
  assert.equal(line.id, 'c1');
  assert.equal(line.project_id, P);
  assert.equal(line.trace_id, 't-c1');
  assert.equal(line.op_name, `weave:///${P}/op/alpha:d1`);
  assert.equal(line.started_at, '2024-01-01T00:00:01Z');
  assert.deepEqual(line.attributes, {});
  assert.equal(line.output, null);
  assert.equal(line.ended_at, null);
  assert.equal((line.summary as { weave: Rec }).weave.status, 'running', 'summary not selected: status reads running');
});

test('semantics.md#calls-summary-recomputed: summary.weave is recomputed; stored status/trace_name/latency/display_name dropped, other keys kept', () => {
  const rec = call('s1', 1, { summary: { weave: { status: 'bogus', trace_name: 'x', latency_ms: 1, display_name: 'y', keep: 1 }, other: 2 } });
  const [line] = query({}, [rec]);
  assert.deepEqual(line.summary, { other: 2, weave: { keep: 1, status: 'success', trace_name: 'alpha', latency_ms: 500 } });
});

test('semantics.md#calls-summary-name: display_name replaces trace_name; trace_name is the ref name part', () => {
  const lines = query({ filter: { call_ids: ['c1', 'c3'] } });
  const weave = (l: Rec) => (l.summary as { weave: Rec }).weave;
  assert.equal(weave(lines[0]).trace_name, 'alpha');
  assert.equal(weave(lines[1]).display_name, 'Shown');
  assert.equal('trace_name' in weave(lines[1]), false);
});

test('semantics.md#calls-summary-latency: latency_ms is absent for running calls and NULL (not 0) in filters', () => {
  const [running] = query({ filter: { call_ids: ['c3'] } });
  assert.equal('latency_ms' in (running.summary as { weave: Rec }).weave, false);
  assert.deepEqual(ids(expr({ $not: [{ $gt: [field('summary.weave.latency_ms'), lit(1_000_000)] }] })), ['c1', 'c2', 'c4']);
  assert.deepEqual(ids(expr({ $eq: [field('summary.weave.latency_ms'), lit(0)] })), []);
});

test('semantics.md#calls-summary-status-order: status check order differs; an empty exception is success in responses, error in filters', () => {
  const records = [
    call('e1', 1, { exception: '' }),
    call('d1', 2, { summary: { status_counts: { error: 1 } }, ended_at: null }),
  ];
  const lines = query({}, records);
  assert.equal((lines[0].summary as { weave: Rec }).weave.status, 'success');
  assert.equal((lines[1].summary as { weave: Rec }).weave.status, 'running', 'response side: running before descendant_error');
  assert.deepEqual(ids(expr({ $eq: [field('summary.weave.status'), lit('error')] }), records), ['e1']);
  assert.deepEqual(ids(expr({ $eq: [field('summary.weave.status'), lit('descendant_error')] }), records), ['d1']);
});

test('semantics.md#calls-include-presence: include_feedback always adds a list; include_costs adds costs only when a model has a price', () => {
  const lines = query({ include_feedback: true, include_costs: true, filter: { call_ids: ['c1'] } }, [
    call('c1', 1, { summary: { usage: { 'gpt-x': { prompt_tokens: 10, completion_tokens: 5, requests: 1, total_tokens: 15 } } } }),
  ]);
  const weave = (lines[0].summary as { weave: Rec }).weave;
  assert.deepEqual(weave.feedback, []);
  assert.equal('costs' in weave, false);
});

test('semantics.md#calls-storage-size: total_storage_size_bytes appears only on trace roots', () => {
  const lines = query({ include_total_storage_size: true, include_storage_size: true, filter: { trace_ids: ['t-c1'] } });
  const [root, child] = lines;
  assert.equal(child.total_storage_size_bytes, null);
  assert.equal(typeof child.storage_size_bytes, 'number');
  assert.equal(root.total_storage_size_bytes, (root.storage_size_bytes as number) + (child.storage_size_bytes as number));
});

test('semantics.md#errors-422-field: unknown fields are 422 with a reason, empty $and/$or 400, unknown keys 422', () => {
  assert.deepEqual(error(expr({ $eq: [field('nope'), lit(1)] })), { status: 422, body: { reason: 'Field nope is not allowed' } });
  assert.deepEqual(error({ sort_by: [{ field: 'nope', direction: 'asc' }] }), { status: 422, body: { reason: 'Field nope is not allowed' } });
  assert.deepEqual(error(expr({ $and: [] })), { status: 400, body: { reason: 'Empty AND operation' } });
  assert.deepEqual(error(expr({ $or: [] })), { status: 400, body: { reason: 'Empty OR operation' } });
  const unknown = error({ bogus: 1 });
  assert.equal(unknown.status, 422);
  assert.deepEqual((unknown.body.detail as Rec[]).map((d) => [d.type, d.loc]), [['extra_forbidden', ['body', 'bogus']]]);
});

test('semantics.md#calls-filter-max-length: a filter list over 1000 entries is a 400 even when nothing would match', () => {
  const many = Array.from({ length: 1001 }, (_, i) => `x${i}`);
  assert.deepEqual(error({ filter: { call_ids: many } }), {
    status: 400,
    body: { reason: "Parameter: 'call_ids' request length is greater than max length (1000). Actual length: 1001" },
  });
  assert.deepEqual(ids({ filter: { call_ids: many.slice(0, 1000) } }), []);
});

test('semantics.md#calls-base-started: deleted calls and calls with only an end part are never returned', () => {
  const engine = engineWith(BASE);
  engine.store.project(P)!.calls.end({ id: 'endonly', ended_at: 1, exception: null, output: null, summary: {}, run_step_end: null });
  assert.deepEqual(query({ filter: { call_ids: ['c5', 'endonly'] } }, BASE, engine), []);
  assert.deepEqual(query({}, BASE, engine).map((l) => l.id), ['c1', 'c2', 'c3', 'c4']);
});

test('semantics.md#calls-expand: expand adds _ref to dicts, leaves unresolvable and non-object refs, and obeys return_expanded_column_values', () => {
  const modelRef = `weave:///${P}/object/model:v1digest`;
  const records = [
    call('x1', 1, { inputs: { model: modelRef, missing: `weave:///${P}/object/gone:abc`, table: `weave:///${P}/table/abc` } }),
  ];
  const engine = engineWith(records);
  const version: ObjectVersion = {
    projectId: P, objectId: 'model', digest: 'v1digest', versionIndex: 0, createdAtUs: 0, deletedAtUs: null,
    kind: 'object', baseObjectClass: null, leafObjectClass: null, val: { name: 'm', temperature: 0.5 },
    valText: '{"name":"m","temperature":0.5}', isLatest: true,
  };
  engine.store.project(P)!.objects.set('model', [version]);
  const expand = ['inputs.model', 'inputs.missing', 'inputs.table'];
  const [line] = query({ expand_columns: expand }, records, engine);
  assert.deepEqual(line.inputs, {
    model: { name: 'm', temperature: 0.5, _ref: modelRef },
    missing: `weave:///${P}/object/gone:abc`,
    table: `weave:///${P}/table/abc`,
  });
  const [raw] = query({ expand_columns: expand, return_expanded_column_values: false }, records, engine);
  assert.equal((raw.inputs as Rec).model, modelRef);
  // Filtering through the ref still works without returning expanded values.
  const through = query({ expand_columns: ['inputs.model'], return_expanded_column_values: false, ...expr({ $eq: [field('inputs.model.name'), lit('m')] }) }, records, engine);
  assert.deepEqual(through.map((l) => l.id), ['x1']);
});

test("semantics.md#calls-project-echo: project_id echoes the request's project_id", () => {
  for (const line of query({})) assert.equal(line.project_id, P);
});

test('semantics.md#order-code-points: strings compare by code point, not UTF-16 code unit', () => {
  const records = [call('a', 1, { display_name: '\u{1F600}' }), call('b', 2, { display_name: '\uFF5E' })];
  assert.deepEqual(ids({ sort_by: [{ field: 'display_name', direction: 'asc' }] }, records), ['b', 'a']);
  assert.deepEqual(ids(expr({ $gt: [field('display_name'), lit('\uFF5E')] }), records), ['a']);
});

test('semantics.md#calls-expr-datetimes: datetime filters take unix seconds or ISO strings and compare as time', () => {
  const secs = Date.UTC(2024, 0, 1, 0, 0, 2) / 1000;
  assert.deepEqual(ids(expr({ $gt: [field('started_at'), lit(secs)] })), ['c3', 'c4']);
  assert.deepEqual(ids(expr({ $gt: [field('started_at'), lit('2024-01-01T00:00:02Z')] })), ['c3', 'c4']);
  assert.deepEqual(ids(expr({ $gt: [field('started_at'), lit('2024-01-01T01:00:02+01:00')] })), ['c3', 'c4']);
  assert.deepEqual(ids(expr({ $gte: [field('started_at'), lit(secs)] })), ['c2', 'c3', 'c4']);
});

test('semantics.md#calls-expr-contains: $contains with empty substr is true; objects are searched as JSON text', () => {
  const c = (input: Rec, substr: string, ci = false) => expr({ $contains: { input, substr: lit(substr), case_insensitive: ci } });
  assert.deepEqual(ids(c(field('inputs.s'), '')), ['c1', 'c2', 'c3', 'c4']);
  assert.deepEqual(ids(c(field('inputs.obj'), '"a":1')), ['c1']);
  assert.deepEqual(ids(c(field('inputs.s'), 'HELLO')), []);
  assert.deepEqual(ids(c(field('inputs.s'), 'HELLO', true)), ['c1', 'c2']);
  assert.deepEqual(ids(c(field('op_name'), 'beta')), ['c2']);
});

test('summary keys named __proto__ survive as plain keys', () => {
  const rec = call('p1', 1, {});
  const text = JSON.stringify(rec).replace('"summary":{}', '"summary":{"__proto__":{"x":1},"k":2}');
  const engine = createEngine();
  const parsed = JSON.parse(text) as Rec;
  const { projectId, record } = parseCallRecord(parsed, 'svc_');
  const bytes = Buffer.from(text);
  engine.store.projectForWrite(projectId).calls.load(record, bytes, 0, bytes.length);
  const [line] = query({}, [], engine);
  const summary = line.summary as Record<string, unknown>;
  assert.deepEqual(Object.keys(summary), ['__proto__', 'k', 'weave']);
  assert.deepEqual(Object.getOwnPropertyDescriptor(summary, '__proto__')?.value, { x: 1 });
});
