/**
 * Lazy fixture kinds (load/kinds-needed.ts) against loading everything, over the whole corpus:
 * every query case's data (after its setup writes) is written out as fixture files, as `tq dump`
 * writes them; one engine loads every file, another only the kinds kindsNeeded picks for the
 * case's request; both answer the request, and the answers must be the same bytes.
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
import { snapshot, SnapshotError } from '../src/journal/snapshot.ts';
import { filesForKinds, FIXTURE_KINDS, type FixtureKind } from '../src/load/fixture-kinds.ts';
import { kindsNeeded } from '../src/load/kinds-needed.ts';
import type { Engine } from '../src/api/types.ts';
import { BUNDLE_PATH, type CaseBundle } from './bundle.ts';

const bundle = JSON.parse(readFileSync(BUNDLE_PATH, 'utf8')) as CaseBundle;
const scratch = mkdtempSync(join(tmpdir(), 'tq-lazy-kinds-'));
process.on('exit', () => rmSync(scratch, { recursive: true, force: true }));

/** The routes whose answers kindsNeeded narrows. */
const QUERY_PATHS = new Set(['/calls/stream_query', '/calls/query', '/calls/query_stats', '/threads/stream_query', '/table/query_stream', '/table/query', '/objs/query']);

function freshEngine(): Engine {
  let id = 0;
  return createEngine(undefined, { now: () => 1.9e15, newId: () => `00000000-0000-7000-8000-${String(++id).padStart(12, '0')}` });
}

async function engineFrom(dir: string, kinds: readonly FixtureKind[]): Promise<Engine> {
  const engine = freshEngine();
  await loadFixtureFiles(engine, dir, filesForKinds(fixtureFilesIn(dir), kinds));
  return engine;
}

const bodyText = (req: CaseRequest) => req.body_text ?? JSON.stringify(req.body ?? null);

const mismatches: string[] = [];
const compared = new Map<string, number>();
const notDumpable: string[] = [];
let current = '';
let dirs = 0;

/** A target that starts each case on an empty engine (so each case's dump holds its own data). */
function lazyTarget(): Target {
  let inner = createEngineTarget();
  return {
    ...inner,
    name: 'lazy-kinds',
    skipReason(c: ConformanceCase) {
      current = c.name;
      inner = createEngineTarget();
      if (c.tags.includes(TRANSPORT_TAG) || !QUERY_PATHS.has(c.request.path)) return 'not a query a command loads for';
      return undefined;
    },
    async send(req: CaseRequest): Promise<TargetResponse> {
      if (!QUERY_PATHS.has(req.path)) return inner.send(req);
      let lines;
      try {
        lines = snapshot(inner.engine.store).lines;
      } catch (e) {
        if (!(e instanceof SnapshotError)) throw e;
        notDumpable.push(current);
        return inner.send(req);
      }
      const dir = join(scratch, `case-${++dirs}`);
      mkdirSync(dir);
      for (const kind of FIXTURE_KINDS) if (lines[kind].length > 0) writeFileSync(join(dir, `${kind}.jsonl`), lines[kind].join('\n') + '\n');
      const kinds = kindsNeeded(req.path, bodyText(req));
      const all = await createEngineTarget({ engine: await engineFrom(dir, FIXTURE_KINDS) }).send(req);
      const lazy = await createEngineTarget({ engine: await engineFrom(dir, kinds) }).send(req);
      if (JSON.stringify(lazy) !== JSON.stringify(all)) mismatches.push(`${current} (loaded ${kinds.join(',')}): ${JSON.stringify(lazy).slice(0, 200)} vs ${JSON.stringify(all).slice(0, 200)}`);
      compared.set(kinds.join(','), (compared.get(kinds.join(',')) ?? 0) + 1);
      rmSync(dir, { recursive: true, force: true });
      return inner.send(req);
    },
  };
}

test('every query case answers the same bytes from the kinds its request needs as from every kind', async () => {
  const report = await runCases(bundle.cases, lazyTarget());
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
