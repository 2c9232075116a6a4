/**
 * Writing a route's lines as a JSON Lines response (semantics.md#wire-jsonl: `\n` after every line)
 * with backpressure: the iterator is pulled only while the socket accepts more, so a slow client
 * holds at most one batch plus the socket buffers in memory, never the whole result. When the
 * client disconnects, pulling stops and the iterator is closed (`return()`), so a generator's
 * `finally` blocks run.
 */
import type { ServerResponse } from 'node:http';

/** Lines are written in batches of about this many characters (fewer, larger chunks). */
const BATCH_CHARS = 64 * 1024;

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
 * Streams `lines` (already started: `pending` holds the lines pulled before the headers were
 * written, possibly none) to `res` and ends the response.
 * @throws whatever the iterator throws mid-stream; the caller must then abort the response.
 */
export async function pumpLines(res: ServerResponse, lines: Iterator<string>, pending: string[]): Promise<StreamOutcome> {
  let gone = false;
  const onClose = () => {
    gone = true;
  };
  res.on('close', onClose);
  let exhausted = false;
  try {
    let batch = pending.length > 0 ? pending.join('\n') + '\n' : '';
    for (;;) {
      while (batch.length < BATCH_CHARS) {
        const next = lines.next();
        if (next.done) {
          exhausted = true;
          break;
        }
        batch += next.value + '\n';
      }
      if (exhausted) {
        if (!gone) res.end(batch);
        return gone ? 'client-gone' : 'finished';
      }
      const accepted = res.write(batch);
      batch = '';
      if (!accepted && !gone) await drainedOrClosed(res);
      if (gone || res.destroyed) return 'client-gone';
    }
  } finally {
    res.off('close', onClose);
    if (!exhausted) lines.return?.();
  }
}
