import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEngine } from '../engine.ts';
import { BUNDLED_FIXTURES, filesOf, fixtureFilesIn } from '../io/load-fixtures.ts';
import { cacheBound, cacheDirProblem } from '../io/snapshot/cache.ts';
import { loadFixtureFilesWithSnapshot } from '../io/snapshot/load.ts';
import { runMainCaptured } from './run-tq.testing.ts';

const scratch = mkdtempSync(join(tmpdir(), 'tq-cache-test-'));
process.on('exit', () => rmSync(scratch, { recursive: true, force: true }));
let dirs = 0;

/** A copy of the demo fixtures, old enough not to be "racy". */
function fixturesCopy(): string {
  const dir = join(scratch, `fx-${++dirs}`);
  mkdirSync(dir);
  const old = new Date(Date.now() - 10_000);
  for (const f of fixtureFilesIn(BUNDLED_FIXTURES)) {
    const to = join(dir, f.file.slice(BUNDLED_FIXTURES.length));
    copyFileSync(f.file, to);
    utimesSync(to, old, old);
  }
  return dir;
}

/** Over 20 kB: the demo's calls file has a snapshot, its small tables and objects files none (see the last test). */
const load = (dir: string, cache: string, over: { maxCacheBytes?: number; minBytes?: number } = {}) =>
  loadFixtureFilesWithSnapshot(createEngine(), dir, filesOf(dir), { enabled: true, dir: cache, minBytes: 20_000, maxCacheBytes: 'auto', ...over });

test('tq cache lists where the cache is and each snapshot (fixture, kind, size, last use); tq cache clear empties it', async () => {
  const cache = join(scratch, 'listed');
  const a = fixturesCopy();
  const b = fixturesCopy();
  assert.equal((await load(a, cache)).snapshot.status, 'written');
  assert.equal((await load(b, cache)).snapshot.status, 'written');
  const old = new Date('2026-01-02T03:04:05Z');
  const [first] = readdirSync(cache).filter((n) => statSync(join(cache, n)).size > 0);
  utimesSync(join(cache, first), old, old);
  const env = { TQ_SNAPSHOT_DIR: cache };
  const json = await runMainCaptured(['cache', '--json'], env);
  assert.equal(json.code, 0, json.err);
  const [head, ...rows] = json.lines;
  assert.deepEqual(head, { dir: cache, enabled: true, bound: 'auto', problem: null });
  assert.equal(rows.length, 2);
  assert.deepEqual(rows.map((r) => r.fixture).sort(), [join(a, 'calls.jsonl'), join(b, 'calls.jsonl')].sort());
  assert.deepEqual(rows.map((r) => r.kind), ['calls', 'calls']);
  assert.equal(rows[1].last_use, '2026-01-02T03:04:05.000Z', 'most recently used first');
  for (const r of rows) assert.equal(r.bytes, statSync(join(cache, r.file as string)).size);
  const text = await runMainCaptured(['cache'], env);
  const lines = text.out.split('\n');
  assert.equal(lines[0], `cache: ${cache}`);
  assert.match(lines[1], /^2 snapshots, \d+\.\d MB; bound: auto/);
  assert.match(lines[3], /^fixture +kind +size +last use$/);
  assert.match(lines[4], /calls\.jsonl +calls +\d+\.\d MB +\d{4}-/);
  assert.match(lines[5], /2026-01-02T03:04:05\.000Z$/);
  const cleared = await runMainCaptured(['cache', 'clear'], env);
  assert.equal(cleared.code, 0);
  assert.match(cleared.err, new RegExp(`^cleared ${cache}: 2 files, \\d+\\.\\d MB\\n$`));
  assert.deepEqual(readdirSync(cache), []);
  assert.equal((await runMainCaptured(['cache'], { TQ_SNAPSHOT_DIR: join(scratch, 'none') })).out, `cache: ${join(scratch, 'none')}\n0 snapshots, 0.0 MB; bound: auto (4 GiB, or twice the snapshot being written; at most half of the cache and free disk together)\n`);
});

test('a snapshot whose calls file is gone is removed by the next load that uses the cache', async () => {
  const cache = join(scratch, 'orphans');
  const gone = fixturesCopy();
  const kept = fixturesCopy();
  await load(gone, cache);
  await load(kept, cache);
  assert.equal(readdirSync(cache).length, 2);
  rmSync(gone, { recursive: true });
  assert.equal((await load(kept, cache)).snapshot.status, 'restored');
  assert.equal(readdirSync(cache).length, 1);
});

