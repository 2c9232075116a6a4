/**
 * `tq serve --data DIR`: opens DIR for writing (lock, load, replay, repair) and builds what
 * the HTTP server needs to journal every write before acknowledging it.
 */
import { resolve } from 'node:path';
import type { Engine, FieldPrefix } from '../api/types.ts';
import { openDataDir } from '../journal/data-dir.ts';
import type { SnapshotSettings } from '../io/snapshot/cache.ts';
import { BackgroundCompactor, workerCompaction } from '../journal/background.ts';
import { DurableWrites } from '../journal/durable-writes.ts';
import { JournalWriter } from '../journal/writer.ts';

export interface ServedData {
  engine: Engine;
  writes: DurableWrites;
  /** One line for the start-up banner. */
  banner: string;
  /** Waits for pending records, closes the journal, releases the lock. */
  close(): Promise<void>;
}

/** `compactAtBytes`: compact in the background once the journal segment reaches that size. */
export async function openServedData(dir: string, fieldPrefix: FieldPrefix, say: (message: string) => void, compactAtBytes?: number, snapshot?: SnapshotSettings): Promise<ServedData> {
  const path = resolve(dir);
  const opened = await openDataDir(path, { fieldPrefix, writable: true, say, snapshot });
  let writer: JournalWriter | null = null;
  let readOnly = opened.readOnly;
  if (readOnly === undefined) {
    try {
      writer = await JournalWriter.open(opened.active.file, opened.active.length);
    } catch (e) {
      readOnly = e as Error;
    }
  }
  const counts = opened.engine.store.counts();
  const banner =
    opened.stoppedAt !== undefined
      ? `data: ${path}: replay stopped at ${opened.stoppedAt.file}:${opened.stoppedAt.line} (${opened.replayed} records before it replayed); serving read-only, writes answer 503`
      : readOnly === undefined
      ? `data: ${path} (${counts.calls} calls, ${opened.replayed} journaled writes replayed); a write is acknowledged once it is fsync'd to ${opened.active.file}`
      : `data: ${path} is not writable (${(readOnly as NodeJS.ErrnoException).code ?? readOnly.message}): serving what it holds; writes answer 503`;
  const compactor = writer !== null && compactAtBytes !== undefined ? new BackgroundCompactor(path, compactAtBytes, writer, say, workerCompaction(fieldPrefix)) : null;
  return {
    engine: opened.engine,
    writes: new DurableWrites(opened.engine, writer, say, readOnly, () => compactor?.check()),
    banner: compactor ? `${banner}; compacted in the background past ${compactAtBytes} bytes` : banner,
    async close() {
      await compactor?.idle();
      await writer?.close();
      opened.release();
    },
  };
}
