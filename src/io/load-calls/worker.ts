/**
 * The worker thread of a parallel calls load (see parallel.ts): reads the file (gunzipping
 * it when it ends in .gz), packs it into blocks of whole lines (a plain file is read straight
 * into them) and prescans every line of a block (UTF-8, JSON scan, datetimes, refs: BlockScan)
 * into typed arrays. Each block goes to
 * the main thread with its arrays, transferred; at most a few blocks are in flight, so a slow
 * main thread holds the reading back instead of piling blocks up. When the main thread has no
 * block queued (it would idle), the block goes over unscanned and the main thread scans it
 * itself while this thread scans the next: both cores scan when the scan is the slower part.
 */
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { parentPort, workerData } from 'node:worker_threads';
import { createGunzip } from 'node:zlib';
import { GateScreen } from '../../load/calls/one-shot-gate.ts';
import { useIdHashSeed } from '../../store/id-index.ts';
import { BlockScan } from './block-scan.ts';
import { forEachLineIn, LineBlocks, readLineBlocks } from './line-blocks.ts';
import type { BlockMessage, WorkerData, WorkerMessage } from './messages.ts';

const { file, blockSize, maxInFlight, handOverAt, gateSpec, blocksDone, idHashSeed } = workerData as WorkerData;
// Before any IdHash is made here (BlockScan's, GateScreen's): hashes sent must be the main thread's.
useIdHashSeed(idHashSeed);
const port = parentPort!;
const done = new Int32Array(blocksDone);

/** Blocks sent so far; those sent and not yet done are in flight. */
let sent = 0;
// Read from the shared count, not counted from 'ack' messages: this thread's event loop reads
// those only between two reads, so while it scans a block the main thread would look busier
// than it is, and get fewer blocks handed over than it could take.
const inFlight = () => sent - Atomics.load(done, 0);
let resume: (() => void) | null = null;
port.on('message', () => {
  // An acknowledgement: the main thread is done with a block (a wake-up for a wait below).
  resume?.();
  resume = null;
});

const READ_SIZE = 8 << 20;
const scanner = new BlockScan(gateSpec === null ? null : new GateScreen(gateSpec));
let nextLine = 1;
let bytesRead = 0;

function sendBlock(block: Buffer, length: number): void {
  const firstLine = nextLine;
  // The main thread idles unless it gets work at once: it scans this block itself, while this
  // thread goes on with the next.
  const handOver = inFlight() <= handOverAt;
  let scan: BlockMessage['scan'] = null;
  if (handOver) nextLine = forEachLineIn(block, length, nextLine, () => {});
  else {
    nextLine = scanner.scan(block, length, nextLine);
    scan = scanner.copies();
  }
  const message: BlockMessage = { type: 'block', block: block.buffer as ArrayBuffer, length, firstLine, scan, bytesRead };
  const transfer: ArrayBuffer[] = [message.block];
  if (scan !== null) {
    const p = scan.prescan;
    transfer.push(scan.starts.buffer as ArrayBuffer, scan.ends.buffer as ArrayBuffer, scan.lines.buffer as ArrayBuffer, scan.idHashes.buffer as ArrayBuffer);
    if (scan.sameAs !== null) transfer.push(scan.sameAs.buffer as ArrayBuffer);
    for (const a of [p.kinds, p.starts, p.ends, p.flags, p.errorCounts, p.ok, p.micros]) transfer.push(a.buffer as ArrayBuffer);
    const s = scan.screened;
    if (s !== null) transfer.push(s.verdicts.buffer as ArrayBuffer);
  }
  sent++;
  port.postMessage(message satisfies WorkerMessage, transfer);
}

/** Holds the reading back while the main thread has enough blocks (a wake-up comes with each 'ack'). */
async function whileBusy(): Promise<void> {
  while (inFlight() >= maxInFlight) await new Promise<void>((r) => (resume = r));
}

async function sendBlockInTurn(block: Buffer, length: number): Promise<void> {
  sendBlock(block, length);
  await whileBusy();
}

if (!file.endsWith('.gz')) {
  // A plain file is read straight into the blocks (no copy from read chunks into blocks).
  try {
    const handle = await open(file, 'r');
    try {
      await readLineBlocks(handle, blockSize, sendBlockInTurn, (n) => (bytesRead += n));
    } finally {
      await handle.close();
    }
    port.postMessage({ type: 'end', bytesRead } satisfies WorkerMessage);
  } catch (e) {
    // readLineBlocks sent the lines read before a read error, as a sequential load would load them.
    const err = e as NodeJS.ErrnoException;
    port.postMessage({ type: 'error', message: err.message, code: err.code } satisfies WorkerMessage);
  }
} else {
  const blocks = new LineBlocks(blockSize, sendBlock);
  try {
    // Large reads, so that one is under way while a block is scanned (1 MiB reads left this
    // thread waiting for the next one about a quarter of the time).
    const raw = createReadStream(file, { highWaterMark: READ_SIZE });
    raw.on('data', (chunk) => {
      bytesRead += chunk.length;
    });
    for await (const chunk of raw.pipe(createGunzip())) {
      blocks.push(chunk as Buffer);
      await whileBusy();
    }
    blocks.finish();
    port.postMessage({ type: 'end', bytesRead } satisfies WorkerMessage);
  } catch (e) {
    // The lines read before a read error are loaded first, as a sequential load would.
    blocks.flushWholeLines();
    const err = e as NodeJS.ErrnoException;
    port.postMessage({ type: 'error', message: err.message, code: err.code } satisfies WorkerMessage);
  }
}
