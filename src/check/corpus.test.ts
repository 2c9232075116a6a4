import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BUNDLED_CASES_FILE, loadCases } from './corpus.ts';

test('loadCases reads the bundled corpus: spec-tests/cases.json', () => {
  const bundled = JSON.parse(readFileSync(new URL('../../spec-tests/cases.json', import.meta.url), 'utf8')) as { cases: unknown[] };
  const cases = loadCases();
  assert.equal(BUNDLED_CASES_FILE, fileURLToPath(new URL('../../spec-tests/cases.json', import.meta.url)));
  assert.deepEqual(cases, bundled.cases);
  assert.ok(cases.length > 100);
});

test('a corpus file without a cases list is refused, naming the file', () => {
  const file = join(mkdtempSync(join(tmpdir(), 'tq-corpus-')), 'cases.json');
  writeFileSync(file, '{"version":1}');
  assert.throws(() => loadCases(file), { message: `${file} holds no "cases" list` });
});
