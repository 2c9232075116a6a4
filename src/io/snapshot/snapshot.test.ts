import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { appendFileSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, closeSync, rmSync, statSync, truncateSync, utimesSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEngine } from '../../engine.ts';
import type { Engine, FieldPrefix } from '../../api/types.ts';
import { BUNDLED_FIXTURES, filesOf, fixtureFilesIn, loadFixtureFiles } from '../load-fixtures.ts';
import { generateCalls } from '../../gen/generate.ts';
import { Store } from '../../store/store.ts';
import { answer, assertSameAnswers } from '../../store/snapshot.testing.ts';
import { DEFAULT_MIN_BYTES, evictSnapshots, snapshotSettings, type SnapshotSettings } from './cache.ts';
import { FIXTURE_KINDS } from '../../load/fixture-kinds.ts';
import { PARALLEL_MIN_BYTES } from '../load-calls/parallel.ts';
import { readSnapshotFile } from './file.ts';
import { snapshotFileName, snapshotKey } from './key.ts';
import { loadFixtureFilesWithSnapshot, type SnapshotLoadReport } from './load.ts';
import { runMainCaptured, TQ_BIN } from '../../cli/run-tq.testing.ts';

const scratch = mkdtempSync(join(tmpdir(), 'tq-snapshot-test-'));
process.on('exit', () => rmSync(scratch, { recursive: true, force: true }));
let dirs = 0;

/** A copy of the demo fixtures (calls plus every other kind), old enough not to be "racy". */
function fixturesCopy(): string {
  const dir = join(scratch, `fx-${++dirs}`);
  mkdirSync(dir);
  for (const f of fixtureFilesIn(BUNDLED_FIXTURES)) {
    copyFileSync(f.file, join(dir, f.file.slice(BUNDLED_FIXTURES.length)));
    age(join(dir, f.file.slice(BUNDLED_FIXTURES.length)));
  }
  return dir;
}

/** Moves a file's mtime 10 s into the past, as a file not being written to. */
function age(file: string, seconds = 10): void {
  const t = new Date(Date.now() - seconds * 1000);
  utimesSync(file, t, t);
}

/** Over 20 kB: the demo's calls file has a snapshot; its small tables and objects files have none (kind-image.test.ts covers those). */
function settings(over: Partial<SnapshotSettings> = {}): SnapshotSettings {
  return { enabled: true, dir: join(scratch, `cache-${++dirs}`), minBytes: 20_000, maxCacheBytes: 1 << 30, ...over };
}

function engine(prefix: FieldPrefix = 'svc_'): Engine {
  let id = 0;
  return createEngine(undefined, { fieldPrefix: prefix, now: () => 1.9e15, newId: () => `00000000-0000-7000-8000-${String(++id).padStart(12, '0')}` });
}

async function load(dir: string, s: SnapshotSettings, prefix: FieldPrefix = 'svc_'): Promise<{ engine: Engine; report: SnapshotLoadReport }> {
  const e = engine(prefix);
  return { engine: e, report: await loadFixtureFilesWithSnapshot(e, dir, filesOf(dir), s) };
}

async function plain(dir: string, prefix: FieldPrefix = 'svc_'): Promise<Engine> {
  const e = engine(prefix);
  await loadFixtureFiles(e, dir, filesOf(dir));
  return e;
}

test('the first load writes a snapshot, the next restores it and answers exactly as a plain load', async () => {
  const dir = fixturesCopy();
  const s = settings();
  const first = await load(dir, s);
  assert.equal(first.report.snapshot.status, 'written');
  const second = await load(dir, s);
  assert.equal(second.report.snapshot.status, 'restored', JSON.stringify(second.report.snapshot));
  assert.deepEqual(second.report.files.map((f) => [f.kind, f.records]), first.report.files.map((f) => [f.kind, f.records]));
  assert.deepEqual(second.report.notices, []);
  assert.deepEqual(second.engine.store.counts(), first.engine.store.counts());
  assertSameAnswers(await plain(dir), second.engine);
  assert.deepEqual(readdirSync(s.dir).filter((n) => n.endsWith('.tqsnap')).length, 1);
});

