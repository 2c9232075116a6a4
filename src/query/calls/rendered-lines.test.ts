/**
 * Lines kept after a render (CallTable.renderedLines, pageChunks with renderedLineShape): a
 * repeated answer is copied from them, and is the same bytes as a fresh render, also after the
 * rows changed in between (ended, renamed, deleted, restarted, given feedback), for every shape
 * of request and both field prefixes.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { callRoute, grantingContext } from '../../api/call-route.testing.ts';
import { runRoute } from '../../api/run-route.ts';
import type { Engine, FieldPrefix } from '../../api/types.ts';
import { createEngine } from '../../engine.ts';
import { loadFixtureText } from '../../io/load-fixtures.ts';
import { textCallsQueryLines } from './response-text.testing.ts';
import { renderedLineShape, selectColumns } from './response.ts';
import { parseCallsQuery } from './request.ts';
import { callsStreamQueryRoute } from './route.ts';
import { queryBody } from '../../api/body.ts';

const P = 'e/p';
const dec = new TextDecoder();

/** The stream's bytes as text, as every front end sends them. */
function streamed(engine: Engine, body: Record<string, unknown>): string {
  const result = runRoute(callsStreamQueryRoute, engine, { kind: 'text', text: JSON.stringify(body) }, grantingContext());
  assert.ok(result.kind === 'stream');
  return [...result.chunks].map((c) => dec.decode(c)).join('');
}

/** The former text renderer's answer (the oracle of the byte renderer). */
function oracle(engine: Engine, body: Record<string, unknown>): string {
  const ctx = grantingContext();
  return textCallsQueryLines(engine, JSON.stringify(body), (p) => ctx.canRead(p)).map((l) => `${l}\n`).join('');
}

/** A budget for the table of P (a small table keeps no lines by default: see CallTable.renderedLines). */
function keepLines(engine: Engine, bytes = 4 * 1024 * 1024): void {
  engine.store.projectForWrite(P).calls.renderedLinesBudget = bytes;
}

function write(engine: Engine, path: string, body: unknown): void {
  const outcome = callRoute(engine, path, body);
  assert.equal(outcome.status, 200, `${path}: ${JSON.stringify(outcome)}`);
}

const start = (id: string, i: number, parent: string | null = null) => ({
  start: { project_id: P, id, trace_id: 't1', parent_id: parent, op_name: `weave:///${P}/op/step:abc`, started_at: `2024-01-01T00:00:0${i}Z`, attributes: { a: i }, inputs: { x: 1.0, i } },
});
const end = (id: string, seconds: number, extra: Record<string, unknown> = {}) => ({
  end: { project_id: P, id, ended_at: `2024-01-01T00:00:${String(seconds).padStart(2, '0')}Z`, output: { y: seconds }, summary: { status_counts: { error: 0 } }, ...extra },
});

test('a repeated answer is copied from the kept lines: the same bytes, the table holds them, the store counts and drops them', () => {
  const engine = createEngine();
  keepLines(engine);
  for (let i = 0; i < 5; i++) write(engine, '/call/start', start(`c${i}`, i, i === 0 ? null : 'c0'));
  write(engine, '/call/end', end('c1', 9));
  const t = engine.store.project(P)!.calls;
  assert.equal(t.renderedLines.byteSize, 0);
  const first = streamed(engine, { project_id: P });
  assert.equal(first, oracle(engine, { project_id: P }));
  assert.equal(first.split('\n').length, 6);
  // The first render of a shape keeps nothing (a one-shot would pay for nothing); the second does.
  assert.equal(t.renderedLines.byteSize, 0);
  assert.equal(streamed(engine, { project_id: P }), first);
  const held = t.renderedLines.byteSize;
  assert.ok(held >= 1024 * 1024, `held ${held}`);
  // Every row's line is kept under the request's shape.
  const shape = t.renderedLines.shape(renderedLineShape({ req: parseCallsQuery(queryBody({ kind: 'text', text: JSON.stringify({ project_id: P }) }), 'svc_'), prefix: 'svc_', selected: null })!);
  for (let row = 0; row < 5; row++) assert.notEqual(t.renderedLines.find(shape, row), null, `row ${row}`);
  assert.equal(streamed(engine, { project_id: P }), first);
  assert.equal(t.renderedLines.byteSize, held);
  // One of the store's derived caches: reported, and dropped with them (the bench's cold runs).
  assert.equal(engine.store.derived.report()['calls.rendered_lines'], held);
  engine.store.derived.clear();
  assert.equal(t.renderedLines.byteSize, 0);
  assert.equal(streamed(engine, { project_id: P }), first);
});

