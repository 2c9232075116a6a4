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
 * - count: at `maxConnections` open connections, a new one takes the place of the oldest
 *   connection that has never carried an authenticated request and has no request in progress
 *   (a silent socket, one halfway through its headers, one idle after a 401 or a /health);
 *   when there is none, the new connection is closed at once, while those open keep flowing.
 *   So a client without credentials that holds every socket it can never keeps out a client
 *   that has them: room is reserved for connections that have authenticated (issue 22 §4).
 */
import type { IncomingMessage, Server, ServerOptions, ServerResponse } from 'node:http';
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

/** What the connection cap knows of each open connection. */
interface ConnectionState {
  authenticated: boolean;
  /** Requests received on it whose response has not closed yet. */
  active: number;
}

const states = new WeakMap<Socket, ConnectionState>();

/** The TCP socket under a request's socket (a TLS socket wraps the one the server accepted). */
function tcpSocketOf(socket: Socket): Socket {
  return (socket as Socket & { _parent?: Socket })._parent ?? socket;
}

/** Records that a request with valid credentials arrived on `socket`: it is never evicted. */
export function markAuthenticated(socket: Socket): void {
  const state = states.get(tcpSocketOf(socket));
  if (state) state.authenticated = true;
}

/** Installs the limits on a server made with socketServerOptions(limits). */
export function applySocketLimits(server: Server, limits: SocketLimits): void {
  server.timeout = limits.idleTimeoutMs;
  // Oldest first (a Set iterates in insertion order): the first evictable one is the oldest.
  const open = new Set<Socket>();
  const evictable = (socket: Socket) => {
    const state = states.get(socket);
    return state !== undefined && !state.authenticated && state.active === 0;
  };
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const state = states.get(tcpSocketOf(req.socket));
    if (!state) return;
    state.active++;
    res.once('close', () => state.active--);
  });
  server.on('connection', (socket: Socket) => {
    if (open.size >= limits.maxConnections) {
      let victim: Socket | undefined;
      for (const candidate of open) {
        if (evictable(candidate)) {
          victim = candidate;
          break;
        }
      }
      if (victim === undefined) {
        socket.destroy();
        return;
      }
      open.delete(victim);
      victim.destroy();
    }
    open.add(socket);
    states.set(socket, { authenticated: false, active: 0 });
    socket.once('close', () => open.delete(socket));
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
