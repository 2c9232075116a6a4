/**
 * Appending to the journal with group commit: records appended while a write+fsync is in
 * flight wait together and share the next one, so N concurrent writers cost about one fsync
 * per round, not N. `append` resolves once the record is on disk (fdatasync returned).
 *
 * A failed write or fsync (ENOSPC, EIO, EROFS...) rejects every record of that round. Those
 * records were already applied in memory, and later writes may build on them, so they are
 * kept and written again, first, by the next round; the file is cut back to its last durable
 * length before each retry, so a partial append never stays in the middle of the journal.
 * While the journal is failing, `healthy()` is false and the front end refuses new writes
 * until `heal()` succeeds.
 */
import { open, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { syncDir } from './sync-dir.ts';

/** The file operations the writer needs; tests inject failing ones. */
export interface JournalIo {
  write(handle: FileHandle, bytes: Buffer): Promise<void>;
  sync(handle: FileHandle): Promise<void>;
  truncate(handle: FileHandle, length: number): Promise<void>;
}

export const fileIo: JournalIo = {
  async write(handle, bytes) {
    let done = 0;
    while (done < bytes.length) done += (await handle.write(bytes, done, bytes.length - done)).bytesWritten;
  },
  sync: (handle) => handle.datasync(),
  truncate: (handle, length) => handle.truncate(length),
};

interface Waiter {
  resolve: () => void;
  reject: (e: unknown) => void;
}

export class JournalWriter {
  /** Lines applied in memory but not yet durable (a failed round's), written first next time. */
  private unwritten: string[] = [];
  /** Appends, heals (no lines) and segment switches (`rotateTo`), in order. */
  private queue: Array<{ lines: string[]; rotateTo?: string; waiter: Waiter }> = [];
  private flushing: Promise<void> | null = null;
  private failure: unknown = null;
  /** Rounds that reached the disk (for tests and the bench). */
  syncs = 0;

  private constructor(
    private file: string,
    private handle: FileHandle,
    /** Length of the file up to the last durable record. */
    private durableLength: number,
    private readonly io: JournalIo,
  ) {}

  /** Opens `file` for appending (created if missing); `length` is its current valid length. */
  static async open(file: string, length: number, io: JournalIo = fileIo): Promise<JournalWriter> {
    const handle = await open(file, 'a', 0o600);
    // The file may be new: its directory entry must survive a power loss too.
    await syncDir(dirname(file));
    return new JournalWriter(file, handle, length, io);
  }

  /** Bytes of durable records in the file. */
  get size(): number {
    return this.durableLength;
  }

  healthy(): boolean {
    return this.failure === null;
  }

  /** Appends one record (a line without `\n`); resolves when it is durable. */
  append(line: string): Promise<void> {
    return this.enqueue([line]);
  }

  /** Retries the records of failed rounds; throws the disk's error if it still fails. */
  heal(): Promise<void> {
    return this.enqueue([]);
  }

  /**
   * Continues in a new segment file: records appended before this call go to the current
   * file (and are durable when it resolves), later ones to `file`. Refused while failing,
   * because the failed records belong to the current file.
   */
  rotate(file: string): Promise<void> {
    return this.enqueue([], file);
  }

  /** The segment being appended to. */
  get currentFile(): string {
    return this.file;
  }

  private enqueue(lines: string[], rotateTo?: string): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ lines, ...(rotateTo !== undefined ? { rotateTo } : {}), waiter: { resolve, reject } });
      this.flushing ??= this.flushLoop();
    });
  }

  private async switchTo(file: string): Promise<void> {
    if (this.failure !== null) throw this.failure;
    const handle = await open(file, 'a', 0o600);
    await syncDir(dirname(file));
    await this.handle.close();
    this.handle = handle;
    this.file = file;
    this.durableLength = 0;
  }

  /** Waits for every appended record, then closes the file. */
  async close(): Promise<void> {
    while (this.flushing) await this.flushing;
    await this.handle.close();
  }

  private async flushLoop(): Promise<void> {
    while (this.queue.length > 0) {
      if (this.queue[0].rotateTo !== undefined) {
        const { rotateTo, waiter } = this.queue.shift()!;
        await this.switchTo(rotateTo!).then(waiter.resolve, waiter.reject);
        continue;
      }
      const cut = this.queue.findIndex((q) => q.rotateTo !== undefined);
      const round = this.queue.splice(0, cut < 0 ? this.queue.length : cut);
      try {
        await this.writeRound(round.flatMap((r) => r.lines));
        for (const r of round) r.waiter.resolve();
      } catch (e) {
        for (const r of round) r.waiter.reject(e);
      }
    }
    this.flushing = null;
  }

  private async writeRound(lines: string[]): Promise<void> {
    const all = this.unwritten.concat(lines);
    const bytes = Buffer.from(all.length > 0 ? all.join('\n') + '\n' : '', 'utf8');
    try {
      if (this.failure !== null) await this.io.truncate(this.handle, this.durableLength);
      await this.io.write(this.handle, bytes);
      await this.io.sync(this.handle);
    } catch (e) {
      this.unwritten = all;
      this.failure = e;
      throw e;
    }
    this.unwritten = [];
    this.failure = null;
    this.durableLength += bytes.length;
    this.syncs++;
  }
}
