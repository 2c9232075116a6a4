/**
 * The engine core imports no I/O: no fs, http, process or chalk. The CLI, the HTTP server and
 * src/io are the front ends that may (docs/architecture.md, "Module ownership").
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const SRC = fileURLToPath(new URL('.', import.meta.url));
const CORE = ['core', 'store', 'load', 'write', 'query', 'otel', 'api', 'gen', 'engine.ts', 'routes.ts', 'run-path.ts'];
const FORBIDDEN = /from ['"](node:)?(fs|fs\/promises|http|https|net|child_process|process)['"]|from ['"]chalk['"]|\bprocess\.|\brequire\(/;

function sources(path: string): string[] {
  if (statSync(path).isFile()) return path.endsWith('.ts') && !path.endsWith('.test.ts') ? [path] : [];
  return readdirSync(path).flatMap((name) => sources(join(path, name)));
}

test('the engine core imports no fs, http, process or chalk', () => {
  const offenders: string[] = [];
  for (const part of CORE) {
    for (const file of sources(join(SRC, part))) {
      readFileSync(file, 'utf8')
        .split('\n')
        .forEach((line, i) => {
          if (FORBIDDEN.test(line) && !line.trimStart().startsWith('*') && !line.trimStart().startsWith('//')) offenders.push(`${file.slice(SRC.length)}:${i + 1}: ${line.trim()}`);
        });
    }
  }
  assert.deepEqual(offenders, []);
});
