/**
 * `tq serve --data DIR --compact-at MB`: once the journal segment being appended to holds that
 * many bytes, the writer moves on to a new segment and a worker thread compacts everything up
 * to the sealed one (compact-sealed.ts), so neither reads nor writes wait for it. One
 * compaction at a time; a failed one is logged and the journal simply keeps growing (nothing
 * is lost: the old files stay until the new ones are complete).
 */
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { FieldPrefix } from '../api/types.ts';
import { segmentName, segmentSeq } from './data-dir.ts';
import type { JournalWriter } from './writer.ts';

export type CompactRunner = (dir: string, through: number) => Promise<{ calls: number }>;

/** Runs compactSealed in a worker thread. */
export function workerCompaction(fieldPrefix: FieldPrefix): CompactRunner {
  return (dir, through) =>
    new Promise((resolve, reject) => {
      const worker = new Worker(new URL('./compact-worker.mjs', import.meta.url), { workerData: { dir, through, fieldPrefix } });
      worker.once('message', (m: { ok: boolean; calls?: number; message?: string }) => (m.ok ? resolve({ calls: m.calls! }) : reject(new Error(m.message))));
      worker.once('error', reject);
      worker.once('exit', (code) => reject(new Error(`the compaction worker exited with code ${code}`)));
    });
}

export class BackgroundCompactor {
  private running: Promise<void> | null = null;

  constructor(
    private readonly dir: string,
    private readonly thresholdBytes: number,
    private readonly writer: JournalWriter,
    private readonly log: (message: string) => void,
    private readonly run: CompactRunner,
  ) {}

  /** Starts a compaction when the current segment has reached the threshold. */
  check(): void {
    if (this.running !== null || this.writer.size < this.thresholdBytes) return;
    this.running = this.compact().finally(() => {
      this.running = null;
    });
  }

  /** Resolves when no compaction is running. */
  async idle(): Promise<void> {
    while (this.running !== null) await this.running;
  }

  private async compact(): Promise<void> {
    const sealed = segmentSeq(this.writer.currentFile);
    const started = performance.now();
    try {
      await this.writer.rotate(join(this.dir, segmentName(sealed + 1)));
      const { calls } = await this.run(this.dir, sealed);
      this.log(`journal: compacted ${segmentName(sealed)} and older into the fixture files in the background (${calls} calls, ${Math.round(performance.now() - started)} ms)`);
    } catch (e) {
      this.log(`journal: background compaction failed (${(e as Error).message}); the journal keeps growing, nothing is lost`);
    }
  }
}