test('a cache directory another user could write is refused, said once; a private one is used', async () => {
  const cache = join(scratch, 'open');
  mkdirSync(cache, { mode: 0o700 });
  chmodSync(cache, 0o777);
  const dir = fixturesCopy();
  assert.match(cacheDirProblem(cache)!, /is writable by other users \(mode 777; chmod go-w it\)$/);
  const first = await load(dir, cache);
  assert.deepEqual(first.snapshot, { status: 'off', reason: cacheDirProblem(cache) });
  assert.deepEqual(first.notices, [`snapshot cache not used: ${cacheDirProblem(cache)}`]);
  assert.deepEqual((await load(dir, cache)).notices, [], 'said once per process');
  assert.deepEqual(readdirSync(cache), []);
  chmodSync(cache, 0o700);
  assert.equal(cacheDirProblem(cache), null);
  assert.equal((await load(dir, cache)).snapshot.status, 'written');
  const file = join(scratch, 'a-file');
  writeFileSync(file, '');
  assert.equal(cacheDirProblem(file), `${file} is not a directory`);
  assert.equal(cacheDirProblem(join(scratch, 'not-yet')), null);
});

test('the bound: set, or sized to the snapshot and the disk; a snapshot past it is said once, not silently', async () => {
  const GiB = 1024 ** 3;
  const auto = { enabled: true, dir: '', minBytes: 0, maxCacheBytes: 'auto' as const };
  assert.equal(cacheBound({ ...auto, maxCacheBytes: 123 }, 10 * GiB, { heldBytes: 0, freeBytes: 0 }), 123);
  assert.equal(cacheBound(auto, 1 * GiB, { heldBytes: 0, freeBytes: 100 * GiB }), 4 * GiB);
  assert.equal(cacheBound(auto, 6 * GiB, { heldBytes: 2 * GiB, freeBytes: 100 * GiB }), 12 * GiB);
  assert.equal(cacheBound(auto, 6 * GiB, { heldBytes: 2 * GiB, freeBytes: 8 * GiB }), 5 * GiB);
  const dir = fixturesCopy();
  const cache = join(scratch, 'bounded');
  const first = await load(dir, cache, { maxCacheBytes: 1000 });
  assert.equal(first.snapshot.status, 'not-written');
  assert.equal(first.notices.length, 1);
  assert.match(first.notices[0], /^snapshot not written: the snapshot of .*calls\.jsonl \(\d+ bytes\) would be larger than the cache bound \(1000 bytes; TQ_SNAPSHOT_MAX_BYTES sets it\)$/);
  assert.deepEqual((await load(dir, cache, { maxCacheBytes: 1000 })).notices, []);
});

test('issue 26: the tables, objects and costs files have snapshots of their own: listed with their kind, removed once their file is gone', async () => {
  const cache = join(scratch, 'kinds');
  const dir = fixturesCopy();
  // Costs records with their ids (as tq dump writes them): the demo's draw fresh ids, so they have no snapshot.
  writeFileSync(join(dir, 'costs.jsonl'), JSON.stringify({ project_id: 'acme/support-bot', id: 'price-1', created_at: '2025-01-01T00:00:00Z', costs: { m: { prompt_token_cost: 1.0, completion_token_cost: 2e-7 } } }) + '\n');
  utimesSync(join(dir, 'costs.jsonl'), new Date(Date.now() - 10_000), new Date(Date.now() - 10_000));
  const first = await load(dir, cache, { minBytes: 0 });
  assert.deepEqual(first.images.map((i) => [i.file, i.status]), [['tables', 'written'], ['objects', 'written'], ['costs', 'written']].map(([k, s]) => [join(dir, `${k}.jsonl`), s]));
  const json = await runMainCaptured(['cache', '--json'], { TQ_SNAPSHOT_DIR: cache });
  assert.deepEqual(json.lines.slice(1).map((r) => [r.kind, r.fixture]).sort(), ['calls', 'tables', 'objects', 'costs'].map((k) => [k, join(dir, `${k}.jsonl`)]).sort());
  const text = await runMainCaptured(['cache'], { TQ_SNAPSHOT_DIR: cache });
  assert.match(text.out, /^4 snapshots, /m);
  assert.match(text.out, new RegExp(`^${join(dir, 'tables.jsonl')} +tables +\\d+\\.\\d MB +\\d{4}-`, 'm'));
  rmSync(join(dir, 'tables.jsonl'));
  const other = fixturesCopy();
  await load(other, cache, { minBytes: 0 });
  const left = (await runMainCaptured(['cache', '--json'], { TQ_SNAPSHOT_DIR: cache })).lines.slice(1).map((r) => r.fixture as string);
  assert.ok(!left.includes(join(dir, 'tables.jsonl')), 'the image of a deleted tables file is removed');
  assert.ok(left.includes(join(dir, 'objects.jsonl')) && left.includes(join(other, 'tables.jsonl')), JSON.stringify(left));
});
