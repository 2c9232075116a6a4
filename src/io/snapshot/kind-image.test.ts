import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, statSync, truncateSync, utimesSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEngine } from '../../engine.ts';
import type { Engine, FieldPrefix } from '../../api/types.ts';
import { fixtureFilesIn, loadFixtureFiles, type FixtureFile } from '../load-fixtures.ts';
import { generateTable } from '../../gen/generate.ts';
import { answer } from '../../store/snapshot.testing.ts';
import { fileSnapshotKey, snapshotFileName } from './key.ts';
import { loadFixtureFilesWithSnapshot, type SnapshotLoadReport } from './load.ts';
import type { SnapshotSettings } from './cache.ts';
import { imagedState } from './kind-image.testing.ts';
import { readImageFile } from './kind-image.ts';
import { Store } from '../../store/store.ts';

const scratch = mkdtempSync(join(tmpdir(), 'tq-kind-image-test-'));
process.on('exit', () => rmSync(scratch, { recursive: true, force: true }));
let dirs = 0;

/** Moves a file's mtime 10 s into the past, as a file not being written to. */
function age(file: string, seconds = 10): void {
  const t = new Date(Date.now() - seconds * 1000);
  utimesSync(file, t, t);
}

const P = 'acme/kinds';
const object = (objectId: string, val: string, at: string) => `{"project_id":"${P}","object_id":"${objectId}","created_at":"${at}","svc_user_id":"u1","val":${val}}`;
/** Objects whose values spell numbers every way the store must keep: big integers, 1.0, exponents, -0.0, a lone surrogate. */
const OBJECTS = [
  object('model', '{"_type":"Model","temperature":1.0,"big":12345678901234567890,"tiny":1e-7,"neg":-0.0,"odd":"\\ud800","list":[1,2.50,3E2]}', '2025-01-01T00:00:00Z'),
  object('model', '{"_type":"Model","temperature":0.5}', '2025-01-02T00:00:00Z'),
  // The first value again: its version becomes the latest once more (no new version).
  object('model', '{"_type":"Model","temperature":1.0,"big":12345678901234567890,"tiny":1e-7,"neg":-0.0,"odd":"\\ud800","list":[1,2.50,3E2]}', '2025-01-03T00:00:00Z'),
  object('say_hi', '{"_type":"CustomWeaveType","weave_type":{"type":"Op"},"files":{"obj.py":"abc"}}', '2025-01-04T00:00:00Z'),
  `{"project_id":"other/proj","object_id":"ds","created_at":"2025-01-05T00:00:00Z","val":{"_type":"Dataset","rows":"weave:///other/proj/table/x"}}`,
];
const COSTS = [
  `{"project_id":"${P}","id":"price-1","created_at":"2025-01-01T00:00:00Z","costs":{"gpt-x":{"prompt_token_cost":1.0,"completion_token_cost":2e-7,"effective_date":"2024-01-01T00:00:00Z"}}}`,
  `{"pricing_level":"default","id":"price-2","created_at":"2025-01-01T00:00:00Z","costs":{"gpt-y":{"prompt_token_cost":-0.0,"completion_token_cost":3.5,"provider_id":"p"}}}`,
];
/** A generated table, and a second one in another project with rows that share digests and spell numbers oddly. */
const TABLES = [
  ...generateTable(3000, 7, P),
  `{"project_id":"other/proj","rows":[{"a":1.0},{"a":1.0},{"b":12345678901234567890,"c":"\\u00e9\\ud83d\\ude00"},{"n":null,"e":1E400}]}`,
  `{"project_id":"${P}","rows":[]}`,
];

/** A fixtures directory of tables, objects and costs (and no calls file). */
function kindsDir(files: { tables?: string[]; objects?: string[]; costs?: string[] } = { tables: TABLES, objects: OBJECTS, costs: COSTS }): string {
  const dir = join(scratch, `fx-${++dirs}`);
  mkdirSync(dir);
  for (const [kind, lines] of Object.entries(files)) {
    writeFileSync(join(dir, `${kind}.jsonl`), lines.join('\n') + '\n');
    age(join(dir, `${kind}.jsonl`));
  }
  return dir;
}

function settings(over: Partial<SnapshotSettings> = {}): SnapshotSettings {
  return { enabled: true, dir: join(scratch, `cache-${++dirs}`), minBytes: 0, maxCacheBytes: 1 << 30, ...over };
}

