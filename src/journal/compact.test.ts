import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { findRoute } from '../routes.ts';
import { createEngine } from '../engine.ts';
import { testContext } from '../write/writes.testing.ts';
import { runRecorded } from './apply.ts';
import { compactInPlace, dumpTo } from './compact.ts';
import { openDataDir, segmentName } from './data-dir.ts';
import { encodeRecord } from './record.ts';
import { snapshot, SnapshotError } from './snapshot.ts';
import { tempDir } from '../io/temp-dir.testing.ts';

describe('a dump that would not load back the same', () => {
  it('is refused before anything is replaced (a table row holding NaN, stored as null)', async () => {
    const dir = tempDir('tq-compact-');
    const scratch = createEngine();
    const body = '{"table":{"project_id":"acme/one","rows":[{"a":NaN}]}}';
    const line = encodeRecord(runRecorded(findRoute('/table/create')!, scratch, { kind: 'text', text: body }, testContext()).record) + '\n';
    writeFileSync(join(dir, segmentName(1)), line);
    const opened = await openDataDir(dir, { fieldPrefix: 'svc_', writable: true, say: () => {} });
    try {
      await assert.rejects(compactInPlace(opened.engine, dir, opened.active.seq), /tables\.jsonl:1: table digest mismatch: the record says 42e4f47e\w+, its rows digest to 52dd45b6\w+$/);
      const out = join(tempDir('tq-compact-out-'), 'copy');
      await assert.rejects(dumpTo(opened.engine, out), /table digest mismatch/);
      assert.equal(existsSync(out), false);
      assert.deepEqual(readdirSync(join(out, '..')), [], 'no temp directory is left behind');
    } finally {
      opened.release();
    }
    assert.deepEqual(readdirSync(dir), [segmentName(1)]);
    assert.equal(readFileSync(join(dir, segmentName(1)), 'utf8'), line);
  });
});

describe('what fixture files cannot hold', () => {
  const withObject = () => {
    const engine = createEngine();
    runRecorded(findRoute('/obj/create')!, engine, { kind: 'text', text: '{"obj":{"project_id":"acme/one","object_id":"o","val":{"a":1}}}' }, testContext());
    return { engine, version: engine.store.project('acme/one')!.objects.get('o')![0] };
  };

  it('a deleted object version is written as created, and its deletion starts the fresh journal', async () => {
    const engine = createEngine(undefined, { now: () => 1_700_000_000_000_000 });
    const create = (a: number) =>
      runRecorded(findRoute('/obj/create')!, engine, { kind: 'text', text: `{"obj":{"project_id":"acme/one","object_id":"o","val":{"a":${a}}}}` }, testContext());
    create(1);
    create(2);
    const [first] = engine.store.project('acme/one')!.objects.get('o')!;
    engine.options.now = () => 1_700_000_000_123_456;
    runRecorded(findRoute('/obj/delete')!, engine, { kind: 'text', text: `{"project_id":"acme/one","object_id":"o","digests":["${first.digest}"]}` }, testContext());

    const { records } = snapshot(engine.store);
    assert.deepEqual(
      records.map((r) => [r.route, r.now, r.body.kind === 'text' ? JSON.parse(r.body.text) : null]),
      [['/obj/delete', [1_700_000_000_123_456], { project_id: 'acme/one', object_id: 'o', digests: [first.digest] }]],
    );
    const out = join(tempDir('tq-compact-out-'), 'copy');
    await dumpTo(engine, out);
    const reopened = await openDataDir(out, { fieldPrefix: 'svc_', writable: false, say: () => {} });
    try {
      const shape = (versions: typeof first[]) => versions.map((v) => [v.digest, v.versionIndex, v.deletedAtUs, v.isLatest]);
      assert.deepEqual(shape(reopened.engine.store.project('acme/one')!.objects.get('o')!), shape(engine.store.project('acme/one')!.objects.get('o')!));
    } finally {
      reopened.release();
    }
  });

  it('a version index that loading would renumber is refused', () => {
    const { engine, version } = withObject();
    version.versionIndex = 1;
    assert.throws(() => snapshot(engine.store), new SnapshotError('acme/one object o has version index 1 where fixture files would give it another; fixture files cannot hold it'));
  });
});

describe('number spellings in a dump (semantics.md#writes-number-spelling)', () => {
  it('a call line and an end still waiting for its start keep their stored parts as written', () => {
    const engine = createEngine();
    const run = (path: string, text: string) => runRecorded(findRoute(path)!, engine, { kind: 'text', text }, testContext());
    run('/call/start', '{"start":{"project_id":"acme/one","id":"c1","op_name":"op","started_at":"2024-01-01T00:00:00Z","attributes":{},"inputs":{"x":1.0}}}');
    run('/call/end', '{"end":{"project_id":"acme/one","id":"later","ended_at":"2024-01-01T00:00:01Z","output":{"y":2.50},"summary":{"z":1E2}}}');
    const { lines, records } = snapshot(engine.store);
    assert.match(lines.calls[0], /"inputs":\{"x":1\.0\}/);
    assert.deepEqual(
      records.map((r) => [r.route, r.body.kind === 'text' ? r.body.text : null]),
      [['/call/end', '{"end":{"project_id":"acme/one","id":"later","ended_at":"2024-01-01T00:00:01Z","exception":null,"svc_run_step_end":null,"output":{"y":2.5},"summary":{"z":100.0}}}']],
    );
  });
});
