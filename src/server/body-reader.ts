/**
 * Reading a request body with a size limit (semantics.md#errors-transport: over the limit is a
 * 413). A declared Content-Length over the limit is refused before a byte is read; a chunked body
 * is refused as soon as it crosses the limit, and reading stops there (nothing more is buffered).
 */
import type { IncomingMessage } from 'node:http';
import { TransportError } from '../core/errors.ts';

/** The client went away before the body was complete: there is nobody to answer. */
export class ClientGoneError extends Error {}

function tooLarge(): TransportError {
  return new TransportError('TQ_REQUEST_TOO_LARGE');
}

/** The declared Content-Length when it is a plain decimal number. */
function declaredLength(req: IncomingMessage): number | undefined {
  const header = req.headers['content-length'];
  return header !== undefined && /^\d+$/.test(header) ? Number(header) : undefined;
}

/**
 * Reads the whole body.
 * @throws TransportError 413 over `limit` bytes; ClientGoneError when the client disconnects.
 */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = declaredLength(req);
  if (declared !== undefined && declared > limit) return Promise.reject(tooLarge());
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