function engine(prefix: FieldPrefix = 'svc_'): Engine {
  let id = 0;
  return createEngine(undefined, { fieldPrefix: prefix, now: () => 1.9e15, newId: () => `00000000-0000-7000-8000-${String(++id).padStart(12, '0')}` });
}

async function load(dir: string, s: SnapshotSettings, files: FixtureFile[] = fixtureFilesIn(dir)): Promise<{ engine: Engine; report: SnapshotLoadReport }> {
  const e = engine();
  return { engine: e, report: await loadFixtureFilesWithSnapshot(e, dir, files, s) };
}

async function plain(dir: string, files: FixtureFile[] = fixtureFilesIn(dir)): Promise<Engine> {
  const e = engine();
  await loadFixtureFiles(e, dir, files);
  return e;
}

/** The answers a table, objects or costs snapshot can change: every table (whole, sorted, by digest), every object read and query. */
function kindAnswers(e: Engine): string[] {
  const out: string[] = [];
  for (const [projectId, p] of e.store.projects) {
    for (const [digest, rows] of p.tables) {
      out.push(answer(e, '/table/query_stream', { project_id: projectId, digest }));
      out.push(answer(e, '/table/query_stream', { project_id: projectId, digest, sort_by: [{ field: 'meta.difficulty', direction: 'desc' }], limit: 25, offset: 3 }));
      out.push(answer(e, '/table/query_stats', { project_id: projectId, digest }));
      out.push(answer(e, '/table/query', { project_id: projectId, digest, filter: { row_digests: rows.slice(0, 4) } }));
    }
    out.push(answer(e, '/objs/query', { project_id: projectId }));
    out.push(answer(e, '/objs/query', { project_id: projectId, filter: { latest_only: true, is_op: false } }));
    for (const [objectId, versions] of p.objects) {
      for (const v of versions) out.push(answer(e, '/obj/read', { project_id: projectId, object_id: objectId, digest: v.digest }));
      out.push(answer(e, '/obj/read', { project_id: projectId, object_id: objectId, digest: 'latest' }));
    }
  }
  return out;
}

const statuses = (r: SnapshotLoadReport) => r.images.map((i) => [i.file.slice(i.file.lastIndexOf('/') + 1), i.status]);

test('tables, objects and costs files: the first load writes a snapshot of each, the next restores them; stored state and answers are those of a fresh load', async () => {
  const dir = kindsDir();
  const s = settings();
  const reference = await plain(dir);
  const first = await load(dir, s);
  assert.deepEqual(statuses(first.report), [['tables.jsonl', 'written'], ['objects.jsonl', 'written'], ['costs.jsonl', 'written']]);
  assert.deepEqual(first.report.snapshot, { status: 'off', reason: 'no calls file' });
  const second = await load(dir, s);
  assert.deepEqual(statuses(second.report), [['tables.jsonl', 'restored'], ['objects.jsonl', 'restored'], ['costs.jsonl', 'restored']]);
  assert.deepEqual(second.report.notices, []);
  assert.deepEqual(second.report.files, first.report.files);
  assert.deepEqual(second.engine.store.counts(), reference.store.counts());
  assert.deepStrictEqual(imagedState(second.engine.store), imagedState(reference.store));
  const answers = kindAnswers(reference);
  assert.ok(answers.length > 15 && answers.some((a) => a.includes('12345678901234567890')) && answers.some((a) => a.includes('1.0')), answers.join('\n').slice(0, 500));
  assert.deepEqual(kindAnswers(second.engine), answers);
  // The same writes after the load answer the same on both (a table update over a restored table, a new object version).
  const [tableDigest] = reference.store.project(P)!.tables.keys();
  for (const [path, body] of [
    ['/table/update', { project_id: P, base_digest: tableDigest, updates: [{ append: { row: { id: -1, x: 2.0 } } }, { pop: { index: 0 } }] }],
    ['/obj/create', { obj: { project_id: P, object_id: 'model', val: { _type: 'Model', temperature: 2.0 } } }],
  ] as const) {
    assert.equal(answer(second.engine, path, body), answer(reference, path, body), path);
  }
  assert.deepEqual(kindAnswers(second.engine), kindAnswers(reference));
});