test('issue 24 §2: a calls file of 16 MiB or more beside every other kind: the parallel load stores every kind, and the snapshot restores them all', async () => {
  // The demo hides this: its calls file is small, so neither the worker-thread load nor the
  // snapshot runs. Here both do, at their default thresholds.
  const dir = fixturesCopy();
  appendFileSync(join(dir, 'calls.jsonl'), [...generateCalls({ calls: 15_000, seed: 24, startUs: 1.7e15 })].join('\n') + '\n');
  age(join(dir, 'calls.jsonl'));
  const size = statSync(join(dir, 'calls.jsonl')).size;
  assert.ok(size >= DEFAULT_MIN_BYTES && size >= PARALLEL_MIN_BYTES, `calls file ${size} bytes`);
  const sequential = engine();
  const expected = await loadFixtureFiles(sequential, dir, filesOf(dir), undefined, { parallelMinBytes: Infinity });
  assert.deepEqual(expected.files.map((f) => f.kind), FIXTURE_KINDS);
  assert.ok(expected.files.every((f) => f.records > 0), JSON.stringify(expected.files));
  const s = settings({ minBytes: DEFAULT_MIN_BYTES });
  const first = await load(dir, s);
  assert.equal(first.report.snapshot.status, 'written', JSON.stringify(first.report.snapshot));
  assert.deepEqual(first.report.files, expected.files);
  assert.deepEqual(first.engine.store.counts(), sequential.store.counts());
  const second = await load(dir, s);
  assert.equal(second.report.snapshot.status, 'restored', JSON.stringify(second.report.snapshot));
  assert.deepEqual(second.report.files, expected.files);
  assert.deepEqual(second.report.notices, []);
  assert.deepEqual(second.engine.store.counts(), sequential.store.counts());
  assertSameAnswers(sequential, second.engine);
});

