import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createEngine } from '../engine.ts';
import { callsStreamQueryRoute } from '../query/calls/route.ts';
import { deleteCalls } from './calls.ts';
import { call, cell, NOW_US, testContext, testEngine } from './writes.testing.ts';
import { columnValues } from '../store/call-table.testing.ts';

const P = 'acme/proj';
const start = (id: string, extra: Record<string, unknown> = {}) => ({
  project_id: P,
  id,
  op_name: 'weave:///acme/proj/op/add:abc',
  trace_id: 'trace-1',
  started_at: '2024-05-01T12:00:00Z',
  attributes: { weave: { source: 'js-sdk' } },
  inputs: { a: 1 },
  ...extra,
});
const end = (id: string, extra: Record<string, unknown> = {}) => ({
  project_id: P,
  id,
  ended_at: '2024-05-01T12:00:01.5Z',
  output: 4,
  summary: {},
  ...extra,
});
const US_START = Date.UTC(2024, 4, 1, 12) * 1000;

test('semantics.md#writes-call-start, semantics.md#writes-call-end start then end: one call with both parts', () => {
  const e = testEngine();
  assert.deepEqual(call(e, '/call/start', { start: start('c1') }), { status: 200, body: { id: 'c1', trace_id: 'trace-1' } });
  assert.deepEqual(call(e, '/call/end', { end: end('c1') }), { status: 200, body: {} });
  const t = e.store.project(P)!.calls;
  const row = t.rowOf('c1')!;
  assert.equal(t.size, 1);
  assert.equal(t.startedAt.data[row], US_START);
  assert.equal(t.endedAt.data[row], US_START + 1_500_000);
  assert.deepEqual(JSON.parse(t.bodyText(row)), { attributes: { weave: { source: 'js-sdk' } }, inputs: { a: 1 }, output: 4, summary: {} });
});

test('semantics.md#calls-related-writes: an end before its start waits for it, then merges', () => {
  const e = testEngine();
  call(e, '/call/end', { end: end('c1', { exception: 'kaboom', output: null }) });
  const t = e.store.project(P)!.calls;
  assert.equal(t.size, 0, 'an end alone is not a call');
  assert.equal(t.pendingEndCount, 1);
  call(e, '/call/start', { start: start('c1') });
  const row = t.rowOf('c1')!;
  assert.equal(t.pendingEndCount, 0);
  assert.equal(cell(t.exceptions, row), 'kaboom');
  assert.equal(t.endedAt.data[row], US_START + 1_500_000);
});

test('a repeated start replaces the start fields and keeps the end', () => {
  const e = testEngine();
  call(e, '/call/start', { start: start('c1') });
  call(e, '/call/end', { end: end('c1') });
  call(e, '/call/start', { start: start('c1', { op_name: 'other', inputs: { a: 2 } }) });
  const t = e.store.project(P)!.calls;
  const row = t.rowOf('c1')!;
  assert.equal(t.size, 1);
  assert.equal(t.opName(row), 'other');
  assert.deepEqual(JSON.parse(t.bodyText(row)), { attributes: { weave: { source: 'js-sdk' } }, inputs: { a: 2 }, output: 4, summary: {} });
});

test('semantics.md#writes-upsert-batch upsert_batch applies items in order: child before parent, end before start, `{}` for ends', () => {
  const e = testEngine();
  const res = call(e, '/call/upsert_batch', {
    batch: [
      { mode: 'end', req: { end: end('child') } },
      { mode: 'start', req: { start: start('child', { parent_id: 'root' }) } },
      { mode: 'start', req: { start: start('root') } },
      { mode: 'end', req: { end: end('root', { output: 8 }) } },
    ],
  });
  assert.deepEqual(res, { status: 200, body: { res: [{}, { id: 'child', trace_id: 'trace-1' }, { id: 'root', trace_id: 'trace-1' }, {}] } });
  const t = e.store.project(P)!.calls;
  assert.deepEqual(columnValues(t, 'id'), ['child', 'root']);
  assert.equal(t.parentId(t.rowOf('child')!), 'root');
  assert.ok(!Number.isNaN(t.endedAt.data[t.rowOf('child')!]));
  assert.equal(JSON.parse(t.bodyText(t.rowOf('root')!)).output, 8);
});

test('semantics.md#writes-upsert-batch a batch item without mode takes its shape\'s default mode', () => {
  const e = testEngine();
  const res = call(e, '/call/upsert_batch', { batch: [{ req: { start: start('c1') } }, { req: { end: end('c1') } }] });
  assert.deepEqual(res, { status: 200, body: { res: [{ id: 'c1', trace_id: 'trace-1' }, {}] } });
});

