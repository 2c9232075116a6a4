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
 * `beforeReading` is called once the declared length has passed both checks, before the first
 * byte is read (the server sends `100 Continue` there).
 *
 * A body of `sharedFrom` bytes or more is read into memory a SharedArrayBuffer holds: the server
 * hands it to the off-loop worker (off-loop.ts) without a copy (posting 32 MiB copied it on the
 * event loop), and keeps reading it for the journal. A declared length is allocated before the
 * first byte, and each chunk copied in as it arrives (the copy Buffer.concat made at the end).
 * @throws TransportError 413 over `limit` bytes; TQ_SERVER_BUSY (503) when the bytes do not fit
 *   in the budget; ClientGoneError when the client disconnects.
 */
export function readBody(req: IncomingMessage, limit: number, budget: BodyBudget, reservation: BodyReservation, beforeReading?: () => void, sharedFrom = Infinity): Promise<Buffer> {
  const declared = declaredLength(req);
  if (declared !== undefined && declared > limit) return Promise.reject(tooLarge());
  if (declared !== undefined && !reservation.grow(declared)) return Promise.reject(busy(budget));
  beforeReading?.();
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    // The declared length, when it is to be shared: every chunk goes straight into it.
    const shared = declared !== undefined && declared >= sharedFrom ? sharedBytes(declared) : undefined;
    const finish = (error?: Error) => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
      if (error) reject(error);
      else if (shared !== undefined) resolve(shared.subarray(0, size));
      else if (size >= sharedFrom) resolve(sharedCopy(chunks, size));
      else resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size));
    };
    const onData = (chunk: Buffer) => {
      if (shared !== undefined) {
        // Node's parser delivers the declared length, never more.
        chunk.copy(shared, size);
        size += chunk.length;
        return;
      }
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

/** `n` bytes in a SharedArrayBuffer (a worker given them shares them: nothing is copied). */
const sharedBytes = (n: number): Buffer => Buffer.from(new SharedArrayBuffer(n));

/** `chunks` (`size` bytes in all) copied into shared bytes. */
function sharedCopy(chunks: readonly Buffer[], size: number): Buffer {
  const out = sharedBytes(size);
  let at = 0;
  for (const chunk of chunks) {
    chunk.copy(out, at);
    at += chunk.length;
  }
  return out;
}

/** How much of a body not read is discarded once its answer has been sent early. */
export interface DrainBounds {
  /** Bytes read and discarded at most. */
  bytes: number;
  /** Milliseconds at most, from the answer. */
  ms: number;
  /**
   * Connections drained at once at most. Past it an early answer is sent and the connection
   * closed at once, as without draining: under a storm of refused retries, reading every
   * refused body would take the loop from the requests that were let in.
   */
  connections: number;
}

/**
 * The default: twice the largest body accepted, so every body the server would have taken (and
 * one over the limit by as much again) is read to its end; 10 s, so a client sending at 6.4 MB/s
 * or faster finishes a 64 MiB body, and the socket is free well before the request timeout;
 * 8 connections at once, so the few refused clients of ordinary use all get clean answers while
 * a retry storm costs the loop at most 8 bodies being read.
 */
export const defaultDrainBounds = (maxBodyBytes: number): DrainBounds => ({ bytes: 2 * maxBodyBytes, ms: 10_000, connections: 8 });

/** Does the client hold its body back until it is told `100 Continue`? */
export function expectsContinue(req: IncomingMessage): boolean {
  return req.headers.expect?.toLowerCase() === '100-continue';
}

/** Is part of the request's body still to come (a body declared and not all received)? */
export function bodyStillComing(req: IncomingMessage): boolean {
  if (req.readableEnded) return false;
  const declared = declaredLength(req);
  return req.headers['transfer-encoding'] !== undefined || (declared !== undefined && declared > 0);
}

/**
 * Reads the rest of the body and drops each chunk as it arrives (nothing is kept). Resolves true
 * when the body ended within `bounds`, false when it passed them or the client went away.
 */
export function discardBody(req: IncomingMessage, bounds: DrainBounds): Promise<boolean> {
  if (req.readableEnded) return Promise.resolve(true);
  return new Promise((resolve) => {
    let discarded = 0;
    const finish = (whole: boolean) => {
      clearTimeout(timer);
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('close', onClose);
      req.off('error', onClose);
      resolve(whole);
    };
    const onData = (chunk: Buffer) => {
      discarded += chunk.length;
      if (discarded > bounds.bytes) finish(false);
    };
    const onEnd = () => finish(true);
    const onClose = () => finish(false);
    const timer = setTimeout(() => finish(false), bounds.ms);
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('close', onClose);
    req.on('error', onClose);
    req.resume();
  });
}
