import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createEngine } from '../../engine.ts';
import { writeRoutes } from '../../write/routes.ts';
import { tableRoutes } from './route.ts';

const ctx = { userId: 'u', authorize() {}, canRead: () => true };
const route = (routes: typeof tableRoutes, path: string) => routes.find((r) => r.path === path)!;

test('/table/query answers with the stored row text, so 1.0 stays a float', () => {
  const engine = createEngine();
  const created = route(writeRoutes, '/table/create').run(engine, { kind: 'text', text: '{"table":{"project_id":"e/p","rows":[{"a":1.0},{"a":1}]}}' }, ctx);
  assert.equal(created.kind, 'json');
  const digest = (created as { body: { digest: string } }).body.digest;
  const result = route(tableRoutes, '/table/query').run(engine, { kind: 'value', value: { project_id: 'e/p', digest } }, ctx);
  assert.equal(result.kind, 'json');
  const { text, body } = result as { text: string; body: { rows: Array<{ val: unknown }> } };
  assert.match(text, /^\{"rows":\[\{"digest":"[^"]+","val":\{"a":1\.0\},"original_index":0\},\{"digest":"[^"]+","val":\{"a":1\},"original_index":1\}\]\}$/);
  assert.deepEqual(JSON.parse(text), body, 'the text and the value agree');
});

test('repeated and interleaved sorts of one table (cached readings) give the same answers', () => {
  const engine = createEngine();
  const rows = [{ a: 3, b: 'x' }, { a: 1, b: 'z' }, { a: 2, b: 'y' }, { a: 1, b: 'w' }];
  const created = route(writeRoutes, '/table/create').run(engine, { kind: 'value', value: { table: { project_id: 'e/p', rows } } }, ctx);
  const digest = (created as { body: { digest: string } }).body.digest;
  const order = (field: string, dir: string) => {
    const r = route(tableRoutes, '/table/query_stream').run(engine, { kind: 'value', value: { project_id: 'e/p', digest, sort_by: [{ field, order: dir }] } }, ctx);
    return [...(r as { lines: Iterable<string> }).lines].map((l) => (JSON.parse(l) as { original_index: number }).original_index);
  };
  for (let round = 0; round < 2; round++) {
    assert.deepEqual(order('a', 'asc'), [1, 3, 2, 0]);
    assert.deepEqual(order('b', 'desc'), [1, 2, 0, 3]);
    assert.deepEqual(order('a', 'desc'), [0, 2, 1, 3]);
  }
});
