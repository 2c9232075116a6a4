/**
 * The `tq serve` flags that bound connections (src/server/socket-limits.ts), in seconds on
 * the command line (fractions allowed, for tests and tight deployments).
 */
import type { Command } from 'commander';
import { DEFAULT_SOCKET_LIMITS, type SocketLimits } from '../server/socket-limits.ts';
import { intOption, UsageError } from './common.ts';

export interface SocketLimitOptions {
  firstByteTimeout: string;
  requestTimeout: string;
  idleTimeout: string;
  maxConnections: string;
}

const seconds = (ms: number) => String(ms / 1000);

export function socketLimitOptions(cmd: Command): Command {
  const d = DEFAULT_SOCKET_LIMITS;
  return cmd
    .option('--first-byte-timeout <s>', 'close a connection that sends no byte within this many seconds', seconds(d.firstByteTimeoutMs))
    .option('--request-timeout <s>', 'answer 408 and close when headers and body have not arrived within this many seconds', seconds(d.requestTimeoutMs))
    .option('--idle-timeout <s>', 'close a connection on which nothing moves for this many seconds (a client that stopped reading)', seconds(d.idleTimeoutMs))
    .option('--max-connections <n>', 'open connections at most; beyond it a new one replaces the oldest idle unauthenticated one, or is closed at once', String(d.maxConnections));
}

function secondsOption(name: string, text: string): number {
  if (!/^\d+(\.\d+)?$/.test(text) || Number(text) <= 0) throw new UsageError(`${name} must be a positive number of seconds, got '${text}'`);
  return Math.round(Number(text) * 1000);
}

/** @throws UsageError for a value that is not a positive number. */
export function parseSocketLimits(opts: SocketLimitOptions): SocketLimits {
  const maxConnections = intOption('--max-connections', opts.maxConnections);
  if (maxConnections < 1) throw new UsageError(`--max-connections must be positive, got ${maxConnections}`);
  return {
    firstByteTimeoutMs: secondsOption('--first-byte-timeout', opts.firstByteTimeout),
    requestTimeoutMs: secondsOption('--request-timeout', opts.requestTimeout),
    idleTimeoutMs: secondsOption('--idle-timeout', opts.idleTimeout),
    maxConnections,
  };
}