test('a table query alone (no calls file) restores the table from its snapshot; each file is its own snapshot, named by its path and prefix', async () => {
  const dir = kindsDir();
  const s = settings();
  const tables = fixtureFilesIn(dir).filter((f) => f.kind === 'tables');
  assert.deepEqual(statuses((await load(dir, s, tables)).report), [['tables.jsonl', 'written']]);
  const { engine: e, report } = await load(dir, s, tables);
  assert.deepEqual(statuses(report), [['tables.jsonl', 'restored']]);
  assert.deepEqual(imagedState(e.store), imagedState((await plain(dir, tables)).store));
  const key = fileSnapshotKey('tables', join(dir, 'tables.jsonl'), 'svc_');
  assert.ok(existsSync(join(s.dir, snapshotFileName(key))));
  assert.notEqual(snapshotFileName(fileSnapshotKey('tables', join(dir, 'tables.jsonl'), 'wb_')), snapshotFileName(key));
  assert.notEqual(snapshotFileName(fileSnapshotKey('objects', join(dir, 'objects.jsonl'), 'svc_')), snapshotFileName(key));
});

test('never stale: a touched or changed file is loaded from the file and its snapshot rewritten', async () => {
  const dir = kindsDir();
  const s = settings();
  await load(dir, s);
  age(join(dir, 'objects.jsonl'), 5);
  assert.deepEqual(statuses((await load(dir, s)).report), [['tables.jsonl', 'restored'], ['objects.jsonl', 'written'], ['costs.jsonl', 'restored']]);
  writeFileSync(join(dir, 'tables.jsonl'), TABLES[1] + '\n');
  age(join(dir, 'tables.jsonl'), 4);
  const changed = await load(dir, s);
  assert.deepEqual(statuses(changed.report), [['tables.jsonl', 'written'], ['objects.jsonl', 'restored'], ['costs.jsonl', 'restored']]);
  assert.deepEqual(changed.engine.store.counts().tables, 1);
  const again = await load(dir, s);
  assert.deepEqual(imagedState(again.engine.store), imagedState((await plain(dir)).store));
  // The key holds the file's identity: another inode, ctime, size or code is stale.
  const key = fileSnapshotKey('tables', join(dir, 'tables.jsonl'), 'svc_');
  const file = join(s.dir, snapshotFileName(key));
  for (const other of [{ ...key, code: 'other' }, { ...key, files: [{ ...key.files[0], ino: '1' }] }, { ...key, files: [{ ...key.files[0], ctimeNs: '1' }] }, { ...key, files: [{ ...key.files[0], kind: 'objects' }] }]) {
    assert.equal(readImageFile(file, other, 'tables', new Store()).kind, 'stale');
  }
  assert.equal(readImageFile(file, key, 'tables', new Store()).kind, 'restored');
});

/** Where the parts start (after the header and its checksum, 8-aligned). */
const dataStart = (image: Buffer) => (16 + image.readUInt32LE(12) + 32 + 7) & ~7;

function flip(file: string, at: number): void {
  const bytes = readFileSync(file);
  const fd = openSync(file, 'r+');
  writeSync(fd, Buffer.from([bytes[at] ^ 0xff]), 0, 1, at);
  closeSync(fd);
}