test('semantics.md#writes-upsert-batch any other mode is 400 "Invalid mode" and nothing of the batch is written', () => {
  const e = testEngine();
  const res = call(e, '/call/upsert_batch', { batch: [{ mode: 'start', req: { start: start('c1') } }, { mode: 'begin', req: { start: start('c2') } }] });
  assert.deepEqual(res, { status: 400, body: { reason: 'Invalid mode' } });
  assert.equal(e.store.project(P), undefined);
});

test('semantics.md#writes-call-start missing id and trace_id are generated from engine.options.newId', () => {
  const e = testEngine();
  const s = start('x');
  delete (s as Record<string, unknown>).id;
  delete (s as Record<string, unknown>).trace_id;
  assert.deepEqual(call(e, '/call/start', { start: s }), { status: 200, body: { id: 'id-1', trace_id: 'id-2' } });
});

test('semantics.md#writes-user-id: user id is the one sent, else the authenticated user; the prefix spells it', () => {
  const e = testEngine();
  call(e, '/call/start', { start: start('c1') }, testContext('bob'));
  call(e, '/call/start', { start: start('c2', { svc_user_id: 'carol', svc_run_id: 'r1', svc_run_step: 3 }) }, testContext('bob'));
  const t = e.store.project(P)!.calls;
  assert.equal(t.userId(t.rowOf('c1')!), 'bob');
  assert.equal(t.userId(t.rowOf('c2')!), 'carol');
  assert.equal(cell(t.runIds, t.rowOf('c2')!), 'r1');
  assert.equal(cell(t.runStep as never, t.rowOf('c2')!), 3);

  const w = testEngine('wb_');
  call(w, '/call/start', { start: start('c1', { wb_user_id: 'dave', svc_user_id: 'ignored' }) });
  assert.equal(w.store.project(P)!.calls.userId(0), 'dave');
});

test('semantics.md#sdk-wire: the SDK\'s display_name inside an end is ignored, not a 422', () => {
  const e = testEngine();
  call(e, '/call/start', { start: start('c1') });
  assert.deepEqual(call(e, '/call/end', { end: end('c1', { display_name: 'nice' }) }), { status: 200, body: {} });
});

test('semantics.md#writes-call-end summary is stored as validated: usage counts coerced to int, extra keys kept, replaced not merged (semantics.md#writes-call-end)', () => {
  const e = testEngine();
  call(e, '/call/start', { start: start('c1') });
  call(e, '/call/end', { end: end('c1', { summary: { usage: { m: { prompt_tokens: 5 } }, status_counts: { error: 1 } } }) });
  call(e, '/call/end', { end: end('c1', { summary: { other: 1, usage: { m: { requests: '2', zzz: 1, prompt_tokens: 3 } } } }) });
  const t = e.store.project(P)!.calls;
  assert.deepEqual(JSON.parse(t.bodyText(0)).summary, { usage: { m: { prompt_tokens: 3, requests: 2, zzz: 1 } }, other: 1 });
  assert.ok(Number.isNaN(t.statusErrorCount.data[0]));
});

test('/call/update: latest display name wins; empty string clears; unknown call is a no-op', () => {
  const e = testEngine();
  call(e, '/call/start', { start: start('c1') });
  const t = e.store.project(P)!.calls;
  assert.deepEqual(call(e, '/call/update', { project_id: P, call_id: 'c1', display_name: 'first' }), { status: 200, body: {} });
  call(e, '/call/update', { project_id: P, call_id: 'c1', display_name: 'second' });
  assert.equal(cell(t.displayNames, 0), 'second');
  call(e, '/call/update', { project_id: P, call_id: 'c1', display_name: '' });
  assert.equal(cell(t.displayNames, 0), null);
  assert.deepEqual(call(e, '/call/update', { project_id: P, call_id: 'nope', display_name: 'x' }), { status: 200, body: {} });
});

test('/call/update without display_name is 400 with Weave\'s wording', () => {
  const e = testEngine();
  assert.deepEqual(call(e, '/call/update', { project_id: P, call_id: 'c1' }), {
    status: 400,
    body: { reason: 'One of [display_name] is required for call update' },
  });
});

