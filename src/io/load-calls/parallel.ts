/**
 * Reading a large calls file on two threads: a worker (worker.ts) reads, splits and prescans
 * the lines (the byte scan that validates each line and finds its fields); this thread builds
 * the records and stores them, in file order. Lines reach the caller exactly as forEachLine
 * gives them (same numbers, same bytes), each with its prescan, so the first bad line is still
 * the one reported, with its `file:line`.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { GateScreen, type OneShotGateSpec } from '../../load/calls/one-shot-gate.ts';
import { CallLinePrescan } from '../../load/calls/scanned-call.ts';
import { idHashSeed } from '../../store/id-index.ts';
import type { LineRef, ReadProgress } from '../lines.ts';
import { BlockScan } from './block-scan.ts';
import type { WorkerData, WorkerMessage } from './messages.ts';

/** Calls files smaller than this load on one thread (starting a worker costs ~50 ms). */
export const PARALLEL_MIN_BYTES = 8 << 20;
const BLOCK_SIZE = 4 << 20;
const MAX_IN_FLIGHT = 8;
/** See WorkerData.handOverAt: a block goes over unscanned when the main thread has none queued. */
const HAND_OVER_AT = 0;

/**
 * Starts the worker. From the build, its worker.js. From the TypeScript sources, the build's
 * worker when the build is current (newer than every source file, the rule bin/tq follows),
 * else the source through tsx, whose loader a worker thread does not inherit: a bootstrap
 * registers it (which costs a few hundred ms) and imports the worker. The test suite
 * (TQ_FROM_SOURCE=1) always runs the sources.
 */
function startWorker(workerData: WorkerData): Worker {
  if (!import.meta.url.endsWith('.ts')) return new Worker(new URL('./worker.js', import.meta.url), { workerData });
  const built = process.env.TQ_FROM_SOURCE === '1' ? null : currentBuiltWorker();
  if (built) return new Worker(built, { workerData });
  const source = new URL('./worker.ts', import.meta.url);
  const tsx = import.meta.resolve('tsx/esm/api');
  const bootstrap = `import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(source.href)}); });`;
  return new Worker(bootstrap, { eval: true, workerData });
}

/** dist/io/load-calls/worker.js when dist/ holds a build newer than every source file. */
function currentBuiltWorker(): URL | null {
  const root = new URL('../../../', import.meta.url);
  const stamp = new URL('dist/BUILT', root);
  const worker = new URL('dist/io/load-calls/worker.js', root);
  if (!existsSync(stamp) || !existsSync(worker)) return null;
  const builtAt = Number(readFileSync(stamp, 'utf8'));
  const src = fileURLToPath(new URL('src/', root));
  for (const entry of readdirSync(src, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.ts') || entry.name.endsWith('.test.ts')) continue;
    if (statSync(join(entry.parentPath ?? (entry as { path?: string }).path ?? src, entry.name)).mtimeMs > builtAt) return null;
  }
  return worker;
}

/**
 * forEachLine for a calls file, with the prescan of every line: `onLine(ref, prescan, slot)`.
 * Unlike forEachLine's, each `ref.buf` (a block of lines) belongs to the caller, who may keep it.
 * With `gateSpec`, each prescan's `screened` holds a one-shot gate's verdicts on its lines.
 * An exception from `onLine` stops the reading and rejects; a read error rejects with the
 * error's message and code after the lines read before it were given.
 */
export async function forEachPrescannedLine(
  path: string,
  onLine: (line: LineRef, prescan: CallLinePrescan, slot: number) => void,
  onChunk?: (p: ReadProgress) => void,
  blockSize = BLOCK_SIZE,
  handOverAt = HAND_OVER_AT,
  gateSpec: OneShotGateSpec | null = null,
): Promise<void> {
  const totalBytes = (await stat(path)).size;
  const blocksDone = new SharedArrayBuffer(4);
  const done = new Int32Array(blocksDone);
  const worker = startWorker({ file: path, blockSize, maxInFlight: MAX_IN_FLIGHT, handOverAt, gateSpec, blocksDone, idHashSeed: idHashSeed() });
  let ownScan: BlockScan | null = null;
  try {
    await new Promise<void>((resolve, reject) => {
      let settled = false;
      const fail = (e: unknown) => {
        if (!settled) reject(e);
        settled = true;
      };
      worker.on('message', (m: WorkerMessage) => {
        if (settled) return;
        try {
          if (m.type === 'block') {
            // A view of the transferred block: the tables copy the parts they keep out of it
            // (storeCallParts / CallTable.load), so the block is garbage once its lines are stored.
            const buf = Buffer.from(m.block, 0, m.length);
            let scan: { starts: Int32Array; ends: Int32Array; lines: Int32Array; prescan: CallLinePrescan }, count: number;
            if (m.scan !== null) {
              scan = { ...m.scan, prescan: new CallLinePrescan(0, m.scan.prescan) };
              scan.prescan.screened = m.scan.screened;
              scan.prescan.idHashes = m.scan.idHashes;
              scan.prescan.sameAs = m.scan.sameAs;
              count = m.scan.lines.length;
            } else {
              // Handed over unscanned: this thread was about to idle.
              scan = ownScan ??= new BlockScan(gateSpec === null ? null : new GateScreen(gateSpec));
              ownScan.scan(buf, m.length, m.firstLine);
              count = ownScan.count;
            }
            const { starts, ends, lines, prescan } = scan;
            for (let i = 0; i < count; i++) onLine({ buf, start: starts[i], end: ends[i], line: lines[i] }, prescan, i);
            onChunk?.({ bytesRead: m.bytesRead, totalBytes });
            Atomics.add(done, 0, 1);
            worker.postMessage('ack');
          } else if (m.type === 'end') {
            onChunk?.({ bytesRead: m.bytesRead, totalBytes });
            settled = true;
            resolve();
          } else {
            fail(Object.assign(new Error(m.message), m.code === undefined ? {} : { code: m.code }));
          }
        } catch (e) {
          fail(e);
        }
      });
      worker.on('error', fail);
      worker.on('exit', (code) => fail(new Error(`the load worker stopped (exit code ${code})`)));
    });
  } finally {
    await worker.terminate();
  }
}
