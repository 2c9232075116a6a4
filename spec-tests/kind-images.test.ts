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
import { readFileSync, rmSync } from 'node:fs';
import { test } from 'node:test';
import { createEngineTarget } from '../src/check/engine-target.ts';
import { runCases } from '../src/check/runner.ts';
import { fixtureFilesIn, loadFixtureFiles } from '../src/io/load-fixtures.ts';
import { loadFixtureFilesWithSnapshot, type SnapshotLoadReport } from '../src/io/snapshot/load.ts';
import { imagedState } from '../src/io/snapshot/kind-image.testing.ts';
import type { Engine } from '../src/api/types.ts';
import { BUNDLE_PATH, type CaseBundle } from './bundle.ts';
import { dumpedCaseTarget, freshEngine } from './dumped-case.testing.ts';

const bundle = JSON.parse(readFileSync(BUNDLE_PATH, 'utf8')) as CaseBundle;

const QUERY_PATHS = new Set(['/calls/stream_query', '/calls/query', '/calls/query_stats', '/threads/stream_query', '/table/query_stream', '/table/query', '/objs/query', '/obj/read', '/table/query_stats']);

const mismatches: string[] = [];
const outcomes = new Map<string, number>();

async function throughCache(dir: string, cache: string): Promise<{ engine: Engine; report: SnapshotLoadReport }> {
  const engine = freshEngine();
  // The files were just written: a clock 10 s ahead lets them be snapshotted (the 2 s rule).
  const report = await loadFixtureFilesWithSnapshot(engine, dir, fixtureFilesIn(dir), { enabled: true, dir: cache, minBytes: 0, maxCacheBytes: 1 << 30 }, undefined, () => Date.now() + 10_000);
  return { engine, report };
}

/** Each query case's data loaded from the files, then through the snapshot cache twice (written, restored). */
const imageTarget = () =>
  dumpedCaseTarget({
    name: 'kind-images',
    queryPaths: QUERY_PATHS,
    skipReason: 'not a query',
    async compare(dir, req, name, lines) {
      if (lines.tables.length + lines.objects.length + lines.costs.length === 0) return;
      const cache = `${dir}-cache`;
      try {
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
          mismatches.push(`${name}: stored state differs: ${(e as Error).message.slice(0, 400)}`);
        }
        const want = await createEngineTarget({ engine: fresh }).send(req);
        const got = await createEngineTarget({ engine: second.engine }).send(req);
        if (JSON.stringify(got) !== JSON.stringify(want)) mismatches.push(`${name}: ${JSON.stringify(got).slice(0, 200)} vs ${JSON.stringify(want).slice(0, 200)}`);
      } finally {
        rmSync(cache, { recursive: true, force: true });
      }
    },
  });

test('every query case holds and answers the same from the tables, objects and costs snapshots as from the files', async () => {
  const target = imageTarget();
  const report = await runCases(bundle.cases, target).finally(() => target.cleanup());
  assert.deepEqual(report.failed, []);
  assert.deepEqual(mismatches, []);
  // Restored often, and written for every kind; a file whose load drew ids or times is not kept.
  assert.ok((outcomes.get('restored') ?? 0) > 100, JSON.stringify([...outcomes]));
  assert.ok((outcomes.get('written') ?? 0) > 100, JSON.stringify([...outcomes]));
  assert.deepEqual([...outcomes.keys()].filter((k) => !/^(restored|written|not-written \(FILE has records without id or created_at)/.test(k)), [], JSON.stringify([...outcomes]));
});