test('422: started_at that is not a datetime, in pydantic wording', () => {
  const e = testEngine();
  assert.deepEqual(call(e, '/call/start', { start: start('c1', { started_at: 'nope' }) }), {
    status: 422,
    body: {
      detail: [
        {
          type: 'datetime_from_date_parsing',
          loc: ['body', 'start', 'started_at'],
          msg: 'Input should be a valid datetime or date, input is too short',
          input: 'nope',
          ctx: { error: 'input is too short' },
        },
      ],
    },
  });
  const month = call(e, '/call/start', { start: start('c1', { started_at: '2024-13-01T00:00:00Z' }) });
  assert.equal((month.body as { detail: Array<{ msg: string }> }).detail[0].msg, 'Input should be a valid datetime or date, month value is outside expected range of 1-12');
  const list = call(e, '/call/start', { start: start('c1', { started_at: [] }) });
  assert.deepEqual((list.body as { detail: unknown[] }).detail, [{ type: 'datetime_type', loc: ['body', 'start', 'started_at'], msg: 'Input should be a valid datetime', input: [] }]);
});

test('datetimes: naive means UTC, offsets are applied, unix seconds accepted', () => {
  const e = testEngine();
  call(e, '/call/start', { start: start('a', { started_at: '2024-05-01T12:00:00' }) });
  call(e, '/call/start', { start: start('b', { started_at: '2024-05-01T14:00:00+02:00' }) });
  call(e, '/call/start', { start: start('c', { started_at: US_START / 1e6 }) });
  const t = e.store.project(P)!.calls;
  assert.deepEqual([0, 1, 2].map((r) => t.startedAt.data[r]), [US_START, US_START, US_START]);
});

test('422: strict top level (unknown key), lenient inner schema, missing required fields', () => {
  const e = testEngine();
  const extra = call(e, '/call/start', { start: start('c1'), extra: 1 });
  assert.deepEqual(extra, { status: 422, body: { detail: [{ type: 'extra_forbidden', loc: ['body', 'extra'], msg: 'Extra inputs are not permitted', input: 1 }] } });
  const missing = call(e, '/call/end', { end: { project_id: P, id: 'c1' } });
  assert.deepEqual(
    (missing.body as { detail: Array<{ loc: unknown[] }> }).detail.map((d) => d.loc),
    [
      ['body', 'end', 'ended_at'],
      ['body', 'end', 'summary'],
    ],
  );
});

test('422: union errors of a batch item name each member class (pydantic smart union)', () => {
  const e = testEngine();
  const res = call(e, '/call/upsert_batch', { batch: [{ mode: 'start', req: { end: {} } }] });
  assert.equal(res.status, 422);
  assert.deepEqual(
    (res.body as { detail: Array<{ type: string; loc: unknown[] }> }).detail.map((d) => [d.type, d.loc.join('.')]),
    [
      ['missing', 'body.batch.0.CallBatchStartMode.req.start'],
      ['extra_forbidden', 'body.batch.0.CallBatchStartMode.req.end'],
      ['missing', 'body.batch.0.CallBatchEndMode.req.end.project_id'],
      ['missing', 'body.batch.0.CallBatchEndMode.req.end.id'],
      ['missing', 'body.batch.0.CallBatchEndMode.req.end.ended_at'],
      ['missing', 'body.batch.0.CallBatchEndMode.req.end.summary'],
    ],
  );
});

test('422: summary.status_counts keys must be trace statuses', () => {
  const e = testEngine();
  const res = call(e, '/call/end', { end: end('c1', { summary: { status_counts: { bogus: 1 } } }) });
  assert.deepEqual((res.body as { detail: unknown[] }).detail, [
    {
      type: 'enum',
      loc: ['body', 'end', 'summary', 'status_counts', 'bogus', '[key]'],
      msg: "Input should be 'success', 'error', 'running' or 'descendant_error'",
      input: 'bogus',
      ctx: { expected: "'success', 'error', 'running' or 'descendant_error'" },
    },
  ]);
});

test('422 json_invalid for a body that is not JSON', () => {
  const e = testEngine();
  const res = call(e, '/call/start', '{"start": ');
  assert.equal(res.status, 422);
  assert.equal((res.body as { detail: Array<{ type: string }> }).detail[0].type, 'json_invalid');
});

test('every project of a batch is authorized before anything is written; a malformed project id is 400', () => {
  const e = testEngine();
  const forbidden = call(e, '/call/upsert_batch', { batch: [{ mode: 'start', req: { start: start('c1') } }, { mode: 'start', req: { start: start('c2', { project_id: 'x/forbidden' }) } }] });
  assert.equal(forbidden.status, 403);
  assert.equal(e.store.project(P), undefined);
  assert.deepEqual(call(e, '/call/start', { start: start('c1', { project_id: 'noslash' }) }), {
    status: 400,
    body: { reason: "Invalid project_id 'noslash': expected the form <entity>/<project>" },
  });
});

