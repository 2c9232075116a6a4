/**
 * Writing a route's stream answer (its byte chunks of whole lines; semantics.md#wire-jsonl: `\n`
 * after every line) as a JSON Lines response with backpressure: the iterator is pulled only
 * while the socket accepts more, so a slow client holds at most one chunk plus the socket
 * buffers in memory, never the whole result. Chunks go to the socket as they are (no copy, no
 * re-encoding). When the client disconnects, pulling stops and the iterator is closed
 * (`return()`), so a generator's `finally` blocks run.
 */
import type { ServerResponse } from 'node:http';

export type StreamOutcome = 'finished' | 'client-gone';

/** Resolves on 'drain' or when the connection closes, whichever comes first. */
function drainedOrClosed(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

/**
 * Streams `chunks` (already started: `first` is the chunk pulled before the headers were
 * written) to `res` and ends the response.
 * @throws whatever the iterator throws mid-stream; the caller must then abort the response.
 */
export async function pumpChunks(res: ServerResponse, chunks: Iterator<Uint8Array>, first: Uint8Array): Promise<StreamOutcome> {
  let gone = false;
  const onClose = () => {
    gone = true;
  };
  res.on('close', onClose);
  let exhausted = false;
  try {
    let chunk = first;
    for (;;) {
      const next = chunks.next();
      if (next.done) {
        exhausted = true;
        if (!gone) res.end(chunk);
        return gone ? 'client-gone' : 'finished';
      }
      const accepted = res.write(chunk);
      chunk = next.value;
      if (!accepted && !gone) await drainedOrClosed(res);
      if (gone || res.destroyed) return 'client-gone';
    }
  } finally {
    res.off('close', onClose);
    if (!exhausted) chunks.return?.();
  }
}
