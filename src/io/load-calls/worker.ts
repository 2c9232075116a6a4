/**
 * The worker thread of a parallel calls load (see parallel.ts): reads the file (gunzipping
 * it when it ends in .gz), packs it into blocks of whole lines and prescans every line of a
 * block (UTF-8, JSON scan, datetimes, refs) into typed arrays. Each block goes to the main
 * thread with its arrays, transferred; at most a few blocks are in flight, so a slow main
 * thread holds the reading back instead of piling blocks up.
 */
import { createReadStream } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { createGunzip } from 'node:zlib';
import { CallLinePrescan } from '../../load/scanned-call.ts';
import { hasBom } from '../utf8.ts';
import { forEachLineIn, LineBlocks } from './line-blocks.ts';
import type { BlockMessage, WorkerData, WorkerMessage } from './messages.ts';

const { file, blockSize, maxInFlight } = workerData as WorkerData;
const port = parentPort!;

let inFlight = 0;
let resume: (() => void) | null = null;
port.on('message', () => {
  // An acknowledgement: the main thread is done with a block.
  inFlight--;
  resume?.();
  resume = null;
});

const prescan = new CallLinePrescan(4096);
let nextLine = 1;
let bytesRead = 0;

function sendBlock(block: Buffer, length: number): void {
  let count = 0;
  const starts: number[] = [], ends: number[] = [], lines: number[] = [];
  nextLine = forEachLineIn(block, length, nextLine, (start, end, line) => {
    if (count === prescan.capacity) prescan.reserve(2 * count, count);
    // As loadLine does: a byte order mark opens line 1 and is not part of the record.
    const from = line === 1 && hasBom(block, start, end) ? start + 3 : start;
    prescan.prescan(block, from, end, count);
    starts.push(start);
    ends.push(end);
    lines.push(line);
    count++;
  });
  const message: BlockMessage = {
    type: 'block',
    block: block.buffer as ArrayBuffer,
    length,
    starts: Int32Array.from(starts),
    ends: Int32Array.from(ends),
    lines: Int32Array.from(lines),
    prescan: prescan.arrays(count),
    bytesRead,
  };
  const p = message.prescan;
  inFlight++;
  port.postMessage(message satisfies WorkerMessage, [
    message.block, message.starts.buffer, message.ends.buffer, message.lines.buffer,
    p.kinds.buffer, p.starts.buffer, p.ends.buffer, p.flags.buffer, p.errorCounts.buffer, p.ok.buffer, p.micros.buffer,
  ] as ArrayBuffer[]);
}

const blocks = new LineBlocks(blockSize, sendBlock);
try {
  const raw = createReadStream(file, { highWaterMark: 1 << 20 });
  raw.on('data', (chunk) => {
    bytesRead += chunk.length;
  });
  for await (const chunk of file.endsWith('.gz') ? raw.pipe(createGunzip()) : raw) {
    blocks.push(chunk as Buffer);
    while (inFlight >= maxInFlight) await new Promise<void>((r) => (resume = r));
  }
  blocks.finish();
  port.postMessage({ type: 'end', bytesRead } satisfies WorkerMessage);
} catch (e) {
  // The lines read before a read error are loaded first, as a sequential load would.
  blocks.flushWholeLines();
  const err = e as NodeJS.ErrnoException;
  port.postMessage({ type: 'error', message: err.message, code: err.code } satisfies WorkerMessage);
}
