/**
 * The request log of `tq serve`: one entry per request (time, method, path, project, user,
 * status, lines, bytes, ms, and for a 4xx the reason the client was given, as Prism logs it),
 * as a text line for a person or a JSON line for tools. The server fills a
 * RequestStats as the request goes: the project is the one the route authorises (every route
 * authorises its project before reading it), lines are counted as the stream pulls them, and
 * bytes are the response body bytes written.
 */
import { countNewlines } from '../api/line-stream.ts';
import type { ServerResponse } from 'node:http';
import type { RequestContext } from '../api/types.ts';

export interface RequestStats {
  project: string | null;
  user: string | null;
  /** Lines of a JSONL stream; null for other responses. */
  lines: number | null;
  bytes: number;
  /** A 4xx answer's reason (its `reason`, or its first `detail` entry), bounded; else null. */
  reason: string | null;
}

export interface RequestLogEntry extends RequestStats {
  time: string;
  method: string;
  path: string;
  /** null when the connection closed before a status was sent. */
  status: number | null;
  ms: number;
  /** The response did not finish (the client went away, or a stream failed). */
  aborted: boolean;
}

export type LogFormat = 'text' | 'json';

export const newStats = (): RequestStats => ({ project: null, user: null, lines: null, bytes: 0, reason: null });

/** Longest reason a log line carries (an echo of a huge bad value must not make a huge line). */
const MAX_REASON = 200;

/** What a 4xx body says went wrong: `reason`, or the first `detail` entry as `loc: msg`. */
export function reasonOf(bodyText: string): string | null {
  let body: unknown;
  try {
    body = JSON.parse(bodyText);
  } catch {
    return null;
  }
  if (typeof body !== 'object' || body === null) return null;
  const b = body as { reason?: unknown; detail?: unknown };
  let reason: string | null = null;
  if (typeof b.reason === 'string') reason = b.reason;
  else if (Array.isArray(b.detail) && b.detail.length > 0) {
    const d = b.detail[0] as { loc?: unknown; msg?: unknown };
    const loc = Array.isArray(d.loc) ? d.loc.join('.') : '';
    reason = `${loc}: ${String(d.msg ?? '')}${b.detail.length > 1 ? ` (+${b.detail.length - 1} more)` : ''}`;
  } else if (typeof b.detail === 'string') reason = b.detail;
  return reason !== null && reason.length > MAX_REASON ? `${reason.slice(0, MAX_REASON - 1)}…` : reason;
}

/** A context that notes the user and the first project the route authorises. */
export function observeContext(ctx: RequestContext, stats: RequestStats): RequestContext {
  stats.user = ctx.userId || null;
  // Spread, as run-route's validatingContext does: whatever else a context holds passes on.
  return {
    ...ctx,
    authorize(projectId: string): void {
      stats.project ??= projectId;
      ctx.authorize(projectId);
    },
  };
}

/** Counts the lines of the chunks pulled from a stream (each line ends in a newline). */
export function countLines(chunks: Iterator<Uint8Array>, stats: RequestStats): Iterator<Uint8Array> {
  stats.lines = 0;
  return {
    next() {
      const r = chunks.next();
      if (!r.done) stats.lines! += countNewlines(r.value);
      return r;
    },
    return(value?: unknown) {
      return chunks.return?.(value) ?? { done: true, value: undefined };
    },
  };
}

type Chunk = string | Uint8Array;
const byteLength = (chunk: unknown) => (typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk instanceof Uint8Array ? chunk.byteLength : 0);

/** Adds the body bytes written to `res` to `stats.bytes`. */
export function countBytes(res: ServerResponse, stats: RequestStats): void {
  const write = res.write, end = res.end;
  // Error bodies are whole JSON documents sent in one end() call, or in one write() when the
  // answer goes out before the body was read (server.ts sendJson).
  const noteReason = (res: ServerResponse, chunk: unknown) => {
    if (res.statusCode >= 400 && res.statusCode < 500 && (typeof chunk === 'string' || chunk instanceof Uint8Array)) {
      stats.reason = reasonOf(typeof chunk === 'string' ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength).toString('utf8'));
    }
  };
  res.write = function (this: ServerResponse, chunk: Chunk, ...rest: unknown[]) {
    stats.bytes += byteLength(chunk);
    noteReason(this, chunk);
    return (write as (...args: unknown[]) => boolean).call(this, chunk, ...rest);
  } as typeof res.write;
  res.end = function (this: ServerResponse, chunk?: unknown, ...rest: unknown[]) {
    if (typeof chunk !== 'function') stats.bytes += byteLength(chunk);
    noteReason(this, chunk);
    return (end as (...args: unknown[]) => ServerResponse).call(this, chunk, ...rest);
  } as typeof res.end;
}

/** The entry of a response that has closed (`startedMs` from performance.now()). */
export function logEntry(method: string | undefined, path: string, res: ServerResponse, stats: RequestStats, startedMs: number): RequestLogEntry {
  return {
    time: new Date().toISOString(),
    method: method ?? '-',
    path,
    project: stats.project,
    user: stats.user,
    status: res.headersSent ? res.statusCode : null,
    lines: stats.lines,
    bytes: stats.bytes,
    ms: performance.now() - startedMs,
    aborted: !res.writableFinished,
    reason: stats.reason,
  };
}

/**
 * `12:00:03.120 POST /calls/stream_query 200 project=acme/support-bot user=api lines=3 bytes=2481 4.2ms`,
 * and for a 4xx `… reason="Limit must be a positive integer"` (the time is UTC, as in the JSON entry).
 */
export function formatText(e: RequestLogEntry): string {
  const parts = [e.time.slice(11, 23), e.method, e.path, e.status === null ? '-' : String(e.status)];
  if (e.project !== null) parts.push(`project=${e.project}`);
  if (e.user !== null) parts.push(`user=${e.user}`);
  if (e.lines !== null) parts.push(`lines=${e.lines}`);
  parts.push(`bytes=${e.bytes}`, `${e.ms.toFixed(1)}ms`);
  if (e.aborted) parts.push('(aborted)');
  if (e.reason !== null) parts.push(`reason=${JSON.stringify(e.reason)}`);
  return parts.join(' ');
}

export function formatJson(e: RequestLogEntry): string {
  return JSON.stringify({ ...e, ms: Math.round(e.ms * 10) / 10 });
}

/** A sink for entries, writing one line each in the given format. */
export function requestLogger(format: LogFormat, write: (line: string) => void): (e: RequestLogEntry) => void {
  const render = format === 'json' ? formatJson : formatText;
  return (e) => write(render(e));
}