test('by default a table keeps lines within a quarter of its body bytes: a small one keeps none', async () => {
  const engine = createEngine();
  await loadFixtureText(engine, 'calls', `{"project_id":"${P}","id":"c0","op_name":"op","trace_id":"t","started_at":"2024-01-01T00:00:00Z"}`);
  const t = engine.store.project(P)!.calls;
  const first = streamed(engine, { project_id: P });
  assert.equal(streamed(engine, { project_id: P }), first);
  assert.equal(t.renderedLines.byteSize, 0);
  assert.ok(t.arenaBytes < 4 * 1024 * 1024);
});

test('a row changed after it was rendered renders its new bytes: ended, renamed, deleted, restarted', () => {
  const engine = createEngine();
  keepLines(engine);
  for (let i = 0; i < 4; i++) write(engine, '/call/start', start(`c${i}`, i, i === 0 ? null : 'c0'));
  const body = { project_id: P };
  streamed(engine, body);
  const before = streamed(engine, body);
  assert.ok(engine.store.project(P)!.calls.renderedLines.byteSize > 0);
  assert.match(before, /"id":"c1".*"ended_at":null.*"status":"running"/);

  write(engine, '/call/end', end('c1', 7, { exception: 'boom' }));
  const ended = streamed(engine, body);
  assert.notEqual(ended, before);
  assert.match(ended, /"id":"c1".*"ended_at":"2024-01-01T00:00:07Z","exception":"boom","output":\{"y":7\}.*"weave":\{"status":"error","latency_ms":6000/);
  assert.equal(ended, oracle(engine, body));

  write(engine, '/call/update', { project_id: P, call_id: 'c2', display_name: 'renamed' });
  const renamed = streamed(engine, body);
  assert.match(renamed, /"id":"c2"[^\n]*"display_name":"renamed"[^\n]*"weave":\{"status":"running","display_name":"renamed"\}/);
  assert.equal(renamed, oracle(engine, body));

  write(engine, '/calls/delete', { project_id: P, call_ids: ['c3'] });
  const deleted = streamed(engine, body);
  assert.doesNotMatch(deleted, /"id":"c3"/);
  assert.equal(deleted.split('\n').length, 4);
  assert.equal(deleted, oracle(engine, body));

  // A repeated start: the latest one wins (new inputs, op and time).
  write(engine, '/call/start', { start: { ...start('c2', 5).start, inputs: { again: true }, op_name: 'plain_op' } });
  const restarted = streamed(engine, body);
  assert.match(restarted, /"id":"c2","project_id":"e\/p","op_name":"plain_op"[^\n]*"inputs":\{"again":true\}/);
  assert.equal(restarted, oracle(engine, body));
  assert.equal(streamed(engine, body), restarted);
});

test('a repeated large answer: stretches of kept lines handed on whole (up to a chunk), the rows changed in between rendered anew', () => {
  const engine = createEngine();
  keepLines(engine);
  for (let i = 0; i < 300; i++) write(engine, '/call/start', { start: { ...start(`c${i}`, i % 10).start, inputs: { i, pad: 'p'.repeat(400 + (i % 7)) } } });
  const body = { project_id: P, sort_by: [{ field: 'id', direction: 'asc' }] };
  const chunksOf = () => {
    const result = runRoute(callsStreamQueryRoute, engine, { kind: 'text', text: JSON.stringify(body) }, grantingContext());
    assert.ok(result.kind === 'stream');
    return [...result.chunks];
  };
  const first = chunksOf();
  const expected = oracle(engine, body);
  assert.equal(first.map((c) => dec.decode(c)).join(''), expected);
  assert.equal(chunksOf().map((c) => dec.decode(c)).join(''), expected); // keeps them
  const again = chunksOf();
  assert.equal(again.map((c) => dec.decode(c)).join(''), expected);
  // Handed on as views of the kept chunks (1 MiB buffers), each whole lines and at most a chunk's
  // worth; the short stretch at the end is copied into a chunk of the writer's.
  assert.ok(again.length >= 4);
  assert.ok(again.slice(0, -1).every((c) => c.buffer.byteLength === 1024 * 1024), again.map((c) => c.buffer.byteLength).join());
  assert.ok(again[again.length - 1].buffer.byteLength < 1024 * 1024);
  for (const c of again) {
    assert.equal(c[c.length - 1], 10);
    assert.ok(c.length <= 64 * 1024 + 1024, `${c.length}`);
  }
  // Rows in the middle changed: rendered anew between stretches of kept lines (short ones copied).
  for (const i of [5, 6, 150, 151, 152, 299]) write(engine, '/call/update', { project_id: P, call_id: `c${i}`, display_name: `now ${i}` });
  write(engine, '/call/end', end('c10', 30));
  const changed = oracle(engine, body);
  assert.notEqual(changed, expected);
  assert.equal(chunksOf().map((c) => dec.decode(c)).join(''), changed);
  assert.equal(chunksOf().map((c) => dec.decode(c)).join(''), changed);
  // A page of it: the same lines, from the kept bytes.
  const page = { ...body, offset: 7, limit: 40 };
  assert.equal(streamed(engine, page), oracle(engine, page));
});

test('feedback added after a render: include_feedback shows it (its lines are never kept), the plain answer stays the same', () => {
  const engine = createEngine();
  keepLines(engine);
  write(engine, '/call/start', start('c0', 0));
  write(engine, '/call/end', end('c0', 2));
  const plain = streamed(engine, { project_id: P });
  assert.equal(streamed(engine, { project_id: P }), plain);
  const withFeedback = streamed(engine, { project_id: P, include_feedback: true });
  assert.match(withFeedback, /"feedback":\[\]/);
  write(engine, '/feedback/create', { project_id: P, weave_ref: `weave:///${P}/call/c0`, feedback_type: 'wandb.reaction.1', payload: { emoji: '👍' } });
  const after = streamed(engine, { project_id: P, include_feedback: true });
  assert.match(after, /"feedback":\[\{"id":"[^"]+","feedback_type":"wandb.reaction.1","weave_ref":"weave:\/\/\/e\/p\/call\/c0","payload":\{"emoji":"👍",/);
  assert.equal(after, oracle(engine, { project_id: P, include_feedback: true }));
  assert.equal(streamed(engine, { project_id: P }), plain);
});

test('renderedLineShape: the columns and the prefix make the shape; expansion, costs, feedback and storage sizes are never kept', () => {
  const shapeOf = (body: Record<string, unknown>, prefix: FieldPrefix = 'svc_') => {
    const req = parseCallsQuery(queryBody({ kind: 'text', text: JSON.stringify({ project_id: P, ...body }) }), prefix);
    return renderedLineShape({ req, prefix, selected: selectColumns(req, prefix) });
  };
  assert.equal(shapeOf({}), 'svc_\n*');
  assert.equal(shapeOf({}, 'wb_'), 'wb_\n*');
  assert.equal(shapeOf({ columns: ['summary', 'id'] }), 'svc_\ndisplay_name,ended_at,exception,id,op_name,project_id,started_at,summary,trace_id');
  assert.equal(shapeOf({ columns: ['id', 'summary'] }), shapeOf({ columns: ['summary', 'id'] }));
  // expand_columns with return_expanded_column_values false expands nothing: kept.
  assert.equal(shapeOf({ expand_columns: ['inputs.x'], return_expanded_column_values: false }), 'svc_\n*');
  for (const body of [{ include_costs: true }, { include_feedback: true }, { include_storage_size: true }, { include_total_storage_size: true }, { expand_columns: ['inputs.x'] }, { expand_columns: ['inputs.x'], return_expanded_column_values: true }]) {
    assert.equal(shapeOf(body), null, JSON.stringify(body));
  }
});

test('two engines on one store with other field prefixes, and a table with no budget: each answers its own bytes', async () => {
  const engine = createEngine();
  await loadFixtureText(engine, 'calls', `{"project_id":"${P}","id":"c0","op_name":"op","trace_id":"t","started_at":"2024-01-01T00:00:00Z","svc_user_id":"u","inputs":{"n":1.50}}`);
  keepLines(engine);
  const wb = createEngine(engine.store, { fieldPrefix: 'wb_' });
  const svcFirst = streamed(engine, { project_id: P });
  const wbFirst = streamed(wb, { project_id: P });
  assert.equal(streamed(engine, { project_id: P }), svcFirst);
  assert.equal(streamed(wb, { project_id: P }), wbFirst);
  assert.match(svcFirst, /"svc_user_id":"u"/);
  assert.match(wbFirst, /"wb_user_id":"u"/);
  assert.equal(streamed(engine, { project_id: P }), svcFirst);
  assert.equal(streamed(wb, { project_id: P }), wbFirst);
  assert.equal(wbFirst, oracle(wb, { project_id: P }));
  const t = engine.store.project(P)!.calls;
  assert.ok(t.renderedLines.byteSize > 0);
  t.renderedLines.clear();
  t.renderedLinesBudget = 0;
  assert.equal(streamed(engine, { project_id: P }), svcFirst);
  assert.equal(t.renderedLines.byteSize, 0);
});

/** One step of a workload: a render under some request, or a write to call `i`. */
const step = fc.oneof(
  fc.record({
    kind: fc.constant('render' as const),
    columns: fc.option(fc.subarray(['id', 'inputs', 'output', 'summary', 'ended_at', 'display_name', 'parent_id']), { nil: undefined }),
    sort: fc.boolean(),
    feedback: fc.boolean(),
    limit: fc.option(fc.integer({ min: 1, max: 6 }), { nil: undefined }),
  }),
  fc.record({ kind: fc.constantFrom('end' as const, 'update' as const, 'delete' as const, 'restart' as const, 'feedback' as const), call: fc.nat(5), n: fc.nat(50) }),
);

for (const prefix of ['svc_', 'wb_'] as FieldPrefix[]) {
  test(`random writes between renders (${prefix}): every answer is the text renderer's, kept lines or not`, () => {
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 25 }), fc.boolean(), (steps, tinyBudget) => {
        const engine = createEngine(undefined, { fieldPrefix: prefix });
        for (let i = 0; i < 6; i++) write(engine, '/call/start', start(`c${i}`, i, i === 0 ? null : `c${i - 1}`));
        // A budget of one chunk: lines are dropped as chunks fill (none fills here: kept throughout), or none at all.
        engine.store.project(P)!.calls.renderedLinesBudget = tinyBudget ? 0 : 1024 * 1024;
        for (const s of steps) {
          const id = s.kind === 'render' ? '' : `c${s.call}`;
          if (s.kind === 'render') {
            const body: Record<string, unknown> = { project_id: P };
            if (s.columns) body.columns = s.columns;
            if (s.sort) body.sort_by = [{ field: 'ended_at', direction: 'desc' }];
            if (s.feedback) body.include_feedback = true;
            if (s.limit !== undefined) body.limit = s.limit;
            assert.equal(streamed(engine, body), oracle(engine, body), JSON.stringify(body));
          } else if (s.kind === 'end') write(engine, '/call/end', end(id, 10 + (s.n % 40), s.n % 3 === 0 ? { exception: `e${s.n}` } : {}));
          else if (s.kind === 'update') write(engine, '/call/update', { project_id: P, call_id: id, display_name: s.n % 4 === 0 ? '' : `name ${s.n}` });
          else if (s.kind === 'delete') write(engine, '/calls/delete', { project_id: P, call_ids: [id] });
          else if (s.kind === 'restart') write(engine, '/call/start', { start: { ...start(id, s.n % 10).start, inputs: { n: s.n } } });
          else write(engine, '/feedback/create', { project_id: P, weave_ref: `weave:///${P}/call/${id}`, feedback_type: 'note', payload: { n: s.n } });
        }
      }),
      { numRuns: 100 },
    );
  });
}