test('feedback is in the snapshot unless its load drew ids or times, and used while its file is unchanged; other files changing leave the snapshot in use', async () => {
  const dir = fixturesCopy();
  const s = settings();
  // A payload with an integer no double holds (kept as its digits) and a lone surrogate.
  const fb = join(dir, 'feedback.jsonl');
  const base = readFileSync(fb, 'utf8').split('\n')[0];
  appendFileSync(fb, base.replace(/"id":"[^"]+"/, '"id":"big-one"').replace(/"payload":\{/, '"payload":{"big":12345678901234567890,"odd":"\\ud800",') + '\n');
  age(fb);
  const first = await load(dir, s);
  assert.equal(first.report.snapshot.status, 'written');
  assert.equal((first.report.snapshot as { feedback: boolean }).feedback, true);
  const second = await load(dir, s);
  assert.deepEqual(second.report.snapshot.status === 'restored' && second.report.snapshot.feedback, true);
  assert.deepEqual(second.engine.store.counts(), first.engine.store.counts());
  assertSameAnswers(await plain(dir), second.engine);
  const big = [...second.engine.store.projects.values()].flatMap((p) => p.feedback).find((f) => f.id === 'big-one')!;
  assert.equal(String((big.payload.big as { lexeme: string }).lexeme ?? big.payload.big), '12345678901234567890');
  assert.equal(big.payload.odd, '\ud800');
  // A feedback record without id or created_at: its row gets fresh values on every load.
  const feedback = join(dir, 'feedback.jsonl');
  const line = JSON.parse(readFileSync(feedback, 'utf8').split('\n')[0]) as Record<string, unknown>;
  delete line.id;
  delete line.created_at;
  appendFileSync(feedback, JSON.stringify(line) + '\n');
  age(feedback);
  // The calls are still those of the snapshot; its feedback rows are of another feedback file,
  // so feedback loads from the file (and a snapshot written now would not hold it).
  const third = await load(dir, s);
  assert.equal(third.report.snapshot.status === 'restored' && third.report.snapshot.feedback, false);
  assertSameAnswers(await plain(dir), third.engine);
  appendFileSync(join(dir, 'calls.jsonl'), '\n');
  age(join(dir, 'calls.jsonl'));
  const fourth = await load(dir, s);
  assert.equal(fourth.report.snapshot.status === 'written' && fourth.report.snapshot.feedback, false);
  const fifth = await load(dir, s);
  assert.equal(fifth.report.snapshot.status === 'restored' && fifth.report.snapshot.feedback, false);
  assertSameAnswers(await plain(dir), fifth.engine);
  // The snapshot belongs to the calls file: an objects file changing leaves it in use (objects
  // always load from their file), and so does a calls-only load of the same directory.
  appendFileSync(join(dir, 'objects.jsonl'), '\n');
  age(join(dir, 'objects.jsonl'));
  const objectsChanged = await load(dir, s);
  assert.equal(objectsChanged.report.snapshot.status, 'restored');
  assertSameAnswers(await plain(dir), objectsChanged.engine);
  const callsOnly = engine();
  const only = await loadFixtureFilesWithSnapshot(callsOnly, dir, filesOf(dir).filter((f) => f.kind === 'calls'), s);
  assert.equal(only.snapshot.status, 'restored');
  assert.deepEqual(only.files.map((f) => f.kind), ['calls']);
  assert.deepEqual(readdirSync(s.dir).filter((n) => n.endsWith('.tqsnap')).length, 1);
});

test('generated data through a snapshot, with each prefix: one snapshot per prefix, identical answers', async () => {
  for (const prefix of ['svc_', 'wb_'] as const) {
    const dir = join(scratch, `gen-${prefix}`);
    mkdirSync(dir);
    writeFileSync(join(dir, 'calls.jsonl'), [...generateCalls({ calls: 2000, seed: 3, prefix, startUs: 1.7e15 })].join('\n') + '\n');
    age(join(dir, 'calls.jsonl'));
    const s = settings();
    assert.equal((await load(dir, s, prefix)).report.snapshot.status, 'written');
    const { engine: restored, report } = await load(dir, s, prefix);
    assert.equal(report.snapshot.status, 'restored');
    assertSameAnswers(await plain(dir, prefix), restored);
    // The other prefix is another load: it does not use this snapshot.
    const other: FieldPrefix = prefix === 'svc_' ? 'wb_' : 'svc_';
    assert.notEqual(snapshotFileName(snapshotKey(filesOf(dir), other)), snapshotFileName(snapshotKey(filesOf(dir), prefix)));
  }
});

test('never stale: a touched or grown calls file, another tq version or code means a normal load (and a new snapshot)', async () => {
  const dir = fixturesCopy();
  const calls = join(dir, 'calls.jsonl');
  const s = settings();
  await load(dir, s);
  // Touched: same bytes, new mtime.
  age(calls, 5);
  assert.equal((await load(dir, s)).report.snapshot.status, 'written');
  assert.equal((await load(dir, s)).report.snapshot.status, 'restored');
  // Grown by one call: the new call is there.
  const line = readFileSync(calls, 'utf8').split('\n')[0];
  appendFileSync(calls, line.replace(/"id":"[^"]+"/, '"id":"appended-call"') + '\n');
  age(calls, 4);
  const grown = await load(dir, s);
  assert.equal(grown.report.snapshot.status, 'written');
  assert.ok(grown.engine.store.projects.get(JSON.parse(line).project_id)!.calls.rowOf('appended-call') !== undefined);
  const again = await load(dir, s);
  assert.equal(again.report.snapshot.status, 'restored');
  assertSameAnswers(await plain(dir), again.engine);
  // Same size, same mtime, other content: the ctime (and inode, when replaced) still differ.
  const key = snapshotKey(filesOf(dir), 'svc_');
  const file = join(s.dir, snapshotFileName(key));
  for (const changed of [{ ...key, tq: '999.0.0' }, { ...key, code: 'other' }, { ...key, files: [{ ...key.files[0], ctimeNs: '1' }, ...key.files.slice(1)] }, { ...key, files: [{ ...key.files[0], ino: '1' }, ...key.files.slice(1)] }]) {
    assert.equal(readSnapshotFile(file, changed, new Store()).kind, 'stale');
  }
  assert.equal(readSnapshotFile(file, key, new Store()).kind, 'restored');
});

test('a corrupt, truncated or foreign snapshot is ignored with a one-line notice, loaded normally, and replaced', async () => {
  const dir = fixturesCopy();
  const s = settings();
  await load(dir, s);
  const file = join(s.dir, snapshotFileName(snapshotKey(filesOf(dir), 'svc_')));
  const good = readFileSync(file);
  const reference = await plain(dir);
  const damage: Array<[string, () => void, RegExp]> = [
    ['truncated', () => truncateSync(file, good.length - 100), /length/],
    ['truncated header', () => truncateSync(file, 20), /truncated header/],
    ['foreign', () => writeFileSync(file, 'hello, not a snapshot at all\n'), /bad magic/],
    ['header byte flipped', () => flip(file, 30), /header checksum/],
    ['data byte flipped', () => flip(file, dataStart(good) + 10), /data checksum/],
  ];
  for (const [what, hurt, reason] of damage) {
    writeFileSync(file, good);
    hurt();
    const { engine: e, report } = await load(dir, s);
    assert.equal(report.notices.length, 1, what);
    assert.match(report.notices[0], /^snapshot .* ignored \(/, what);
    assert.match(report.notices[0], reason, what);
    assert.equal(report.snapshot.status, 'written', what);
    assert.equal(answer(e, '/calls/stream_query', { project_id: 'acme/evals' }), answer(reference, '/calls/stream_query', { project_id: 'acme/evals' }), what);
    assert.equal((await load(dir, s)).report.snapshot.status, 'restored', `${what}: rewritten`);
  }
});

/** Where the data region starts (after the header and its checksum, 8-aligned). */
function dataStart(snapshot: Buffer): number {
  return (16 + snapshot.readUInt32LE(12) + 32 + 7) & ~7;
}

function flip(file: string, at: number): void {
  const bytes = readFileSync(file);
  const fd = openSync(file, 'r+');
  writeSync(fd, Buffer.from([bytes[Math.floor(at)] ^ 0xff]), 0, 1, Math.floor(at));
  closeSync(fd);
}

test('no snapshot when turned off, under the size threshold, or for a calls file modified in the last 2 s', async () => {
  const dir = fixturesCopy();
  const off = settings({ enabled: false });
  assert.deepEqual((await load(dir, off)).report.snapshot, { status: 'off', reason: 'turned off' });
  const small = settings({ minBytes: 10 * 1024 * 1024 });
  assert.equal((await load(dir, small)).report.snapshot.status, 'off');
  age(join(dir, 'calls.jsonl'), 0);
  const racy = settings();
  const r = await load(dir, racy);
  assert.equal(r.report.snapshot.status, 'not-written');
  assert.deepEqual(r.report.notices, []);
  for (const s of [off, small, racy]) assert.equal(existsSync(s.dir), false);
});

test('settings from the environment: TQ_SNAPSHOT=0, the flag, the directory and bounds', () => {
  assert.equal(snapshotSettings({}).enabled, true);
  assert.equal(snapshotSettings({}, false).enabled, false);
  assert.equal(snapshotSettings({ TQ_SNAPSHOT: '0' }).enabled, false);
  assert.equal(snapshotSettings({ XDG_CACHE_HOME: '/c' }).dir, '/c/tq/snapshots');
  assert.equal(snapshotSettings({ XDG_CACHE_HOME: '/c', TQ_SNAPSHOT_DIR: '/d' }).dir, '/d');
  assert.equal(snapshotSettings({ TQ_SNAPSHOT_MAX_BYTES: '123' }).maxCacheBytes, 123);
  assert.throws(() => snapshotSettings({ TQ_SNAPSHOT_MIN_BYTES: '1k' }), /TQ_SNAPSHOT_MIN_BYTES must be a whole number of bytes/);
});

test('the cache stays under its bound: least recently used snapshots go first, abandoned temp files too', () => {
  const dir = join(scratch, 'evict');
  mkdirSync(dir);
  const put = (name: string, bytes: number, ageS: number) => {
    writeFileSync(join(dir, name), Buffer.alloc(bytes));
    age(join(dir, name), ageS);
  };
  put('a.tqsnap', 100, 30);
  put('b.tqsnap', 100, 20);
  put('c.tqsnap', 100, 10);
  put('d.tqsnap.tmp-1-ab', 100, 7200);
  put('e.tqsnap.tmp-2-cd', 100, 1);
  put('other.txt', 1000, 99);
  assert.deepEqual(evictSnapshots(dir, 150, 'a.tqsnap').sort(), ['b.tqsnap', 'c.tqsnap', 'd.tqsnap.tmp-1-ab']);
  assert.deepEqual(readdirSync(dir).sort(), ['a.tqsnap', 'e.tqsnap.tmp-2-cd', 'other.txt']);
});

test('a snapshot larger than the cache bound is not written', async () => {
  const dir = fixturesCopy();
  const s = settings({ maxCacheBytes: 1000 });
  const r = await load(dir, s);
  assert.equal(r.report.snapshot.status, 'not-written');
  assert.match((r.report.snapshot as { reason: string }).reason, /larger than the cache bound/);
});

test('the CLI: --no-snapshot and TQ_SNAPSHOT=0 write nothing; otherwise the second run restores and prints the same bytes', async () => {
  const dir = fixturesCopy();
  const cache = join(scratch, 'cli-cache');
  const env = { TQ_SNAPSHOT_DIR: cache, TQ_SNAPSHOT_MIN_BYTES: '0' };
  const args = ['calls', '--fixtures', dir, '--project', 'acme/evals', '--limit', '40'];
  const off1 = await runMainCaptured([...args, '--no-snapshot'], env);
  const off2 = await runMainCaptured(args, { ...env, TQ_SNAPSHOT: '0' });
  assert.equal(off1.code, 0, off1.err);
  assert.equal(off2.out, off1.out);
  assert.deepEqual(readdirSync(scratch).includes('cli-cache') ? readdirSync(cache) : [], []);
  const first = await runMainCaptured(args, env);
  assert.equal(readdirSync(cache).length, 1);
  const second = await runMainCaptured(args, env);
  assert.equal(first.out, off1.out);
  assert.equal(second.out, off1.out);
  assert.equal(second.err, '');
  const bad = await runMainCaptured(args, { ...env, TQ_SNAPSHOT_MAX_BYTES: 'lots' });
  assert.equal(bad.code, 2);
  assert.match(bad.err, /TQ_SNAPSHOT_MAX_BYTES must be a whole number of bytes/);
});

function runTq(args: string[], env: Record<string, string>): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [TQ_BIN, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '', err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, out, err }));
  });
}

