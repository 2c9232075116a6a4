/**
 * Load snapshots of the tables, objects and costs files (src/io/snapshot/kind-image.ts) against
 * a fresh load, over the whole corpus: every query case's data (after its setup writes) is
 * written out as fixture files, as `tq dump` writes them; one engine loads them from the files,
 * a second loads them through the snapshot cache (writing every snapshot), a third restores from
 * it. The third must hold exactly what the first holds (rows, tables, object versions, prices,
 * project order: deep equality, number spelling included) and answer the case's request with
 * the same bytes.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { CaseRequest, ConformanceCase } from '../src/check/case.ts';
import { createEngineTarget } from '../src/check/engine-target.ts';
import { runCases } from '../src/check/runner.ts';
import { TRANSPORT_TAG, type Target, type TargetResponse } from '../src/check/target.ts';
import { createEngine } from '../src/engine.ts';
import { fixtureFilesIn, loadFixtureFiles } from '../src/io/load-fixtures.ts';
import { loadFixtureFilesWithSnapshot, type SnapshotLoadReport } from '../src/io/snapshot/load.ts';
import { imagedState } from '../src/io/snapshot/kind-image.testing.ts';
import { snapshot, SnapshotError } from '../src/journal/snapshot.ts';
import { FIXTURE_KINDS } from '../src/load/fixture-kinds.ts';
import type { Engine } from '../src/api/types.ts';
import { BUNDLE_PATH, type CaseBundle } from './bundle.ts';

const bundle = JSON.parse(readFileSync(BUNDLE_PATH, 'utf8')) as CaseBundle;
const scratch = mkdtempSync(join(tmpdir(), 'tq-kind-images-'));
process.on('exit', () => rmSync(scratch, { recursive: true, force: true }));

const QUERY_PATHS = new Set(['/calls/stream_query', '/calls/query', '/calls/query_stats', '/threads/stream_query', '/table/query_stream', '/table/query', '/objs/query', '/obj/read', '/table/query_stats']);

function freshEngine(): Engine {
  let id = 0;
  return createEngine(undefined, { now: () => 1.9e15, newId: () => `00000000-0000-7000-8000-${String(++id).padStart(12, '0')}` });
}

const mismatches: string[] = [];
const outcomes = new Map<string, number>();
let current = '';
let dirs = 0;

async function throughCache(dir: string, cache: string): Promise<{ engine: Engine; report: SnapshotLoadReport }> {
  const engine = freshEngine();
  // The files were just written: a clock 10 s ahead lets them be snapshotted (the 2 s rule).
  const report = await loadFixtureFilesWithSnapshot(engine, dir, fixtureFilesIn(dir), { enabled: true, dir: cache, minBytes: 0, maxCacheBytes: 1 << 30 }, undefined, () => Date.now() + 10_000);
  return { engine, report };
}

function imageTarget(): Target {
  let inner = createEngineTarget();
  return {
    ...inner,
    name: 'kind-images',
    skipReason(c: ConformanceCase) {
      current = c.name;
      inner = createEngineTarget();
      if (c.tags.includes(TRANSPORT_TAG) || !QUERY_PATHS.has(c.request.path)) return 'not a query';
      return undefined;
    },
    async send(req: CaseRequest): Promise<TargetResponse> {
      if (!QUERY_PATHS.has(req.path)) return inner.send(req);
      let lines;
      try {
        lines = snapshot(inner.engine.store).lines;
      } catch (e) {
        if (!(e instanceof SnapshotError)) throw e;
        return inner.send(req);
      }
      if (lines.tables.length + lines.objects.length + lines.costs.length === 0) return inner.send(req);
      const dir = join(scratch, `case-${++dirs}`);
      const cache = join(scratch, `cache-${dirs}`);
      mkdirSync(dir);
      for (const kind of FIXTURE_KINDS) if (lines[kind].length > 0) writeFileSync(join(dir, `${kind}.jsonl`), lines[kind].join('\n') + '\n');
      const fresh = freshEngine();
      await loadFixtureFiles(fresh, dir, fixtureFilesIn(dir));
      const first = await throughCache(dir, cache);
      const second = await throughCache(dir, cache);
      for (const image of [...first.report.images, ...second.report.images]) {
        const key = `${image.status}${'reason' in image ? ` (${image.reason.replace(/\/\S+/g, 'FILE')})` : ''}`;
        outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
      }
      try {
        assert.deepStrictEqual(imagedState(second.engine.store), imagedState(fresh.store));
      } catch (e) {
        mismatches.push(`${current}: stored state differs: ${(e as Error).message.slice(0, 400)}`);
      }
      const want = await createEngineTarget({ engine: fresh }).send(req);
      const got = await createEngineTarget({ engine: second.engine }).send(req);
      if (JSON.stringify(got) !== JSON.stringify(want)) mismatches.push(`${current}: ${JSON.stringify(got).slice(0, 200)} vs ${JSON.stringify(want).slice(0, 200)}`);
      rmSync(dir, { recursive: true, force: true });
      rmSync(cache, { recursive: true, force: true });
      return inner.send(req);
    },
  };
}

test('every query case holds and answers the same from the tables, objects and costs snapshots as from the files', async () => {
  const report = await runCases(bundle.cases, imageTarget());
  assert.deepEqual(report.failed, []);
  assert.deepEqual(mismatches, []);
  // Restored often, and written for every kind; a file whose load drew ids or times is not kept.
  assert.ok((outcomes.get('restored') ?? 0) > 100, JSON.stringify([...outcomes]));
  assert.ok((outcomes.get('written') ?? 0) > 100, JSON.stringify([...outcomes]));
  assert.deepEqual([...outcomes.keys()].filter((k) => !/^(restored|written|not-written \(FILE has records without id or created_at)/.test(k)), [], JSON.stringify([...outcomes]));
});
