/**
 * Reading `--request -` and `--fixtures -` from stdin. A synchronous read of fd 0 fails with EAGAIN when stdin is
 * a non-blocking pipe or a terminal (a slow producer, a person typing), so stdin is read as a
 * stream until EOF, whatever it is.
 */
import { readFile } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';

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

/**
 * The chunks of a stream of calls JSON Lines, plain or gzip (told by the first two bytes, as
 * gzip(1) does), decompressed as they arrive: `--fixtures -` never holds the whole input.
 */
export async function* plainOrGunzipped(stream: AsyncIterable<Buffer | string>): AsyncGenerator<Buffer> {
  const iterator = stream[Symbol.asyncIterator]();
  let head = Buffer.alloc(0);
  // Enough bytes to tell gzip's magic number (a first chunk may be one byte long).
  while (head.length < 2) {
    const next = await iterator.next();
    if (next.done) {
      if (head.length > 0) yield head;
      return;
    }
    head = Buffer.concat([head, typeof next.value === 'string' ? Buffer.from(next.value) : next.value]);
  }
  const rest = (async function* () {
    yield head;
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield typeof next.value === 'string' ? Buffer.from(next.value) : next.value;
  })();
  if (head[0] !== 0x1f || head[1] !== 0x8b) {
    yield* rest;
    return;
  }
  const gunzip = createGunzip();
  const feeding = pipeline(Readable.from(rest), gunzip);
  for await (const chunk of gunzip) yield chunk as Buffer;
  await feeding;
}