test('two processes writing the same snapshot at once leave one whole snapshot and no temporary file', async () => {
  const dir = fixturesCopy();
  const cache = join(scratch, 'race-cache');
  const env = { TQ_SNAPSHOT_DIR: cache, TQ_SNAPSHOT_MIN_BYTES: '0' };
  const args = ['calls', '--fixtures', dir, '--project', 'acme/support-bot'];
  const [a, b] = await Promise.all([runTq(args, env), runTq(args, env)]);
  assert.equal(a.code, 0, a.err);
  assert.equal(b.code, 0, b.err);
  assert.equal(a.out, b.out);
  const names = readdirSync(cache);
  assert.equal(names.length, 1, names.join(', '));
  assert.ok(statSync(join(cache, names[0])).size > 0);
  const restored = await load(dir, { enabled: true, dir: cache, minBytes: 0, maxCacheBytes: 1 << 30 });
  assert.equal(restored.report.snapshot.status, 'restored');
  const c = await runTq(args, env);
  assert.equal(c.out, a.out);
});

test('a --data directory restores its fixtures from the snapshot (the journal replays after it)', async () => {
  const { openDataDir } = await import('../../journal/data-dir.ts');
  const dir = fixturesCopy();
  const s = settings();
  const open = () => openDataDir(dir, { fieldPrefix: 'svc_', writable: false, say: () => {}, snapshot: s });
  const first = await open();
  const names = readdirSync(s.dir).filter((n) => n.endsWith('.tqsnap'));
  assert.equal(names.length, 1);
  const inode = statSync(join(s.dir, names[0])).ino;
  const second = await open();
  assert.equal(statSync(join(s.dir, names[0])).ino, inode, 'restored, not rewritten');
  const reference = await plain(dir);
  for (const projectId of reference.store.projects.keys()) {
    const body = { project_id: projectId, include_feedback: true, sort_by: [{ field: 'started_at', direction: 'desc' }] };
    assert.equal(answer(second.engine, '/calls/stream_query', body), answer(reference, '/calls/stream_query', body), projectId);
    assert.equal(answer(first.engine, '/calls/stream_query', body), answer(reference, '/calls/stream_query', body), projectId);
  }
});

