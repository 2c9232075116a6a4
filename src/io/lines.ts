/**
 * Streaming JSONL reading: files of any size (larger than V8's longest string), plain or
 * gzip, split into lines as byte ranges of Buffers, never as one big string.
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createGunzip } from 'node:zlib';

export interface LineRef {
  /** The buffer holding the line's bytes; valid only during the callback. */
  buf: Buffer;
  start: number;
  end: number;
  /** 1-based line number in the file. */
  line: number;
}

export interface ReadProgress {
  bytesRead: number;
  totalBytes: number;
}

/**
 * Calls `onLine` for every non-blank line of `path` (`\n` or `\r\n` endings). `onChunk`
 * reports compressed bytes read so far, for progress displays.
 */
export async function forEachLine(
  path: string,
  onLine: (line: LineRef) => void,
  onChunk?: (p: ReadProgress) => void,
): Promise<void> {
  const totalBytes = (await stat(path)).size;
  const raw = createReadStream(path, { highWaterMark: 1 << 20 });
  let bytesRead = 0;
  raw.on('data', (chunk) => {
    bytesRead += chunk.length;
    onChunk?.({ bytesRead, totalBytes });
  });
  await forEachLineOf(path.endsWith('.gz') ? raw.pipe(createGunzip()) : raw, onLine);
}

/**
 * The same for text that is not a file: one string or byte array, or a stream of chunks
 * (a Readable, an async generator). String chunks are UTF-8 encoded.
 */
export async function forEachLineOf(
  source: string | Uint8Array | AsyncIterable<string | Uint8Array> | Iterable<string | Uint8Array>,
  onLine: (line: LineRef) => void,
): Promise<void> {
  const chunks = typeof source === 'string' || source instanceof Uint8Array ? [source] : source;
  let carry: Buffer | null = null;
  let lineNo = 0;
  const emit = (buf: Buffer, start: number, end: number) => {
    lineNo++;
    if (end > start && buf[end - 1] === 0x0d) end--;
    // Blank lines carry no record; anything else is parsed (and may fail loudly).
    for (let i = start; i < end; i++) {
      const c = buf[i];
      if (c !== 0x20 && c !== 0x09) return onLine({ buf, start, end, line: lineNo });
    }
  };
  for await (const piece of chunks) {
    const chunk = typeof piece === 'string' ? Buffer.from(piece, 'utf8') : Buffer.isBuffer(piece) ? piece : Buffer.from(piece.buffer, piece.byteOffset, piece.byteLength);
    let start = 0;
    if (carry) {
      const nl = chunk.indexOf(0x0a);
      if (nl < 0) {
        carry = Buffer.concat([carry, chunk]);
        continue;
      }
      const joined = Buffer.concat([carry, chunk.subarray(0, nl)]);
      carry = null;
      emit(joined, 0, joined.length);
      start = nl + 1;
    }
    for (;;) {
      const nl = chunk.indexOf(0x0a, start);
      if (nl < 0) break;
      emit(chunk, start, nl);
      start = nl + 1;
    }
    if (start < chunk.length) carry = Buffer.from(chunk.subarray(start));
  }
  if (carry && carry.length) emit(carry, 0, carry.length);
}
