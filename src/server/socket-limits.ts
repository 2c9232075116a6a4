/**
 * Bounding every connection of `tq serve` in time and number (issue 11 §3):
 * - first byte: a connection that sends nothing within `firstByteTimeoutMs` is closed
 *   (nothing is written: there is no request to answer);
 * - request: headers and body must have arrived within `requestTimeoutMs` of the request's
 *   first byte, else 408 `{"reason": ...}` and the connection is closed (Node's own
 *   requestTimeout/headersTimeout, checked every `checkIntervalMs`);
 * - idle: a connection on which nothing moves for `idleTimeoutMs` (a client that stopped
 *   reading its stream) is closed, after one to two periods: Node's socket timer counts a
 *   write the kernel is still taking bit by bit as activity. A slow reader that keeps reading
 *   keeps it moving, so it is never cut; nor is a response of any length;
 * - count: beyond `maxConnections` open connections, new ones are closed at once, while
 *   those already open keep flowing.
 */
import type { Server, ServerOptions } from 'node:http';
import type { Socket } from 'node:net';
import { TqError, tqError } from '../core/errors.ts';

export interface SocketLimits {
  firstByteTimeoutMs: number;
  requestTimeoutMs: number;
  idleTimeoutMs: number;
  maxConnections: number;
}

export const DEFAULT_SOCKET_LIMITS: SocketLimits = {
  firstByteTimeoutMs: 10_000,
  requestTimeoutMs: 60_000,
  idleTimeoutMs: 120_000,
  maxConnections: 1000,
};

/** Options of `http.createServer`: the request timeout and how often Node checks it. */
export function socketServerOptions(limits: SocketLimits): ServerOptions {
  return {
    requestTimeout: limits.requestTimeoutMs,
    headersTimeout: limits.requestTimeoutMs,
    // Node checks timeouts on this period; a quarter of the timeout keeps the overshoot small.
    connectionsCheckingInterval: Math.max(10, Math.min(30_000, Math.floor(limits.requestTimeoutMs / 4))),
  };
}

/** A raw HTTP/1.1 error response, for errors met before a ServerResponse exists or is usable. */
function rawResponse(error: TqError, statusText: string): string {
  const body = JSON.stringify(error.body());
  return `HTTP/1.1 ${error.status} ${statusText}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
}

/** What Node would answer a parse error with, but as JSON bodies like every other tq error. */
function clientErrorResponse(code: string | undefined, limits: SocketLimits): string {
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return rawResponse(tqError('TQ_REQUEST_TIMEOUT', { seconds: limits.requestTimeoutMs / 1000 }), 'Request Timeout');
  }
  if (code === 'HPE_HEADER_OVERFLOW') return rawResponse(tqError('TQ_HEADERS_TOO_LARGE'), 'Request Header Fields Too Large');
  return rawResponse(tqError('TQ_MALFORMED_HTTP'), 'Bad Request');
}

/** Installs the limits on a server made with socketServerOptions(limits). */
export function applySocketLimits(server: Server, limits: SocketLimits): void {
  server.maxConnections = limits.maxConnections;
  server.timeout = limits.idleTimeoutMs;
  server.on('connection', (socket: Socket) => {
    const timer = setTimeout(() => {
      if (socket.bytesRead === 0) socket.destroy();
    }, limits.firstByteTimeoutMs);
    timer.unref();
    socket.once('close', () => clearTimeout(timer));
  });
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    const response = (socket as Socket & { _httpMessage?: { headersSent: boolean } })._httpMessage;
    // Answer only when nothing of a response has been written yet (as Node does).
    if (socket.writable && error.code !== 'ECONNRESET' && !response?.headersSent) socket.write(clientErrorResponse(error.code, limits));
    socket.destroy();
  });
}