test('server clock is not used for call times (they come from the client)', () => {
  const e = testEngine();
  call(e, '/call/start', { start: start('c1') });
  assert.notEqual(e.store.project(P)!.calls.startedAt.data[0], NOW_US);
});

test('calls/delete soft-deletes the calls and their descendants in the same trace; over 1000 ids is a 413', () => {
  const engine = createEngine();
  const t = engine.store.projectForWrite('e/p').calls;
  const base = { op_name: 'op', display_name: null, thread_id: null, turn_id: null, started_at: 1, attributes: {}, inputs: {}, user_id: 'u', run_id: null, run_step: null };
  t.start({ ...base, id: 'root', trace_id: 't', parent_id: null });
  t.start({ ...base, id: 'kid', trace_id: 't', parent_id: 'root' });
  t.start({ ...base, id: 'grandkid', trace_id: 't', parent_id: 'kid' });
  t.start({ ...base, id: 'other', trace_id: 't2', parent_id: null });
  assert.deepEqual(deleteCalls(engine, 'e/p', ['kid', 'missing', 'kid']), { num_deleted: 3 }, 'kid, grandkid and the unknown id, each once');
  assert.deepEqual(deleteCalls(engine, 'e/p', ['kid']), { num_deleted: 1 }, 'a named call is counted even when already deleted');
  assert.deepEqual(deleteCalls(engine, 'e/p', []), { num_deleted: 0 });
  assert.deepEqual(deleteCalls(engine, 'nobody/here', ['a', 'b', 'a']), { num_deleted: 2 });
  const result = callsStreamQueryRoute.run(engine, { kind: 'value', value: { project_id: 'e/p' } }, { userId: 'u', authorize() {}, canRead: () => true });
  const ids = [...(result as { lines: Iterable<string> }).lines].map((l) => JSON.parse(l).id);
  assert.deepEqual(ids, ['other', 'root'], 'started_at ties break by id');
  assert.throws(
    () => deleteCalls(engine, 'e/p', Array.from({ length: 1001 }, (_, i) => `c${i}`)),
    (e: { status: number; body(): unknown }) => e.status === 413 && JSON.stringify(e.body()) === '{"reason":"Cannot delete more than 1000 calls at once"}',
  );
});

test('semantics.md#writes-number-spelling: stored parts keep the body\'s spellings through an end first, a start, and a repeated start', () => {
  const e = testEngine();
  const startText = (inputs: string) =>
    `{"start":{"project_id":"${P}","id":"c1","op_name":"op","started_at":"2024-05-01T12:00:00Z","attributes":{"t":0.50},"inputs":${inputs}}}`;
  // The end arrives first and waits: its parts keep their text until the start comes.
  call(e, '/call/end', `{"end":{"project_id":"${P}","id":"c1","ended_at":"2024-05-01T12:00:01Z","output":[1.0,2],"summary":{"x":1E2,"status_counts":{"error":1.0}}}}`);
  call(e, '/call/start', startText('{"b":1.0,"2":-0.0,"big":123456789012345678901}'));
  const t = e.store.project(P)!.calls;
  const row = t.rowOf('c1')!;
  assert.equal(
    t.bodyText(row),
    '{"attributes":{"t":0.5},"inputs":{"b":1.0,"2":-0.0,"big":123456789012345678901},"output":[1.0,2],"summary":{"status_counts":{"error":1},"x":100.0}}',
  );
  assert.equal(t.statusErrorCount.data[row], 1, 'the typed count is an int');
  // A repeated start replaces attributes and inputs and keeps the end's parts as stored.
  call(e, '/call/start', startText('{"c":2.0}'));
  assert.equal(t.bodyText(row), '{"attributes":{"t":0.5},"inputs":{"c":2.0},"output":[1.0,2],"summary":{"status_counts":{"error":1},"x":100.0}}');
});

test('semantics.md#writes-number-spelling: a value sent as an object (library callers) is stored as its JSON', () => {
  const e = testEngine();
  call(e, '/call/start', { start: start('c1', { inputs: { a: 1.5, b: 2 } }) });
  const t = e.store.project(P)!.calls;
  assert.equal(t.bodyPartText(t.rowOf('c1')!, 'inputs'), '{"a":1.5,"b":2}');
});
