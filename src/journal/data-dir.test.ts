import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { findRoute } from '../routes.ts';
import { createEngine } from '../engine.ts';
import { testContext } from '../write/writes.testing.ts';
import { runRecorded } from './apply.ts';
import { commitCompaction, dumpTo, prepareCompaction } from './compact.ts';
import { COMPACT_READY, COMPACT_TMP, openDataDir, segmentName, type OpenOptions } from './data-dir.ts';
import { answers } from './journal.testing.ts';
import { acquireLock, LockHeldError, LOCK_FILE } from './lock.ts';
import { JournalError } from './read.ts';
import { encodeRecord } from './record.ts';
import { tempDir } from '../io/temp-dir.testing.ts';
import { columnValues } from '../store/call-table.testing.ts';

const freshDir = () => tempDir('tq-data-');

/** Journal lines of `n` call starts (c0..c{n-1}) in acme/one, and the engine they built. */
function startLines(n: number, from = 0) {
  const engine = createEngine();
  const lines = Array.from({ length: n }, (_, i) => {
    const body = { start: { project_id: 'acme/one', id: `c${from + i}`, op_name: 'op', started_at: '2024-01-01T00:00:00Z', attributes: {}, inputs: { i } } };
    return encodeRecord(runRecorded(findRoute('/call/start')!, engine, { kind: 'text', text: JSON.stringify(body) }, testContext()).record);
  });
  return { lines, engine };
}

function options(writable: boolean) {
  const said: string[] = [];
  const opts: OpenOptions = { fieldPrefix: 'svc_', writable, say: (m) => said.push(m) };
  return { opts, said };
}

async function open(dir: string, writable = true) {
  const { opts, said } = options(writable);
  const opened = await openDataDir(dir, opts);
  opened.release();
  return { ...opened, said };
}

async function openError(dir: string): Promise<Error> {
  try {
    await open(dir);
  } catch (e) {
    return e as Error;
  }
  assert.fail('expected the open to fail');
}

/** Opens DIR expecting the replay to stop at a record: read-only, the records before it loaded. */
async function stopped(dir: string) {
  const opened = await open(dir);
  assert.ok(opened.stoppedAt instanceof JournalError, 'expected the replay to stop');
  assert.equal(opened.readOnly, opened.stoppedAt);
  return { e: opened.stoppedAt, replayed: opened.replayed, said: opened.said, calls: opened.engine.store.counts().calls };
}

