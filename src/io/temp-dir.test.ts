/**
 * tempDir's folders are gone once the test process ends, whether it ends well or not, so a test
 * run leaves nothing in the temp directory (issue 24 §6: about 97 folders were left per run).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';

const HELPER = new URL('./temp-dir.testing.ts', import.meta.url).href;

/** Runs `body` in a fresh Node process that has imported tempDir; returns what it printed. */
function child(body: string): { status: number | null; dirs: string[] } {
  const script = `import { tempDir } from ${JSON.stringify(HELPER)};\n${body}`;
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8' });
  return { status: r.status, dirs: r.stdout.trim().split('\n').filter(Boolean) };
}

test('tempDir makes fresh folders under the temp directory and removes them, with their files, at exit', () => {
  const r = child(`import { writeFileSync, mkdirSync } from 'node:fs';
const a = tempDir('tq-a-'), b = tempDir();
writeFileSync(a + '/f.txt', 'x'); mkdirSync(b + '/sub'); writeFileSync(b + '/sub/g.txt', 'y');
console.log(a); console.log(b);`);
  assert.equal(r.status, 0);
  assert.equal(r.dirs.length, 2);
  assert.notEqual(r.dirs[0], r.dirs[1]);
  assert.ok(r.dirs[0].startsWith(`${tmpdir()}/tq-a-`), r.dirs[0]);
  assert.ok(r.dirs[1].startsWith(`${tmpdir()}/tq-test-`), r.dirs[1]);
  for (const dir of r.dirs) assert.equal(existsSync(dir), false, `${dir} is left behind`);
});

test('tempDir folders are removed when the process fails or exits early too', () => {
  const thrown = child(`console.log(tempDir('tq-throw-')); throw new Error('boom');`);
  assert.equal(thrown.status, 1);
  const exited = child(`console.log(tempDir('tq-exit-')); process.exit(3);`);
  assert.equal(exited.status, 3);
  for (const dir of [...thrown.dirs, ...exited.dirs]) assert.equal(existsSync(dir), false, `${dir} is left behind`);
  assert.equal(thrown.dirs.length + exited.dirs.length, 2);
});
