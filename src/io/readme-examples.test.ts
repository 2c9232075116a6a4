/**
 * docs/fixtures.md's one-line example of each fixture file loads: the documentation cannot
 * drift from the loader.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createEngine } from '../engine.ts';
import { loadFixtures } from './load-fixtures.ts';
import { tempDir } from './temp-dir.testing.ts';

test('every fixture example in docs/fixtures.md loads', async () => {
  const section = readFileSync(new URL('../../docs/fixtures.md', import.meta.url), 'utf8');
  const dir = tempDir('tq-readme-');
  const kinds: string[] = [];
  for (const m of section.matchAll(/^`(\w+)\.jsonl` —/gm)) {
    const start = section.indexOf('```json\n', m.index) + 8;
    writeFileSync(join(dir, `${m[1]}.jsonl`), section.slice(start, section.indexOf('\n```', start)) + '\n');
    kinds.push(m[1]);
  }
  assert.deepEqual(kinds, ['calls', 'tables', 'objects', 'feedback', 'costs']);
  const engine = createEngine();
  const report = await loadFixtures(engine, dir);
  assert.deepEqual(report.files.map((f) => [f.kind, f.records]), kinds.map((k) => [k, 1]));
});
