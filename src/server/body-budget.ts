/**
 * Memory and fairness under many large requests (issue 22 §4).
 *
 * - BodyBudget: one bound on the bytes of request bodies being read and processed at once,
 *   across every connection. A request takes its declared Content-Length before a byte of its
 *   body is read (a chunked body takes room as its chunks arrive) and gives it back once its
 *   route has answered (a stream's rows are produced as the client reads: they are bounded by
 *   back-pressure, not by this budget). A request that does not fit is answered 503 with
 *   `Retry-After` before its body is read.
 * - TakeTurns: bodies over a size run their route one at a time, each in a fresh turn of the
 *   event loop, so between two large requests every small request that is waiting (a
 *   `/health`, a query) is answered. One large request still runs to its end once started:
 *   parsing, validating and digesting it is synchronous work.
 */

/** A share of a BodyBudget held by one request; `release` is idempotent. */
export interface BodyReservation {
  /** Takes `bytes` more; false (and nothing taken) when they do not fit. */
  grow(bytes: number): boolean;
  release(): void;
  readonly bytes: number;
}

export class BodyBudget {
  #inUse = 0;

  constructor(readonly limit: number) {}

  /** Bytes held by requests now. */
  get inUse(): number {
    return this.#inUse;
  }

  reserve(): BodyReservation {
    let held = 0;
    let released = false;
    const budget = this;
    return {
      grow(bytes: number): boolean {
        if (released || budget.#inUse + bytes > budget.limit) return false;
        budget.#inUse += bytes;
        held += bytes;
        return true;
      },
      release(): void {
        if (released) return;
        released = true;
        budget.#inUse -= held;
        held = 0;
      },
      get bytes() {
        return held;
      },
    };
  }
}

/** Runs jobs one at a time, in the order they were given, each after a turn of the event loop. */
export class TakeTurns {
  #tail: Promise<unknown> = Promise.resolve();
  #waiting = 0;

  /** Jobs given and not finished (the running one included). */
  get waiting(): number {
    return this.#waiting;
  }

  run<T>(job: () => T | Promise<T>): Promise<T> {
    this.#waiting++;
    const turn = this.#tail.then(
      () =>
        new Promise<T>((resolve, reject) => {
          // setImmediate: I/O callbacks waiting (a /health, a small query) run before this job.
          setImmediate(() => {
            try {
              Promise.resolve(job()).then(resolve, reject);
            } catch (e) {
              reject(e);
            }
          });
        }),
    );
    const done = () => {
      this.#waiting--;
    };
    // The chain continues whether the job failed or not.
    this.#tail = turn.then(done, done);
    return turn;
  }
}
