/**
 * Issue 11 §5: every user-supplied key is data. `__proto__`, `constructor` and `toString` are
 * stored and returned like any key, through every write, the fixture loader and every read;
 * none of them reaches an object's prototype.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { allRoutes } from '../routes.ts';
import { runRoute } from '../api/run-route.ts';
import { createEngine } from '../engine.ts';
import { loadCostRecord } from '../load/records.ts';

const HOSTILE = '"__proto__":{"polluted":1},"constructor":{"prototype":2},"toString":3';
const hostile = () => JSON.parse(`{${HOSTILE}}`) as unknown;
const ctx = { userId: 'u', authorize() {}, canRead: () => true };

function send(engine: ReturnType<typeof createEngine>, path: string, text: string): unknown {
  const result = runRoute(allRoutes().find((r) => r.path === path)!, engine, { kind: 'text', text }, ctx);
  if (result.kind === 'bytes') return new TextDecoder().decode(result.bytes);
  return JSON.parse(result.kind === 'json' ? (result.text ?? JSON.stringify(result.body)) : `[${[...result.lines].join(',')}]`);
}

test('hostile keys survive calls, summaries, usage, costs, feedback, tables and objects', () => {
  const e = createEngine();
  send(e, '/call/start', `{"start":{"project_id":"e/p","id":"c1","op_name":"op","trace_id":"t","started_at":"2024-01-01T00:00:00Z","attributes":{${HOSTILE}},"inputs":{${HOSTILE}}}}`);
  send(e, '/call/end', `{"end":{"project_id":"e/p","id":"c1","ended_at":"2024-01-01T00:00:01Z","output":{${HOSTILE}},"summary":{${HOSTILE},"usage":{"__proto__":{"requests":1,"prompt_tokens":5}},"weave":{"__proto__":{"x":1}}}}}`);
  const costs = send(e, '/cost/create', '{"project_id":"e/p","costs":{"__proto__":{"prompt_token_cost":1,"completion_token_cost":2,"effective_date":"2023-01-01T00:00:00Z"}}}') as { ids: Array<[string, string]> };
  assert.deepEqual(costs.ids.map(([, llm]) => llm), ['__proto__']);
  send(e, '/feedback/create', `{"project_id":"e/p","weave_ref":"weave:///e/p/call/c1","feedback_type":"x","payload":{${HOSTILE}}}`);
  const table = send(e, '/table/create', `{"table":{"project_id":"e/p","rows":[{${HOSTILE}}]}}`) as { digest: string };
  assert.deepEqual((send(e, '/table/query', `{"project_id":"e/p","digest":"${table.digest}"}`) as { rows: Array<{ val: unknown }> }).rows[0].val, hostile());
  const obj = send(e, '/obj/create', `{"obj":{"project_id":"e/p","object_id":"o","val":{${HOSTILE}}}}`) as { digest: string };
  assert.deepEqual((send(e, '/obj/read', `{"project_id":"e/p","object_id":"o","digest":"${obj.digest}"}`) as { obj: { val: unknown } }).obj.val, hostile());

  for (const expand of [[], ['inputs']]) {
    const [call] = send(e, '/calls/stream_query', `{"project_id":"e/p","include_costs":true,"include_feedback":true,"expand_columns":${JSON.stringify(expand)}}`) as Array<Record<string, Record<string, unknown>>>;
    assert.deepEqual(call.inputs, hostile());
    assert.deepEqual(call.attributes, hostile());
    assert.deepEqual(call.output, hostile());
    const summary = call.summary as Record<string, unknown> & { usage: object; weave: Record<string, unknown> };
    assert.deepEqual(Object.keys(summary), ['usage', '__proto__', 'constructor', 'toString', 'weave']);
    assert.deepEqual(summary.usage, JSON.parse('{"__proto__":{"requests":1,"prompt_tokens":5}}'));
    assert.ok(Object.prototype.hasOwnProperty.call(summary.weave, '__proto__'));
    assert.deepEqual(Object.keys(summary.weave.costs as object), ['__proto__']);
    assert.deepEqual((summary.weave.feedback as Array<{ payload: unknown }>)[0].payload, hostile());
  }
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
});

test('a fixture price row for a model named __proto__ is stored', () => {
  const e = createEngine();
  const out = loadCostRecord(e, '{"project_id":"e/p","costs":{"__proto__":{"prompt_token_cost":1,"completion_token_cost":2}}}');
  assert.deepEqual(out.ids.map(([, llm]) => llm), ['__proto__']);
  assert.deepEqual(e.store.prices.map((p) => p.llm_id), ['__proto__']);
});
