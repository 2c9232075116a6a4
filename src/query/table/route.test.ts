import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createEngine } from '../../engine.ts';
import { writeRoutes } from '../../write/routes.ts';
import { tableRoutes } from './route.ts';

const ctx = { userId: 'u', authorize() {} };
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
