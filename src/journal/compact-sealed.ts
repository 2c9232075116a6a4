/**
 * Background compaction's work (run in a worker thread by background.ts): rebuild the store
 * as of the newest sealed segment from files alone (base + segments up to `through`), then
 * compact it in place. The server meanwhile appends to the segment after `through`, which
 * this never reads or touches.
 */
import type { FieldPrefix } from '../api/types.ts';
import { createEngine } from '../engine.ts';
import { loadFixtureFiles } from '../io/load-fixtures.ts';
import { replayRecord } from './apply.ts';
import { compactInPlace } from './compact.ts';
import { currentView, segmentSeq } from './data-dir.ts';
import { readJournal } from './read.ts';

export async function compactSealed(dir: string, through: number, fieldPrefix: FieldPrefix): Promise<{ calls: number }> {
  const { fixtures, journals } = currentView(dir);
  const engine = createEngine(undefined, { fieldPrefix });
  await loadFixtureFiles(engine, dir, fixtures);
  for (const file of journals) {
    if (segmentSeq(file) <= through) await readJournal(file, (record) => replayRecord(engine, record));
  }
  return compactInPlace(engine, dir, through);
}