test('a byte changed inside the bodies: the query that reads it fails with a clear error, the snapshot is removed, the next load rewrites it', async () => {
  const dir = fixturesCopy();
  const s = settings();
  await load(dir, s);
  const file = join(s.dir, snapshotFileName(snapshotKey(filesOf(dir), 'svc_')));
  const good = readFileSync(file);
  flip(file, good.length - 20); // the last arena chunk
  const { engine: e, report } = await load(dir, s);
  assert.equal(report.snapshot.status, 'restored', 'the header and data region are whole');
  const everything = () => {
    for (const projectId of e.store.projects.keys()) answer(e, '/calls/stream_query', { project_id: projectId });
  };
  assert.throws(everything, /load snapshot .* is damaged \((arena chunk \d+|the body of row \d+) of project .* fails its checksum\); it was removed/);
  assert.equal(existsSync(file), false);
  assert.equal((await load(dir, s)).report.snapshot.status, 'written');
  // The command line: the damage is found before the first byte is written; the answer comes
  // whole from the fixture files, with one line on stderr saying so.
  const reference = await plain(dir);
  const projectId = [...reference.store.projects.keys()].at(-1)!;
  flip(file, statSync(file).size - 20);
  const env = { TQ_SNAPSHOT_DIR: s.dir, TQ_SNAPSHOT_MIN_BYTES: '0' };
  const args = ['calls', '--fixtures', dir, '--project', projectId];
  const healed = await runTq(args, env);
  assert.equal(healed.code, 0, healed.err);
  assert.match(healed.err, /^load snapshot .* is damaged \(.*\); it was removed, the next run loads the fixture files; loading the fixture files\n$/);
  assert.equal(healed.out.trimEnd(), answer(reference, '/calls/stream_query', { project_id: projectId }));
  const next = await runTq(args, env);
  assert.equal(next.code, 0, next.err);
  assert.equal(next.err, '');
  assert.equal(next.out, healed.out);
});