describe('opening a data directory', () => {
  it('creates a missing directory; an empty one holds an empty store', async () => {
    const dir = join(freshDir(), 'new');
    const opened = await open(dir);
    assert.equal(opened.replayed, 0);
    assert.deepEqual(opened.active, { file: join(dir, segmentName(1)), seq: 1, length: 0 });
    assert.equal(opened.engine.store.projects.size, 0);
  });

  it('read-only, a missing directory is an error', async () => {
    await assert.rejects(open(join(freshDir(), 'missing'), false), /no such data directory: /);
  });

  it('loads the fixtures, then replays every segment in order', async () => {
    const dir = freshDir();
    writeFileSync(join(dir, 'calls.jsonl'), JSON.stringify({ id: 'fixture', project_id: 'acme/one', op_name: 'op', trace_id: 't', started_at: '2024-01-01T00:00:00Z' }) + '\n');
    writeFileSync(join(dir, segmentName(1)), startLines(2).lines.map((l) => l + '\n').join(''));
    writeFileSync(join(dir, segmentName(2)), startLines(1, 2).lines.map((l) => l + '\n').join(''));
    const opened = await open(dir);
    assert.equal(opened.replayed, 3);
    assert.deepEqual(columnValues(opened.engine.store.project('acme/one')!.calls, 'id'), ['fixture', 'c0', 'c1', 'c2']);
    assert.equal(opened.active.file, join(dir, segmentName(2)));
  });

  it('drops a torn last record, says so at its byte offset, and cuts it off the file', async () => {
    const dir = freshDir();
    const { lines, engine } = startLines(3);
    const whole = lines.slice(0, 2).map((l) => l + '\n').join('');
    const file = join(dir, segmentName(1));
    writeFileSync(file, whole + lines[2].slice(0, 40));

    const reader = await open(dir, false);
    assert.deepEqual(reader.said, [`journal: ignored an incomplete last record at byte ${whole.length} of ${file} (a write in progress, or a crash; tq serve --data cuts it off)`]);
    assert.equal(readFileSync(file, 'utf8').length, whole.length + 40, 'a read-only open changes nothing');

    const opened = await open(dir);
    assert.deepEqual(opened.said, [`journal: dropped a torn last record at byte ${whole.length}`]);
    assert.equal(readFileSync(file, 'utf8'), whole);
    assert.deepEqual(opened.active, { file, seq: 1, length: whole.length });
    assert.deepEqual(columnValues(opened.engine.store.project('acme/one')!.calls, 'id'), ['c0', 'c1']);
    assert.equal(engine.store.project('acme/one')!.calls.size, 3);
  });

  it('a torn record alone (the crash hit the first append) leaves an empty journal', async () => {
    const dir = freshDir();
    const file = join(dir, segmentName(1));
    writeFileSync(file, '{"v":1,"rou');
    const opened = await open(dir);
    assert.deepEqual(opened.said, ['journal: dropped a torn last record at byte 0']);
    assert.equal(readFileSync(file, 'utf8'), '');
  });

  it('stops at a bad record that is not the last, naming file:line: read-only, with the records before it, nothing changed', async () => {
    const dir = freshDir();
    const { lines } = startLines(3);
    const file = join(dir, segmentName(1));
    writeFileSync(file, [lines[0], '{"v":1,"route":"/call/start"', lines[2]].map((l) => l + '\n').join(''));
    const { e, replayed, said, calls } = await stopped(dir);
    assert.deepEqual([replayed, calls], [1, 1]);
    assert.match(said.join('\n'), /Serving the records before it, read-only .* `tq journal quarantine .* journal-000001.jsonl:2`/);
    // The rest is V8's JSON.parse message, which varies between Node versions.
    assert.ok(e.message.startsWith(`${file}:2: invalid JSON: Expected ',' or '}' after property value in JSON at position 28`), e.message);
    assert.equal(readFileSync(file, 'utf8').split('\n').length, 4, 'nothing is cut off');
  });

  it('a complete last line that does not decode is an error too, not a torn record', async () => {
    const dir = freshDir();
    const file = join(dir, segmentName(1));
    writeFileSync(file, startLines(1).lines[0] + '\n' + '{"v":9}\n');
    assert.equal((await stopped(dir)).e.message, `${file}:2: unsupported journal record version 9 (this tq reads version 1)`);
  });

  it('a record that does not replay stops the start at its line', async () => {
    const dir = freshDir();
    const file = join(dir, segmentName(1));
    const { crc: _crc, ...rec } = JSON.parse(startLines(1).lines[0]) as Record<string, unknown>;
    writeFileSync(file, JSON.stringify({ ...rec, ids: [] }) + '\n');
    assert.equal((await stopped(dir)).e.message, `${file}:1: the write drew more ids than the 0 recorded`);
  });

  it('zeroed bytes at the end are damage, not a torn append: the start stops there and keeps them (issue 22 §5)', async () => {
    const dir = freshDir();
    const file = join(dir, segmentName(1));
    const { lines } = startLines(3);
    const text = lines.map((l) => l + '\n').join('');
    // Zero the last 60 bytes (the end of the third record and its newline).
    const bytes = Buffer.from(text);
    bytes.fill(0, bytes.length - 60);
    writeFileSync(file, bytes);
    const { e, replayed } = await stopped(dir);
    assert.equal(e.message, `${file}:3: ${lines[2].length + 1 - 60 + 60} bytes after the last complete record are not the start of a record (a torn append leaves a prefix of what tq wrote; these hold zero bytes): damage, not a crash mid-append`);
    assert.equal(replayed, 2);
    assert.deepEqual(readFileSync(file), bytes, 'the evidence is kept');
  });

  it('a torn append (a prefix of a record) is still cut off, with a notice', async () => {
    const dir = freshDir();
    const file = join(dir, segmentName(1));
    const { lines } = startLines(2);
    writeFileSync(file, lines[0] + '\n' + lines[1].slice(0, 30));
    const opened = await open(dir);
    assert.equal(opened.stoppedAt, undefined);
    assert.deepEqual([opened.replayed, readFileSync(file, 'utf8')], [1, lines[0] + '\n']);
  });

  it('only the newest segment may end in a torn record', async () => {
    const dir = freshDir();
    const { lines } = startLines(2);
    writeFileSync(join(dir, segmentName(1)), lines[0] + '\n' + lines[1].slice(0, 10));
    writeFileSync(join(dir, segmentName(2)), '');
    const e = await openError(dir);
    assert.equal(e.message, `${join(dir, segmentName(1))}:2: incomplete record at byte ${lines[0].length + 1} in a segment that is not the newest (only the newest can be torn by a crash)`);
  });
});

