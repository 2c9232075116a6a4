/**
 * How `tq serve --data` runs a write: apply it in memory (the route, recording what it drew),
 * append its record, and resolve only once the record is fsync'd, so the HTTP front end sends
 * the 2xx after that. Reads are not held back: they run at once, and may see a write whose
 * acknowledgement is still waiting for its fsync (docs/durability.md).
 *
 * A disk error makes the write a 503 (TQ_JOURNAL_UNAVAILABLE, with the cause), logged once
 * per error code. While the journal is failing, a new write first retries the failed records;
 * if the disk still fails, the write is refused before it runs, so memory never runs ahead of
 * the journal by more than the failed round.
 */
import type { Engine, PreparedRequest, RequestBody, RequestContext, Route, RouteResult } from '../api/types.ts';
import { TqError, tqError } from '../core/errors.ts';
import { runRecorded } from './apply.ts';
import { encodeRecord, type RouteParams } from './record.ts';
import type { JournalWriter } from './writer.ts';

export interface WriteRunner {
  /** `prepared`: the route's first half, already run off the event loop on `body` (src/server/off-loop.ts). */
  runWrite(route: Route, body: RequestBody, ctx: RequestContext, params?: RouteParams, prepared?: PreparedRequest): Promise<RouteResult>;
}

const causeOf = (e: unknown) => {
  const err = e as NodeJS.ErrnoException;
  const message = String(err?.message ?? e);
  // Node's own errors already start with their code ("ENOSPC: no space left on device, write").
  return err?.code && !message.startsWith(err.code) ? `${err.code}: ${message}` : message;
};

export class DurableWrites implements WriteRunner {
  private readonly logged = new Set<string>();

  constructor(
    private readonly engine: Engine,
    /** null: DIR is not writable (`readOnly` says why); every write is a 503. */
    private readonly writer: JournalWriter | null,
    private readonly log: (message: string) => void,
    private readonly readOnly?: Error,
    /** Called after each acknowledged write (the background compactor's size check). */
    private readonly afterWrite: () => void = () => {},
  ) {}

  /** fsyncs done so far (the bench reports writes per fsync). */
  get fsyncs(): number {
    return this.writer?.syncs ?? 0;
  }

  private unavailable(e: unknown): TqError {
    const code = (e as NodeJS.ErrnoException)?.code ?? 'ERROR';
    const cause = causeOf(e);
    if (!this.logged.has(code)) {
      this.logged.add(code);
      this.log(`journal: write failed (${cause}); writes answer 503 until the disk recovers, reads keep working`);
    }
    return tqError('TQ_JOURNAL_UNAVAILABLE', { cause });
  }

  async runWrite(route: Route, body: RequestBody, ctx: RequestContext, params: RouteParams = {}, prepared?: PreparedRequest): Promise<RouteResult> {
    const writer = this.writer;
    if (writer === null) throw this.unavailable(this.readOnly);
    if (!writer.healthy()) {
      try {
        await writer.heal();
      } catch (e) {
        throw this.unavailable(e);
      }
    }
    const { result, record } = runRecorded(route, this.engine, body, ctx, params, prepared);
    try {
      await writer.append(encodeRecord(record));
    } catch (e) {
      throw this.unavailable(e);
    }
    this.afterWrite();
    return result;
  }
}
