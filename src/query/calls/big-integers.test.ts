/**
 * semantics.md#calls-json-read: a stored number reads as the text Python stored, so an integer
 * beyond 2^53 keeps every digit on every path: written, ended (the body is rewritten), re-started,
 * read back in a line (inputs, output, summary, feedback, expanded refs), and in /obj/read. The
 * conformance cases cannot see this (their runner parses lines with JSON.parse), so the raw text is
 * checked here.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { findRoute } from '../../routes.ts';
import type { Engine, RequestContext, RouteResult } from '../../api/types.ts';
import { createEngine } from '../../engine.ts';

const ctx: RequestContext = { userId: 'u', authorize() {}, canRead: () => true };
const BIG = '12345678901234567890';
const NEG = '-98765432109876543210';

function send(engine: Engine, path: string, text: string): RouteResult {
  return findRoute(path)!.run(engine, { kind: 'text', text }, ctx);
}
const textOf = (r: RouteResult) => (r.kind === 'json' ? (r.text ?? JSON.stringify(r.body)) : r.kind === 'stream' ? [...r.lines].join('\n') : new TextDecoder().decode(r.bytes));

test('big integers keep every digit through writes, the end rewrite, feedback, expansion and /obj/read', () => {
  const engine = createEngine();
  const obj = textOf(send(engine, '/obj/create', `{"obj":{"project_id":"e/p","object_id":"model","val":{"seed":${BIG},"name":"m"}}}`));
  const digest = (JSON.parse(obj) as { digest: string }).digest;
  const ref = `weave:///e/p/object/model:${digest}`;
  send(engine, '/call/start', `{"start":{"project_id":"e/p","id":"c1","op_name":"op","trace_id":"t1","started_at":"2024-05-01T12:00:00Z","attributes":{"a":${NEG}},"inputs":{"big":${BIG},"model":"${ref}"}}}`);
  send(engine, '/call/end', `{"end":{"project_id":"e/p","id":"c1","ended_at":"2024-05-01T12:00:01Z","output":{"o":${BIG}},"summary":{"custom":${NEG}}}}`);
  send(engine, '/feedback/create', `{"project_id":"e/p","weave_ref":"weave:///e/p/call/c1","feedback_type":"note","payload":{"n":${BIG}}}`);

  const line = textOf(send(engine, '/calls/stream_query', '{"project_id":"e/p","include_feedback":true}'));
  assert.ok(line.includes(`"inputs":{"big":${BIG},`), line);
  assert.ok(line.includes(`"attributes":{"a":${NEG}}`), line);
  assert.ok(line.includes(`"output":{"o":${BIG}}`), line);
  assert.ok(line.includes(`"custom":${NEG}`), 'the parsed and recomputed summary');
  assert.ok(line.includes(`"payload":{"n":${BIG}}`), 'feedback payloads');

  const expanded = textOf(send(engine, '/calls/stream_query', '{"project_id":"e/p","expand_columns":["inputs.model"]}'));
  assert.ok(expanded.includes(`"model":{"name":"m","seed":${BIG},"_ref":"${ref}"}`), expanded);
  const through = textOf(send(engine, '/calls/stream_query', `{"project_id":"e/p","expand_columns":["inputs.model"],"query":{"$expr":{"$eq":[{"$getField":"inputs.model.seed"},{"$literal":"${BIG}"}]}}}`));
  assert.ok(through.startsWith('{"id":"c1"'), 'a filter through the expanded ref reads the exact digits');

  const read = textOf(send(engine, '/obj/read', `{"project_id":"e/p","object_id":"model","digest":"${digest}"}`));
  assert.ok(read.includes(`"seed":${BIG}`), read);

  // A repeated start rewrites the body again; the end part must survive with its digits.
  send(engine, '/call/start', `{"start":{"project_id":"e/p","id":"c1","op_name":"op","trace_id":"t1","started_at":"2024-05-01T12:00:00Z","attributes":{},"inputs":{"big":${NEG}}}}`);
  const again = textOf(send(engine, '/calls/stream_query', '{"project_id":"e/p"}'));
  assert.ok(again.includes(`"inputs":{"big":${NEG}}`) && again.includes(`"output":{"o":${BIG}}`), again);
});

test('table rows with big integers sort by their exact text when equal as doubles', () => {
  const engine = createEngine();
  const created = textOf(send(engine, '/table/create', `{"table":{"project_id":"e/p","rows":[{"v":12345678901234567891},{"v":${BIG}},{"v":5}]}}`));
  const digest = (JSON.parse(created) as { digest: string }).digest;
  const lines = textOf(send(engine, '/table/query_stream', `{"project_id":"e/p","digest":"${digest}","sort_by":[{"field":"v","order":"asc"}]}`)).split('\n');
  assert.deepEqual(lines.map((l) => /"val":(\{[^}]*\})/.exec(l)![1]), ['{"v":5}', `{"v":${BIG}}`, '{"v":12345678901234567891}']);
});