describe('the lock of a data directory', () => {
  it('a second writer is refused while the first one runs, with the pid and the lock file', async () => {
    const dir = freshDir();
    const other = process.ppid;
    writeFileSync(join(dir, LOCK_FILE), `${other}\n`);
    const e = await openError(dir);
    assert.ok(e instanceof LockHeldError);
    assert.equal(e.message, `${dir} is in use by another tq (pid ${other}, lock file ${join(dir, LOCK_FILE)}); stop it first, or delete the lock file if that pid is not a tq`);
    assert.equal(readFileSync(join(dir, LOCK_FILE), 'utf8'), `${other}\n`, 'the holder keeps its lock');
    // Readers take no lock.
    assert.equal((await open(dir, false)).replayed, 0);
  });

  it('a lock left by a process that is gone is taken over, and released on close', () => {
    const dir = freshDir();
    writeFileSync(join(dir, LOCK_FILE), '2147483646\n');
    const release = acquireLock(dir);
    assert.equal(readFileSync(join(dir, LOCK_FILE), 'utf8'), `${process.pid}\n`);
    release();
    assert.equal(existsSync(join(dir, LOCK_FILE)), false);
    assert.deepEqual(readdirSync(dir), [], 'no temp file is left behind');
  });

  it('a garbage lock file counts as stale', () => {
    const dir = freshDir();
    writeFileSync(join(dir, LOCK_FILE), 'garbage');
    acquireLock(dir)();
    assert.equal(existsSync(join(dir, LOCK_FILE)), false);
  });
});

describe('compaction interrupted by a crash', () => {
  /** A directory with fixtures, two journaled segments and their expected answers. */
  async function populated() {
    const dir = freshDir();
    writeFileSync(join(dir, 'calls.jsonl'), JSON.stringify({ id: 'fixture', project_id: 'acme/one', op_name: 'op', trace_id: 't', started_at: '2024-01-01T00:00:00Z' }) + '\n');
    writeFileSync(join(dir, segmentName(1)), startLines(2).lines.map((l) => l + '\n').join(''));
    writeFileSync(join(dir, segmentName(2)), startLines(2, 2).lines.map((l) => l + '\n').join(''));
    const opened = await open(dir);
    return { dir, opened, expected: answers(opened.engine) };
  }

  it('before the rename: the old data stays, the half-written compaction is discarded', async () => {
    const { dir, opened, expected } = await populated();
    await prepareCompaction(opened.engine, dir, 2);
    assert.ok(existsSync(join(dir, COMPACT_TMP)));
    assert.equal(answers((await open(dir, false)).engine), expected);
    const reopened = await open(dir);
    assert.equal(answers(reopened.engine), expected);
    assert.equal(reopened.replayed, 4);
    assert.equal(existsSync(join(dir, COMPACT_TMP)), false);
  });

  it('after the rename: the new data is complete; a reader sees it, the next start moves it into place', async () => {
    const { dir, opened, expected } = await populated();
    await prepareCompaction(opened.engine, dir, 2);
    await commitCompaction(dir);
    // The crash also hit half-way through moving the files.
    renameSync(join(dir, COMPACT_READY, 'calls.jsonl'), join(dir, 'calls.jsonl'));
    const reader = await open(dir, false);
    assert.equal(reader.replayed, 0);
    assert.equal(answers(reader.engine), expected);

    const reopened = await open(dir);
    assert.equal(answers(reopened.engine), expected);
    assert.deepEqual(readdirSync(dir).sort(), ['base.journal.jsonl', 'calls.jsonl', 'costs.jsonl', 'feedback.jsonl', 'objects.jsonl', 'tables.jsonl']);
    assert.equal(readFileSync(join(dir, 'calls.jsonl'), 'utf8').split('\n').length, 6);
  });

  it('--out refuses a directory that holds something, and leaves no temp directory', async () => {
    const { dir, opened } = await populated();
    const out = freshDir();
    writeFileSync(join(out, 'x'), '');
    await assert.rejects(dumpTo(opened.engine, out), { message: `${out} exists and is not empty; choose a new directory` });
    const fresh = join(freshDir(), 'copy');
    await dumpTo(opened.engine, fresh);
    assert.equal(answers((await open(fresh, false)).engine), answers(opened.engine));
    assert.ok(existsSync(dir));
  });
});
