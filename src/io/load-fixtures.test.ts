import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { FixtureError } from '../core/errors.ts';
import { createEngine } from '../engine.ts';
import { BUNDLED_FIXTURES, loadFixtures, resolveFixturesPath } from './load-fixtures.ts';
import { forEachLine } from './lines.ts';
import { runRoute } from '../api/run-route.ts';
import { callsStreamQueryRoute } from '../query/calls/route.ts';
import { tempDir } from './temp-dir.testing.ts';

const call = (id: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ id, project_id: 'e/p', op_name: 'op', trace_id: 't', started_at: '2024-01-01T00:00:00Z', ...extra });

function dir(files: Record<string, string | Buffer>): string {
  const d = tempDir('tq-fixtures-');
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
  const cwd = tempDir('tq-cwd-');
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

test('issue 11: a truncated or corrupt .jsonl.gz names the file and the lines read, not zlib', async () => {
  const lines = Array.from({ length: 2000 }, (_, i) => call(`c${i}`)).join('\n') + '\n';
  const gz = gzipSync(lines);
  const truncated = dir({ 'calls.jsonl.gz': gz.subarray(0, Math.floor(gz.length * 0.6)) });
  const t = await loadError(truncated);
  assert.equal(t.line, 0);
  assert.match(t.message, new RegExp(`^${join(truncated, 'calls.jsonl.gz').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: gzip data is truncated/corrupt \\(after \\d+ lines\\)$`));
  const corrupt = Buffer.from(gz);
  for (let i = 200; i < 260; i++) corrupt[i] ^= 0x5a;
  assert.match((await loadError(dir({ 'calls.jsonl.gz': corrupt }))).message, /calls\.jsonl\.gz: gzip data is truncated\/corrupt \(after \d+ lines\)$/);
  const notGzip = dir({ 'calls.jsonl.gz': call('a') + '\n' });
  assert.equal((await loadError(notGzip)).message, `${join(notGzip, 'calls.jsonl.gz')}: gzip data is truncated/corrupt (after 0 lines)`);
});

test('issue 11: invalid UTF-8 is file:line with the byte offset in the line, never U+FFFD', async () => {
  const bad = Buffer.concat([Buffer.from(call('a') + '\n'), Buffer.from(call('b', { inputs: { q: 'caf' } }).replace('caf', 'caf\u0000')), Buffer.from('\n')]);
  const at = bad.indexOf(0, 0);
  bad[at] = 0xe9; // Latin-1 é: not UTF-8
  const d = dir({ 'calls.jsonl': bad });
  const e = await loadError(d);
  assert.equal(e.message, `${join(d, 'calls.jsonl')}:2: invalid UTF-8 at byte offset ${at - (call('a').length + 1)}`);
  const objects = dir({ 'objects.jsonl': Buffer.concat([Buffer.from('{"project_id":"e/p","object_id":"o","val":"'), Buffer.from([0xff]), Buffer.from('"}\n')]) });
  assert.match((await loadError(objects)).message, /objects\.jsonl:1: invalid UTF-8 at byte offset 43$/);
});

test('issue 11: a BOM at the start of a file is skipped; an empty file loads with a notice', async () => {
  const bom = Buffer.from([0xef, 0xbb, 0xbf]);
  const d = dir({
    'calls.jsonl': Buffer.concat([bom, Buffer.from(call('a') + '\n' + call('b') + '\n')]),
    'tables.jsonl': Buffer.concat([bom, Buffer.from(JSON.stringify({ project_id: 'e/p', rows: [{ x: 1 }] }) + '\n')]),
    'feedback.jsonl': '',
    'costs.jsonl.gz': gzipSync(Buffer.from('\n  \n')),
  });
  const engine = createEngine();
  const report = await loadFixtures(engine, d);
  assert.deepEqual(report.files.map((f) => [f.kind, f.records]), [['calls', 2], ['tables', 1], ['feedback', 0], ['costs', 0]]);
  assert.deepEqual(report.notices, [`${join(d, 'feedback.jsonl')}: empty`, `${join(d, 'costs.jsonl.gz')}: empty`]);
  // The stored call text starts at the record, not at the BOM.
  const calls = engine.store.project('e/p')!.calls;
  assert.equal(JSON.parse(calls.bodyText(calls.rowOf('a')!)).inputs, undefined);
  assert.equal(calls.id(calls.rowOf('a')!), 'a');
  // A BOM anywhere else is not skipped: it is not JSON.
  const later = dir({ 'calls.jsonl': Buffer.concat([Buffer.from(call('a') + '\n'), bom, Buffer.from(call('b') + '\n')]) });
  assert.match((await loadError(later)).message, /calls\.jsonl:2: invalid JSON/);
});

test('issue 11: a fixture line nested deeper than a request body may be is rejected with file:line', async () => {
  const deep = (n: number) => '['.repeat(n) + ']'.repeat(n);
  const d = dir({ 'calls.jsonl': call('a', { inputs: { x: JSON.parse(deep(998)) } }) + '\n' + call('b').replace('"started_at"', `"inputs":{"x":${deep(1000)}},"started_at"`) + '\n' });
  const e = await loadError(d);
  assert.equal(e.line, 2);
  assert.match(e.message, /calls\.jsonl:2: nested more than 1000 levels deep \(at character \d+\)$/);
  for (const [file, line] of [
    ['objects.jsonl', `{"project_id":"e/p","object_id":"o","val":${deep(100_000)}}`],
    ['tables.jsonl', `{"project_id":"e/p","rows":[{"a":${deep(5000)}}]}`],
    ['feedback.jsonl', `{"project_id":"e/p","weave_ref":"weave:///e/p/call/a","feedback_type":"x","payload":{"a":${deep(1_000_000)}},"svc_user_id":"u"}`],
  ]) {
    assert.match((await loadError(dir({ [file]: line + '\n' }))).message, new RegExp(`${file.replace('.', '\\.')}:1: nested more than 1000 levels deep`));
  }
  // Exactly at the bound, a stored call loads and renders.
  const ok = dir({ 'calls.jsonl': call('a', { inputs: { x: JSON.parse(deep(998)) } }) + '\n' });
  const engine = createEngine();
  await loadFixtures(engine, ok);
  for (const extra of [{}, { expand_columns: ['inputs.x'] }, { sort_by: [{ field: 'inputs.x', direction: 'asc' }] }]) {
    const result = runRoute(callsStreamQueryRoute, engine, { kind: 'value', value: { project_id: 'e/p', ...extra } }, { userId: 'u', authorize() {}, canRead: () => true });
    assert.ok(result.kind === 'stream');
    const [line] = [...result.lines];
    assert.ok(line.includes(`"inputs":{"x":${deep(998)}}`));
  }
});

test('a U+FFFD written as such is valid UTF-8 and loads', async () => {
  const d = dir({ 'calls.jsonl': call('a', { inputs: { q: 'bad \uFFFD char' } }) + '\n' });
  const engine = createEngine();
  await loadFixtures(engine, d);
  const calls = engine.store.project('e/p')!.calls;
  assert.equal(JSON.parse(calls.bodyText(0)).inputs.q, 'bad \uFFFD char');
});

test('progress is counted in bytes inside a long line: a one-line table reports the stored share of the line as its rows are digested, then once at its end', async () => {
  const rowCount = 20_000;
  const rows = Array.from({ length: rowCount }, (_, i) => `{"i":${i},"text":"${'x'.repeat(150)}"}`).join(',');
  const path = dir({ 'tables.jsonl': `{"project_id":"a/b","rows":[${rows}]}\n` });
  const total = statSync(join(path, 'tables.jsonl')).size;
  const reports: Array<{ bytesRead: number; records: number }> = [];
  await loadFixtures(createEngine(), path, (p) => reports.push({ bytesRead: p.bytesRead, records: p.records }), { progressStepBytes: 1 << 20 });
  // Told every 4096 rows, each row's digest and stored text made in one pass (deriveRows).
  const shares = [4095, 8191, 12287, 16383].map((i) => i / rowCount);
  assert.ok(total > 3_000_000);
  assert.deepEqual(reports, [...shares.map((share) => ({ bytesRead: Math.floor(share * total), records: 0 })), { bytesRead: total, records: 1 }]);
});

test('issue 22: ref strings with a bad % escape load as strings in every kind; a bad object name is file:line, never an internal error', async () => {
  const bad = 'weave:///e/p/object/o%:v';
  const d = dir({
    'calls.jsonl': call('a', { op_name: 'weave:///e/p/op/f%zz:v', inputs: { x: bad }, output: 'weave:///%E0%A4%A' }) + '\n',
    'feedback.jsonl': JSON.stringify({ id: 'f1', project_id: 'e/p', weave_ref: 'weave:///e/p/call/%zz', feedback_type: 'note', payload: { note: 'n' }, created_at: '2024-01-01T00:00:00Z', svc_user_id: 'VXNlcjox' }) + '\n',
    'objects.jsonl': JSON.stringify({ project_id: 'e/p', object_id: 'o', val: { r: bad } }) + '\n',
    'tables.jsonl': JSON.stringify({ project_id: 'e/p', rows: [{ r: bad }] }) + '\n',
  });
  const engine = createEngine();
  const report = await loadFixtures(engine, d);
  assert.deepEqual(report.files.map((f) => [f.kind, f.records]), [['calls', 1], ['tables', 1], ['objects', 1], ['feedback', 1]]);
  const ctx = { userId: 'u', authorize() {}, canRead: () => true };
  const result = runRoute(callsStreamQueryRoute, engine, { kind: 'text', text: JSON.stringify({ project_id: 'e/p' }) }, ctx);
  assert.equal(result.kind, 'stream');
  const rows = [...(result as { chunks: Iterable<Uint8Array> }).chunks].map((c) => Buffer.from(c).toString()).join('').trim().split('\n').map((l) => JSON.parse(l));
  assert.deepEqual(rows.map((r) => [r.op_name, r.inputs, r.output]), [['weave:///e/p/op/f%zz:v', { x: bad }, 'weave:///%E0%A4%A']]);

  const badName = dir({ 'calls.jsonl': call('a') + '\n', 'objects.jsonl': '\n' + JSON.stringify({ project_id: 'e/p', object_id: 'o%zz', val: {} }) + '\n' });
  const e = await loadError(badName);
  assert.equal(e.message, `${join(badName, 'objects.jsonl')}:2: Invalid object name: o%zz. Contains invalid characters: ['%']. Please upgrade your \`weave\` package to \`>0.51.0\` to prevent this error.`);
});
