/**
 * Reading a request body with a size limit (semantics.md#errors-transport: over the limit is a
 * 413). A declared Content-Length over the limit is refused before a byte is read; a chunked body
 * is refused as soon as it crosses the limit, and reading stops there (nothing more is buffered).
 */
import type { IncomingMessage } from 'node:http';
import { TransportError, tqError, type TqError } from '../core/errors.ts';
import type { BodyBudget, BodyReservation } from './body-budget.ts';

/** The client went away before the body was complete: there is nobody to answer. */
export class ClientGoneError extends Error {}

function tooLarge(): TransportError {
  return new TransportError('TQ_REQUEST_TOO_LARGE');
}

/** Seconds a client refused for want of room is told to wait (`Retry-After`). */
export const BUSY_RETRY_AFTER_SECONDS = 1;

function busy(budget: BodyBudget): TqError {
  return tqError('TQ_SERVER_BUSY', { max: budget.limit, seconds: BUSY_RETRY_AFTER_SECONDS });
}

/** The declared Content-Length when it is a plain decimal number. */
function declaredLength(req: IncomingMessage): number | undefined {
  const header = req.headers['content-length'];
  return header !== undefined && /^\d+$/.test(header) ? Number(header) : undefined;
}

/**
 * Reads the whole body, holding its bytes in `reservation` (taken from `budget`): the declared
 * Content-Length before the first byte is read, a chunked body's bytes as they arrive.
 * @throws TransportError 413 over `limit` bytes; TQ_SERVER_BUSY (503) when the bytes do not fit
 *   in the budget; ClientGoneError when the client disconnects.
 */
export function readBody(req: IncomingMessage, limit: number, budget: BodyBudget, reservation: BodyReservation): Promise<Buffer> {
  const declared = declaredLength(req);
  if (declared !== undefined && declared > limit) return Promise.reject(tooLarge());
  if (declared !== undefined && !reservation.grow(declared)) return Promise.reject(busy(budget));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (error?: Error) => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
      if (error) reject(error);
      else resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size));
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        chunks.length = 0;
        req.pause();
        finish(tooLarge());
        return;
      }
      if (declared === undefined && !reservation.grow(chunk.length)) {
        chunks.length = 0;
        req.pause();
        finish(busy(budget));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => finish();
    const onError = () => finish(new ClientGoneError('request aborted'));
    const onClose = () => {
      if (!req.complete) finish(new ClientGoneError('request aborted'));
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
}
