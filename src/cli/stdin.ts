/**
 * Reading `--request -` from stdin. A synchronous read of fd 0 fails with EAGAIN when stdin is
 * a non-blocking pipe or a terminal (a slow producer, a person typing), so stdin is read as a
 * stream until EOF, whatever it is.
 */
import { readFile } from 'node:fs/promises';
import type { Readable } from 'node:stream';

/** Every byte of `stream` until it ends, decoded as UTF-8 (multi-byte characters may straddle chunks). */
export async function readAll(stream: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * The text of `--request FILE|-`: `-` is stdin, read until EOF. A person at a terminal is told
 * how to end the body (`hint`), since nothing else shows that tq is waiting for it.
 */
export function readRequestSource(source: string, stdin: Readable & { isTTY?: boolean } = process.stdin, hint?: (line: string) => void): Promise<string> {
  if (source !== '-') return readFile(source, 'utf8');
  if (stdin.isTTY) hint?.('tq: reading the request body from the terminal; end it with Ctrl-D');
  return readAll(stdin);
}