test('a damaged snapshot and a full read larger than what is built whole: stdout holds the whole exact answer, never a part', async () => {
  const dir = join(scratch, 'big-damaged');
  mkdirSync(dir);
  writeFileSync(join(dir, 'calls.jsonl'), [...generateCalls({ calls: 12000, seed: 5, prefix: 'svc_', startUs: 1.7e15 })].join('\n') + '\n');
  age(join(dir, 'calls.jsonl'));
  const cache = join(scratch, 'big-damaged-cache');
  const env = { TQ_SNAPSHOT_DIR: cache, TQ_SNAPSHOT_MIN_BYTES: '0' };
  const args = ['calls', '--fixtures', dir, '--project', 'bench/gen'];
  const reference = await runTq([...args, '--no-snapshot'], env);
  assert.equal(reference.code, 0, reference.err);
  assert.ok(reference.out.length > 8 * 1024 * 1024, `${reference.out.length} bytes: more than is built whole`);
  assert.equal((await runTq(args, env)).out, reference.out); // writes the snapshot
  const [name] = readdirSync(cache);
  const file = join(cache, name);
  const good = readFileSync(file);
  // The last chunk (read only by the check before writing) and the first (read while building).
  for (const at of [good.length - 20, dataStart(good) + readSnapshotArenaStart(good) + 100]) {
    writeFileSync(file, good);
    flip(file, at);
    const run = await runTq(args, env);
    assert.equal(run.code, 0, run.err);
    assert.match(run.err, /^load snapshot .* is damaged .*; loading the fixture files\n$/);
    assert.ok(run.out === reference.out, `byte ${at}: stdout holds ${run.out.length} of ${reference.out.length} bytes`);
    assert.equal(existsSync(file), true, 'the reload wrote a new snapshot');
  }
  // --format table (as pretty output) has the same guarantee: the check precedes the first line.
  const tableArgs = [...args, '--format', 'table'];
  const tableReference = await runTq([...tableArgs, '--no-snapshot'], env);
  assert.equal(tableReference.code, 0, tableReference.err);
  writeFileSync(file, good);
  flip(file, good.length - 20);
  const table = await runTq(tableArgs, env);
  assert.equal(table.code, 0, table.err);
  assert.match(table.err, /^load snapshot .* is damaged .*; loading the fixture files\n$/);
  assert.ok(table.out === tableReference.out, `--format table: stdout holds ${table.out.length} of ${tableReference.out.length} bytes`);
});