test('a damaged snapshot is never served: said once, removed, the file loaded instead (the same state), and a new snapshot written', async () => {
  const dir = kindsDir();
  const s = settings();
  await load(dir, s);
  const file = join(s.dir, snapshotFileName(fileSnapshotKey('tables', join(dir, 'tables.jsonl'), 'svc_')));
  const good = readFileSync(file);
  const reference = imagedState((await plain(dir)).store);
  const damage: Array<[string, () => void, string]> = [
    // Each part is framed by its length and CRC-32 (8 bytes).
    ['first part', () => flip(file, dataStart(good) + 8 + 3), 'part 0 checksum mismatch'],
    ["a part's length", () => flip(file, dataStart(good) + 3), 'truncated in part 0'],
    // The last 8 bytes are the trailer (a mark, then the part count).
    ['last part', () => flip(file, good.length - 9), `part ${good.readUInt32LE(good.length - 4) - 1} checksum mismatch`],
    ['trailer', () => flip(file, good.length - 1), `${good.readUInt32LE(good.length - 4)} parts and 0 bytes after them, the trailer says ${good.readUInt32LE(good.length - 4) + 0xff000000} parts`],
    ['header', () => flip(file, 40), 'header checksum mismatch'],
    // Every part leaves room for the trailer: a file cut in it, or at a part's end, is cut in the last part.
    ['truncated in the trailer', () => truncateSync(file, good.length - 1), `truncated in part ${good.readUInt32LE(good.length - 4) - 1}`],
    ['cut after a part', () => truncateSync(file, good.length - 8), `truncated in part ${good.readUInt32LE(good.length - 4) - 1}`],
    ['bytes after the trailer', () => appendFileSync(file, 'x'), `${good.readUInt32LE(good.length - 4)} parts and 1 bytes after them, the trailer says ${good.readUInt32LE(good.length - 4)} parts`],
    ['truncated in a part', () => truncateSync(file, good.length - 20), `truncated in part ${good.readUInt32LE(good.length - 4) - 1}`],
    ['foreign', () => writeFileSync(file, 'not a snapshot at all, just text\n'), 'not a tq snapshot (bad magic)'],
  ];
  for (const [what, hurt, reason] of damage) {
    writeFileSync(file, good);
    hurt();
    const damaged = readFileSync(file);
    const { engine: e, report } = await load(dir, s);
    assert.deepEqual(report.notices, [`load snapshot ${file} of ${join(dir, 'tables.jsonl')} is damaged (${reason}); it was removed; loading the fixture file`], what);
    assert.deepEqual(statuses(report)[0], ['tables.jsonl', 'written'], what);
    assert.deepStrictEqual(imagedState(e.store), reference, what);
    assert.ok(!readFileSync(file).equals(damaged), `${what}: replaced`);
    assert.deepEqual(statuses((await load(dir, s)).report)[0], ['tables.jsonl', 'restored'], `${what}: rewritten whole`);
  }
  // A damaged snapshot that is not rewritten (no room in the cache) is still removed.
  flip(file, dataStart(good) + 8 + 3);
  const full = await load(dir, { ...s, maxCacheBytes: 1000 });
  assert.equal(full.report.notices.length, 2);
  assert.match(full.report.notices[0], /is damaged \(part 0 checksum mismatch\); it was removed; loading the fixture file$/);
  assert.match(full.report.notices[1], /^snapshot not written: the snapshot of .*tables\.jsonl/);
  assert.deepEqual(statuses(full.report)[0], ['tables.jsonl', 'not-written']);
  assert.equal(existsSync(file), false);
});

test('not kept: a load that drew ids or times (records without id or created_at), a file under the threshold, a store that holds the kind, turned off', async () => {
  const dir = kindsDir({ objects: [OBJECTS[0].replace(/"created_at":"[^"]+",/, '')], costs: [COSTS[0].replace('"id":"price-1",', '')] });
  const s = settings();
  const r = await load(dir, s);
  assert.deepEqual(r.report.images.map((i) => [i.status, 'reason' in i ? i.reason : '']), [
    ['not-written', `${join(dir, 'objects.jsonl')} has records without id or created_at (fresh ones are drawn on every load)`],
    ['not-written', `${join(dir, 'costs.jsonl')} has records without id or created_at (fresh ones are drawn on every load)`],
  ]);
  assert.deepEqual(r.report.notices, []);
  assert.equal(existsSync(s.dir), false);
  const big = kindsDir();
  const size = statSync(join(big, 'tables.jsonl')).size;
  const over = settings({ minBytes: size });
  assert.deepEqual(statuses((await load(big, over)).report), [['tables.jsonl', 'written'], ['objects.jsonl', 'off'], ['costs.jsonl', 'off']]);
  // A store that already holds tables (a --data directory's journal never precedes its fixtures; a library caller might).
  const e = engine();
  await loadFixtureFiles(e, big, fixtureFilesIn(big).filter((f) => f.kind === 'objects'));
  const held = await loadFixtureFilesWithSnapshot(e, big, fixtureFilesIn(big), over);
  assert.deepEqual(held.snapshot, { status: 'off', reason: 'store not empty' });
  assert.deepEqual(held.images, []);
  assert.deepEqual((await load(big, settings({ enabled: false }))).report.images, []);
});

test('a snapshot larger than the cache bound is not written, and that is said once', async () => {
  const dir = kindsDir({ tables: TABLES });
  const s = settings({ maxCacheBytes: 1000 });
  const r = await load(dir, s);
  assert.equal(r.report.images[0].status, 'not-written');
  assert.equal(r.report.notices.length, 1);
  assert.match(r.report.notices[0], /^snapshot not written: the snapshot of .*tables\.jsonl would be larger than the cache bound \(1000 bytes; TQ_SNAPSHOT_MAX_BYTES sets it\)$/);
  assert.deepEqual((await load(dir, s)).report.notices, []);
  // Nothing is left behind: no snapshot, no temporary file.
  assert.deepEqual(readdirSync(s.dir), []);
});
