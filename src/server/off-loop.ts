/**
 * Keeps one large write from holding the event loop (issue 22 §4): the first half of a split
 * route (Route.prepare: parse, validate, digest, derive stored texts) runs in a worker thread,
 * and only the second half (Route.runPrepared: authorize, store, journal) runs on the event
 * loop, in one turn. A 32 MiB /table/create held the loop for 1.2–2 s; it now holds it for
 * the store step alone (bench/loop-stall.ts, docs/limits.md).
 *
 * Why this keeps every guarantee of the synchronous path:
 * - answers: `prepare` is the very code `run` runs first (define-route.ts builds `run` as
 *   `runPrepared(prepare(…))`), so the same body gives the same result or the same refusal
 *   (the worker renders a refusal as the server would: status and JSON text);
 * - all or nothing, and order: `prepare` reads no store and draws no value; everything that
 *   depends on the store (which rows are new, the base of an update, a digest mismatch) and
 *   every change happens in `runPrepared`, in one synchronous step, and the journal record is
 *   appended in that same step. A small write that arrives while a big one is in the worker is
 *   stored and journaled before it, in both orders alike, so replay rebuilds the same store.
 * One worker, started at the first large body and stopped with the server; jobs run one at a
 * time (TakeTurns in server.ts already runs large bodies one after another). If the worker
 * cannot run a job (it failed to start, or crashed), the route runs on the event loop as before.
 */
import { Worker } from 'node:worker_threads';
import type { FieldPrefix, PreparedRequest } from '../api/types.ts';
import type { PrepareJob, PrepareOutcome } from './prepare-job.ts';

/** A refusal decided in the worker: the status and JSON text to send. */
export class PreparedRefusal extends Error {
  constructor(
    readonly status: number,
    readonly text: string,
  ) {
    super(`refused with ${status}`);
  }
}

/** The worker could not run the job: run the route on the event loop instead. */
export class OffLoopUnavailable extends Error {}

export class OffLoop {
  #worker: Worker | undefined;
  #nextId = 1;
  readonly #pending = new Map<number, { resolve: (p: PreparedRequest) => void; reject: (e: Error) => void }>();

  /**
   * Prepares a request in the worker. `headers`: for a binary route, the request headers it reads.
   * @throws PreparedRefusal when the route refuses the body (422, 400, ...);
   *   OffLoopUnavailable when the worker cannot run it.
   */
  prepare(path: string, bytes: Uint8Array, prefix: FieldPrefix, params: Record<string, string>, headers?: Record<string, string>): Promise<PreparedRequest> {
    const worker = this.#started();
    const id = this.#nextId++;
    const job: PrepareJob = { id, path, bytes, prefix, params, ...(headers ? { headers } : {}) };
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      // Not transferred: the event loop keeps the bytes (the journal records them). The server
      // reads a large body into shared memory (body-reader.ts), which is posted without a copy;
      // other bytes are copied.
      worker.postMessage(job);
    });
  }

  /** Stops the worker; jobs still waiting run on the event loop. */
  async close(): Promise<void> {
    const worker = this.#worker;
    this.#worker = undefined;
    this.#failAll('the server is closing');
    await worker?.terminate();
  }

  #started(): Worker {
    if (this.#worker) return this.#worker;
    const worker = new Worker(new URL('./prepare-worker.mjs', import.meta.url));
    // A server whose other handles are closed must be free to exit.
    worker.unref();
    worker.on('message', (m: PrepareOutcome | { ready: true }) => {
      if ('ready' in m) return;
      const waiting = this.#pending.get(m.id);
      if (!waiting) return;
      this.#pending.delete(m.id);
      if (m.kind === 'prepared') waiting.resolve(m.prepared);
      else if (m.kind === 'refused') waiting.reject(new PreparedRefusal(m.status, m.text));
      else waiting.reject(new OffLoopUnavailable(m.message));
    });
    const gone = (why: string) => {
      if (this.#worker === worker) this.#worker = undefined;
      this.#failAll(why);
    };
    worker.on('error', (e: Error) => gone(`the prepare worker failed: ${e.message}`));
    worker.on('exit', (code) => gone(`the prepare worker exited with code ${code}`));
    this.#worker = worker;
    return worker;
  }

  #failAll(why: string): void {
    for (const { reject } of this.#pending.values()) reject(new OffLoopUnavailable(why));
    this.#pending.clear();
  }
}
