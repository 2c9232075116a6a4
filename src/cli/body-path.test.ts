/**
 * One body path: the front ends (CLI, HTTP server, conformance runner) hand routes the request
 * text, never an already-parsed value (which would have lost `5.0` vs `5` and big integers).
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const SRC = fileURLToPath(new URL('..', import.meta.url));

test('no front end builds a value RequestBody', () => {
  const offenders: string[] = [];
  for (const dir of ['cli', 'server', 'check']) {
    for (const file of readdirSync(join(SRC, dir))) {
      if (!file.endsWith('.ts') || file.endsWith('.test.ts')) continue;
      if (/kind:\s*'value'/.test(readFileSync(join(SRC, dir, file), 'utf8'))) offenders.push(`${dir}/${file}`);
    }
  }
  assert.deepEqual(offenders, []);
});
