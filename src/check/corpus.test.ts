import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BUNDLED_CASES_FILE, loadCases } from './corpus.ts';
import { tempDir } from '../io/temp-dir.testing.ts';

test('loadCases reads the bundled corpus: spec-tests/cases.json', () => {
  const bundled = JSON.parse(readFileSync(new URL('../../spec-tests/cases.json', import.meta.url), 'utf8')) as { cases: unknown[] };
  const cases = loadCases();
  assert.equal(BUNDLED_CASES_FILE, fileURLToPath(new URL('../../spec-tests/cases.json', import.meta.url)));
  assert.deepEqual(cases, bundled.cases);
  assert.ok(cases.length > 100);
});

test('a corpus file without a cases list is refused, naming the file', () => {
  const file = join(tempDir('tq-corpus-'), 'cases.json');
  writeFileSync(file, '{"version":1}');
  assert.throws(() => loadCases(file), { message: `${file} holds no "cases" list` });
});

test('loadSuite gives the suite identity with the cases; a bundle without one reads as unversioned', async () => {
  const { loadSuite } = await import('./corpus.ts');
  const suite = loadSuite();
  assert.match(suite.version, /^\d+\.\d+\.\d+$/);
  assert.match(suite.weave_source, /^wandb\/weave@[0-9a-f]{40}$/);
  assert.ok(suite.smoke.every((name) => suite.cases.some((c) => c.name === name)));
  const file = join(tempDir('tq-corpus-'), 'cases.json');
  writeFileSync(file, '{"version":1,"cases":[]}');
  assert.deepEqual(loadSuite(file), { version: 'unversioned', weave_source: 'unknown', smoke: [], cases: [] });
});