/** Where the arena region starts, counted from the data region's start (the header says). */
function readSnapshotArenaStart(snapshot: Buffer): number {
  const header = JSON.parse(snapshot.subarray(16, 16 + snapshot.readUInt32LE(12)).toString('utf8')) as { dataBytes: number };
  return header.dataBytes;
}

test('readBodies (tq serve): a damaged body is found at restore, said once, and the fixture files load instead', async () => {
  const dir = fixturesCopy();
  const s = settings({ readBodies: true });
  assert.equal((await load(dir, s)).report.snapshot.status, 'written');
  const whole = await load(dir, s);
  assert.equal(whole.report.snapshot.status, 'restored');
  const file = join(s.dir, snapshotFileName(snapshotKey(filesOf(dir), 'svc_')));
  flip(file, statSync(file).size - 20);
  const { engine: healed, report } = await load(dir, s);
  assert.equal(report.snapshot.status, 'written', 'loaded from the fixture files, and a new snapshot written');
  assert.equal(report.notices.length, 1);
  assert.match(report.notices[0], /^load snapshot .* is damaged \(.*fails its checksum\); it was removed, the next run loads the fixture files; loading the fixture files$/);
  assertSameAnswers(await plain(dir), healed);
  assert.equal((await load(dir, s)).report.snapshot.status, 'restored');
});

test('tq serve over a damaged snapshot: the start says so and loads the fixture files; every answer is whole', async () => {
  const dir = fixturesCopy();
  const cache = join(scratch, 'serve-damaged-cache');
  const env = { TQ_SNAPSHOT_DIR: cache, TQ_SNAPSHOT_MIN_BYTES: '0' };
  assert.equal((await runTq(['calls', '--fixtures', dir, '--project', 'acme/evals'], env)).code, 0);
  const [name] = readdirSync(cache);
  flip(join(cache, name), statSync(join(cache, name)).size - 20);
  const child = spawn(process.execPath, [TQ_BIN, 'serve', '--port', '0', '--fixtures', dir, '--quiet'], {
    env: { ...process.env, ...env, NO_COLOR: '1', TQ_PASSWORD: 'pw', TQ_USER: 'u' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  child.stderr.on('data', (c: Buffer) => (err += c.toString()));
  try {
    const deadline = Date.now() + 30_000;
    while (!/tq listening on (\S+)/.test(err)) {
      assert.ok(child.exitCode === null && Date.now() < deadline, err);
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.match(err, /load snapshot .* is damaged \(.*\); it was removed, the next run loads the fixture files; loading the fixture files\n/);
    const base = /tq listening on (\S+)/.exec(err)![1];
    const reference = await plain(dir);
    for (const projectId of reference.store.projects.keys()) {
      const res = await fetch(base + '/calls/stream_query', { method: 'POST', headers: { Authorization: `Basic ${Buffer.from('u:pw').toString('base64')}` }, body: JSON.stringify({ project_id: projectId }) });
      assert.equal(res.status, 200, projectId);
      assert.equal((await res.text()).trimEnd(), answer(reference, '/calls/stream_query', { project_id: projectId }), projectId);
    }
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
});
