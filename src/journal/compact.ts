/**
 * Compaction (`tq dump`): the store written as plain fixture files plus a base journal for
 * what fixtures cannot hold (snapshot.ts), so a data directory's journal starts empty again.
 *
 * Crash safety: every file is written new and fsync'd before anything old is touched.
 * In place (`tq dump --data DIR`): the snapshot goes to DIR/compact.tmp with a manifest naming
 * the newest segment it covers; the rename to DIR/compact.ready is the commit point; then the
 * files are moved over the old ones and the covered segments deleted (data-dir.ts
 * finishCompaction, which the next start also runs). A kill before the rename leaves the old
 * data (compact.tmp is discarded on start); after it, the new data.
 * To another directory (`--out DIR2`): written to a temp directory beside DIR2, renamed.
 */
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Engine } from '../api/types.ts';
import { createEngine } from '../engine.ts';
import { FIXTURE_KINDS as KINDS } from '../io/load-fixtures.ts';
import { BASE_JOURNAL, COMPACT_READY, COMPACT_TMP, finishCompaction, MANIFEST } from './data-dir.ts';
import { syncDir } from './sync-dir.ts';
import { replayRecord } from './apply.ts';
import { encodeRecord } from './record.ts';
import { snapshot, SnapshotError } from './snapshot.ts';
import { loadFixtureFiles, fixtureFilesIn } from '../io/load-fixtures.ts';
import { readJournal } from './read.ts';

async function writeSynced(file: string, chunks: Iterable<string>): Promise<void> {
  const handle = await open(file, 'w');
  try {
    let buffered: string[] = [];
    let size = 0;
    for (const chunk of chunks) {
      buffered.push(chunk, '\n');
      size += chunk.length;
      if (size > 1 << 22) {
        await handle.write(buffered.join(''));
        buffered = [];
        size = 0;
      }
    }
    if (buffered.length > 0) await handle.write(buffered.join(''));
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Loads a written snapshot into a fresh engine (the check that it reproduces the store). */
async function reload(dir: string, engine: Engine): Promise<Engine> {
  const copy = createEngine(undefined, { fieldPrefix: engine.options.fieldPrefix });
  await loadFixtureFiles(copy, dir, fixtureFilesIn(dir));
  const base = join(dir, BASE_JOURNAL);
  if (existsSync(base)) await readJournal(base, (record) => replayRecord(copy, record));
  return copy;
}

/**
 * Writes the store's snapshot into `dir` (created; must not hold one already), fsync'd, and
 * checks that loading it back gives the same snapshot: a dump that would lose anything fails
 * here, before any old data is replaced.
 */
async function writeSnapshot(engine: Engine, dir: string): Promise<{ calls: number }> {
  mkdirSync(dir, { recursive: true });
  const snap = snapshot(engine.store);
  for (const kind of KINDS) await writeSynced(join(dir, `${kind}.jsonl`), snap.lines[kind]);
  await writeSynced(join(dir, BASE_JOURNAL), snap.records.map(encodeRecord));
  await syncDir(dir);
  const again = snapshot((await reload(dir, engine)).store);
  for (const kind of KINDS) {
    const a = snap.lines[kind], b = again.lines[kind];
    const i = a.findIndex((line, k) => line !== b[k]);
    if (a.length !== b.length || i >= 0) throw new SnapshotError(`the dump does not load back to the same store (${kind} record ${(i >= 0 ? i : Math.min(a.length, b.length)) + 1} differs)`);
  }
  if (snap.records.map(encodeRecord).join('\n') !== again.records.map(encodeRecord).join('\n')) throw new SnapshotError('the dump does not load back to the same store (base journal differs)');
  return { calls: snap.lines.calls.length };
}

/** `tq dump --out DIR2`: DIR2 must not exist; it appears complete or not at all. */
export async function dumpTo(engine: Engine, out: string): Promise<{ calls: number }> {
  if (existsSync(out) && readdirSync(out).length > 0) throw new SnapshotError(`${out} exists and is not empty; choose a new directory`);
  const temp = join(dirname(out), `.${basename(out)}.tmp-${process.pid}`);
  rmSync(temp, { recursive: true, force: true });
  try {
    const result = await writeSnapshot(engine, temp);
    if (existsSync(out)) rmSync(out, { recursive: true });
    renameSync(temp, out);
    await syncDir(dirname(out));
    return result;
  } catch (e) {
    rmSync(temp, { recursive: true, force: true });
    throw e;
  }
}

/** Step 1 of an in-place compaction: the snapshot and its manifest, in DIR/compact.tmp. */
export async function prepareCompaction(engine: Engine, dir: string, through: number): Promise<{ calls: number }> {
  const temp = join(dir, COMPACT_TMP);
  rmSync(temp, { recursive: true, force: true });
  try {
    const result = await writeSnapshot(engine, temp);
    await writeSynced(join(temp, MANIFEST), [JSON.stringify({ through })]);
    await syncDir(temp);
    return result;
  } catch (e) {
    rmSync(temp, { recursive: true, force: true });
    throw e;
  }
}

/** Step 2, the commit point: compact.tmp becomes compact.ready. */
export async function commitCompaction(dir: string): Promise<void> {
  renameSync(join(dir, COMPACT_TMP), join(dir, COMPACT_READY));
  await syncDir(dir);
}

/** All three steps (the caller holds DIR's lock and `engine` holds segments up to `through`). */
export async function compactInPlace(engine: Engine, dir: string, through: number): Promise<{ calls: number }> {
  const result = await prepareCompaction(engine, dir, through);
  await commitCompaction(dir);
  await finishCompaction(dir);
  return result;
}
