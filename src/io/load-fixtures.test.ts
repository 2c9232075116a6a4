import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { FixtureError } from '../core/errors.ts';
import { createEngine } from '../engine.ts';
import { BUNDLED_FIXTURES, loadFixtures, resolveFixturesPath } from './load-fixtures.ts';
import { forEachLine } from './lines.ts';

const call = (id: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ id, project_id: 'e/p', op_name: 'op', trace_id: 't', started_at: '2024-01-01T00:00:00Z', ...extra });

function dir(files: Record<string, string | Buffer>): string {
  const d = mkdtempSync(join(tmpdir(), 'tq-fixtures-'));
  for (const [name, content] of Object.entries(files)) writeFileSync(join(d, name), content);
  return d;
}

async function loadError(path: string): Promise<FixtureError> {
  try {
    await loadFixtures(createEngine(), path);
  } catch (e) {
    assert.ok(e instanceof FixtureError, `expected a FixtureError, got ${String(e)}`);
    return e;
  }
  assert.fail('expected the load to fail');
}

test('a directory loads every kind of file, counted per file', async () => {
  const d = dir({
    'calls.jsonl': call('a') + '\n' + call('b') + '\n',
    'tables.jsonl': JSON.stringify({ project_id: 'e/p', rows: [{ x: 1 }] }) + '\n',
    'objects.jsonl': JSON.stringify({ project_id: 'e/p', object_id: 'o', val: { k: 1 } }) + '\n',
  });
  const engine = createEngine();
  const report = await loadFixtures(engine, d);
  assert.deepEqual(report.files.map((f) => [f.kind, f.records]), [['calls', 2], ['tables', 1], ['objects', 1]]);
  assert.equal(engine.store.counts().calls, 2);
});

test('a malformed calls line names file:line and the problem', async () => {
  const d = dir({ 'calls.jsonl': call('a') + '\n{"id": \n' });
  const e = await loadError(d);
  assert.equal(e.file, join(d, 'calls.jsonl'));
  assert.equal(e.line, 2);
  assert.match(e.message, /calls\.jsonl:2: invalid JSON/);
});

test('a call without project_id names the field', async () => {
  const d = dir({ 'calls.jsonl': '\n' + JSON.stringify({ id: 'a', op_name: 'op', trace_id: 't', started_at: '2024-01-01T00:00:00Z' }) + '\n' });
  const e = await loadError(d);
  assert.equal(e.line, 2, 'blank lines still count');
  assert.match(e.message, /:2: missing project_id$/);
});

test('a table whose given digest does not match is a load error naming both digests', async () => {
  const d = dir({ 'tables.jsonl': JSON.stringify({ project_id: 'e/p', rows: [{ x: 1 }], digest: 'abc' }) + '\n' });
  const e = await loadError(d);
  assert.equal(e.line, 1);
  assert.match(e.message, /tables\.jsonl:1: .*abc/);
});

test('a duplicate call id is an error, not a silent overwrite', async () => {
  const d = dir({ 'calls.jsonl': call('a') + '\n' + call('a') + '\n' });
  assert.match((await loadError(d)).message, /:2: duplicate call id a$/);
});

test('.jsonl.gz is read, a single .jsonl file means calls only, and both spellings at once is an error', async () => {
  const gz = dir({ 'calls.jsonl.gz': gzipSync(call('a') + '\n' + call('b')) });
  const engine = createEngine();
  await loadFixtures(engine, gz);
  assert.equal(engine.store.counts().calls, 2);
  const single = dir({ 'mine.jsonl': call('z') + '\n' });
  const one = createEngine();
  const report = await loadFixtures(one, join(single, 'mine.jsonl'));
  assert.deepEqual(report.files.map((f) => f.kind), ['calls']);
  const both = dir({ 'calls.jsonl': call('a'), 'calls.jsonl.gz': gzipSync(call('a')) });
  assert.match((await loadError(both)).message, /both calls\.jsonl and calls\.jsonl\.gz exist/);
  assert.match((await loadError(join(single, 'nope'))).message, /no such file or directory/);
  assert.match((await loadError(dir({ 'other.txt': 'x' }))).message, /no fixture files/);
});

test('fixture location precedence: --fixtures, then TQ_FIXTURES, then ./fixtures, then the bundled demo', () => {
  const cwd = mkdtempSync(join(tmpdir(), 'tq-cwd-'));
  assert.equal(resolveFixturesPath(undefined, {}, cwd), BUNDLED_FIXTURES);
  mkdirSync(join(cwd, 'fixtures'));
  assert.equal(resolveFixturesPath(undefined, {}, cwd), join(cwd, 'fixtures'));
  assert.equal(resolveFixturesPath(undefined, { TQ_FIXTURES: '/env/dir' }, cwd), '/env/dir');
  assert.equal(resolveFixturesPath('rel', { TQ_FIXTURES: '/env/dir' }, cwd), join(cwd, 'rel'));
});

test('lines are read across chunk boundaries with CRLF endings and reported with progress', async () => {
  const long = 'x'.repeat(3 << 20); // longer than one 1 MiB read
  const d = dir({ 'f.jsonl': `"${long}"\r\n\r\n"b"\n"c"` });
  const seen: Array<[number, number]> = [];
  let lastProgress = 0;
  await forEachLine(join(d, 'f.jsonl'), ({ start, end, line }) => seen.push([line, end - start]), (p) => (lastProgress = p.bytesRead));
  assert.deepEqual(seen, [[1, long.length + 2], [3, 3], [4, 3]]);
  assert.equal(lastProgress, long.length + 2 + 2 + 2 + 4 + 3);
});
