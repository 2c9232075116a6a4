/**
 * The change-map guard of a route (docs/change-map.md): every route in the table is built by
 * defineRoute (api/define-route.test.ts) and documented: its path, in backticks, is in
 * README.md or a docs/ file (a moved README section keeps its text in docs/).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { allRoutes } from './routes.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Whether `text` names `path` in backticks (`/a/b`, `GET /a/b`, `GET /a/b?x=1`). */
function documents(text: string, path: string): boolean {
  const quoted = path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`\`(?:(?:GET|POST) )?${quoted}[\`?]`).test(text);
}

test('every route tq serves is documented in README.md or docs/', () => {
  const docs = join(ROOT, 'docs');
  const text = [join(ROOT, 'README.md'), ...readdirSync(docs).filter((f) => f.endsWith('.md')).map((f) => join(docs, f))].map((f) => readFileSync(f, 'utf8')).join('\n');
  assert.deepEqual(allRoutes().filter((r) => !documents(text, r.path)).map((r) => r.path), []);
});

test('documents: a path in backticks, with a method or a query string; not a longer path', () => {
  assert.ok(documents('see `/call/start`', '/call/start'));
  assert.ok(documents('`GET /test/getCalls?project_id=e/p`', '/test/getCalls'));
  assert.ok(documents('`/v2/{entity}/{project}/call/end`', '/v2/{entity}/{project}/call/end'));
  assert.ok(!documents('`/call/start_batch`', '/call/start'));
  assert.ok(!documents('/call/start', '/call/start'));
});
