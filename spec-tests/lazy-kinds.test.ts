/**
 * Lazy fixture kinds (load/kinds-needed.ts) against loading everything, over the whole corpus:
 * every query case's data (after its setup writes) is written out as fixture files, as `tq dump`
 * writes them; one engine loads every file, another only the kinds kindsNeeded picks for the
 * case's request; both answer the request, and the answers must be the same bytes.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import type { CaseRequest } from '../src/check/case.ts';
import { createEngineTarget } from '../src/check/engine-target.ts';
import { runCases } from '../src/check/runner.ts';
import { fixtureFilesIn, loadFixtureFiles } from '../src/io/load-fixtures.ts';
import { filesForKinds, FIXTURE_KINDS, type FixtureKind } from '../src/load/fixture-kinds.ts';
import { kindsNeeded } from '../src/load/kinds-needed.ts';
import type { Engine } from '../src/api/types.ts';
import { BUNDLE_PATH, type CaseBundle } from './bundle.ts';
import { dumpedCaseTarget, freshEngine } from './dumped-case.testing.ts';

const bundle = JSON.parse(readFileSync(BUNDLE_PATH, 'utf8')) as CaseBundle;

/** The routes whose answers kindsNeeded narrows. */
const QUERY_PATHS = new Set(['/calls/stream_query', '/calls/query', '/calls/query_stats', '/threads/stream_query', '/table/query_stream', '/table/query', '/objs/query']);

async function engineFrom(dir: string, kinds: readonly FixtureKind[]): Promise<Engine> {
  const engine = freshEngine();
  await loadFixtureFiles(engine, dir, filesForKinds(fixtureFilesIn(dir), kinds));
  return engine;
}

const bodyText = (req: CaseRequest) => req.body_text ?? JSON.stringify(req.body ?? null);

const mismatches: string[] = [];
const compared = new Map<string, number>();
const notDumpable: string[] = [];

/** Each query case's data loaded whole and with only the kinds its request needs. */
const lazyTarget = () =>
  dumpedCaseTarget({
    name: 'lazy-kinds',
    queryPaths: QUERY_PATHS,
    skipReason: 'not a query a command loads for',
    notDumpable: (name) => notDumpable.push(name),
    async compare(dir, req, name) {
      const kinds = kindsNeeded(req.path, bodyText(req));
      const all = await createEngineTarget({ engine: await engineFrom(dir, FIXTURE_KINDS) }).send(req);
      const lazy = await createEngineTarget({ engine: await engineFrom(dir, kinds) }).send(req);
      if (JSON.stringify(lazy) !== JSON.stringify(all)) mismatches.push(`${name} (loaded ${kinds.join(',')}): ${JSON.stringify(lazy).slice(0, 200)} vs ${JSON.stringify(all).slice(0, 200)}`);
      compared.set(kinds.join(','), (compared.get(kinds.join(',')) ?? 0) + 1);
    },
  });

test('every query case answers the same bytes from the kinds its request needs as from every kind', async () => {
  const target = lazyTarget();
  const report = await runCases(bundle.cases, target).finally(() => target.cleanup());
  assert.deepEqual(report.failed, []);
  assert.deepEqual(mismatches, []);
  const total = [...compared.values()].reduce((a, b) => a + b, 0);
  assert.ok(total > 300, `${total} cases compared`);
  // The narrowing is exercised: calls alone, with feedback, with costs, with expansions; tables alone.
  for (const kinds of ['calls', 'calls,feedback', 'calls,costs', 'calls,tables,objects', 'tables', 'objects']) {
    assert.ok((compared.get(kinds) ?? 0) > 0, `no case loaded exactly ${kinds}: ${JSON.stringify([...compared])}`);
  }
  assert.ok(notDumpable.length < 10, `cases whose data fixture files cannot hold: ${notDumpable.join(', ')}`);
});
