/**
 * Loading a fixtures directory (or a single calls file) into a Store.
 *
 * Where the data comes from: `--fixtures`, then TQ_FIXTURES, then `./fixtures` of the working
 * directory, then the bundled demo. A directory holds calls.jsonl, tables.jsonl,
 * objects.jsonl, feedback.jsonl and costs.jsonl (each optional, each may be `.jsonl.gz`), and the
 * files that feed a kind from another format (otel-traces.jsonl; load/fixture-kinds.ts); a
 * single `.jsonl[.gz]` file holds calls, or what its name says (otel-traces.jsonl). Every malformed line is an error naming
 * `file:line` and the problem; nothing is skipped silently.
 */
import { existsSync, statSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FixtureError } from '../core/errors.ts';
import type { Engine } from '../api/types.ts';
import { RecordProblem } from '../load/calls/call-record.ts';
import {
  FEEDING_FILE_REGISTRY,
  FIXTURE_FILE_KINDS,
  FIXTURE_KIND_REGISTRY,
  FIXTURE_KINDS,
  isFixtureFileKind,
  isFixtureKind,
  lineSpecOf,
  type FixtureFileKind,
  type FixtureKind,
} from '../load/fixture-kinds.ts';
import { forEachLine, forEachLineOf, type LineRef, type ReadProgress } from './lines.ts';
import { hasBom, invalidUtf8Offset } from './utf8.ts';
import { MAX_BODY_DEPTH, textDepthExceeded } from '../core/json/depth.ts';
import { DuplicateCallError } from '../store/call-table.ts';
import type { CallLinePrescan } from '../load/calls/scanned-call.ts';
import { forEachPrescannedLine, PARALLEL_MIN_BYTES } from './load-calls/parallel.ts';
import { forgetLastBlock, storeFastCallLine } from '../load/calls/fast-line.ts';
import type { OneShotGate } from '../load/calls/one-shot-gate.ts';
import { storeGatedCallLine } from '../load/calls/gated-line.ts';
import { callsLoadGate } from './load-calls/gate.ts';

export const BUNDLED_FIXTURES = fileURLToPath(new URL('../../fixtures/', import.meta.url));

export { FIXTURE_KINDS, type FixtureKind, type FixtureFileKind };
const KINDS = FIXTURE_KINDS;
/** A file a fixtures location holds: one of the kinds, or a file that feeds one (`otel-traces.jsonl`). */
export interface FixtureFile {
  file: string;
  kind: FixtureFileKind;
}

export interface LoadProgress extends ReadProgress {
  file: string;
  records: number;
}

export interface LoadReport {
  source: string;
  files: Array<{ file: string; kind: FixtureFileKind; records: number }>;
  /** Things worth saying that do not stop the load (`file: empty`). */
  notices: string[];
}

/** Picks the fixtures location by the documented precedence. */
export function resolveFixturesPath(explicit: string | undefined, env: NodeJS.ProcessEnv, cwd: string): string {
  if (explicit) return resolve(cwd, explicit);
  if (env.TQ_FIXTURES) return resolve(cwd, env.TQ_FIXTURES);
  const local = join(cwd, 'fixtures');
  if (existsSync(local) && statSync(local).isDirectory()) return local;
  return BUNDLED_FIXTURES;
}

export function filesOf(path: string): FixtureFile[] {
  if (!existsSync(path)) throw new FixtureError(path, 0, 'no such file or directory');
  if (statSync(path).isFile()) {
    if (!/\.jsonl(\.gz)?$/.test(path)) throw new FixtureError(path, 0, 'a fixtures file must end in .jsonl or .jsonl.gz');
    const named = /^(.*)\.jsonl(\.gz)?$/.exec(basename(path))![1];
    return [{ file: path, kind: Object.hasOwn(FEEDING_FILE_REGISTRY, named) ? (named as FixtureFileKind) : 'calls' }];
  }
  // The feeding files are looked for here only, not by fixtureFilesIn: a --data directory's
  // compaction rewrites calls.jsonl and must not find the same spans again.
  const found = filesOfKinds(path, FIXTURE_FILE_KINDS);
  if (found.length === 0) throw new FixtureError(path, 0, `no fixture files (${FIXTURE_FILE_KINDS.map((k) => k + '.jsonl').join(', ')})`);
  return found;
}

/** The fixture files of the kinds (not the feeding files) a directory holds (none is not an error here). */
export function fixtureFilesIn(path: string): FixtureFile[] {
  return filesOfKinds(path, KINDS);
}

function filesOfKinds(path: string, kinds: readonly FixtureFileKind[]): FixtureFile[] {
  const found: FixtureFile[] = [];
  for (const kind of kinds) {
    const plain = join(path, `${kind}.jsonl`);
    const gz = `${plain}.gz`;
    if (existsSync(plain) && existsSync(gz)) throw new FixtureError(path, 0, `both ${kind}.jsonl and ${kind}.jsonl.gz exist; keep one`);
    if (existsSync(plain)) found.push({ file: plain, kind });
    else if (existsSync(gz)) found.push({ file: gz, kind });
  }
  return found;
}

/**
 * Stores one fixture line; a bad record is a FixtureError naming `file:line`. Returns the
 * number of records it held (0 for a line of nothing but a byte order mark).
 */
function loadLine(
  engine: Engine,
  kind: FixtureFileKind,
  file: string,
  { buf, start: lineStart, end, line }: LineRef,
  prescan?: CallLinePrescan,
  slot = 0,
  gate?: OneShotGate,
  progress?: (share: number) => void,
): number {
  // A BOM opens files from some Windows JSON Lines writers: skipped, not part of the record.
  const start = line === 1 && hasBom(buf, lineStart, end) ? lineStart + 3 : lineStart;
  if (start === end) return 0;
  if (isFixtureKind(kind) && FIXTURE_KIND_REGISTRY[kind].prescanned) {
    // A calls line prescanned on the worker thread (the same byte range), or scanned here.
    try {
      if (storeFastCallLine(engine.store, buf, start, end, prescan, slot, gate, line)) return 1;
    } catch (e) {
      if (e instanceof DuplicateCallError) throw new FixtureError(file, line, e.message);
      throw e;
    }
  }
  const text = checkLine(file, line, buf, lineStart, start, end);
  try {
    if (gate !== undefined && kind === 'calls') return storeGatedCallLine(engine, { text, buf, start, end }, gate, line);
    return lineSpecOf(kind).store(engine, { text, buf, start, end, progress });
  } catch (e) {
    if (e instanceof RecordProblem) throw new FixtureError(file, line, e.message);
    throw e;
  }
}

/** Bytes between two progress reports. */
const PROGRESS_STEP_BYTES = 32 * 1024 * 1024;
/** A line this long reports progress while it is stored (every 1% of it). */
const LONG_LINE_BYTES = 1024 * 1024;

/**
 * What is checked on a line before it is parsed: strict UTF-8 (the offset counts from the
 * line's first byte), and nesting no deeper than a request body may (one bound for everything
 * the engine stores; a line shorter than twice the bound cannot exceed it, so is not scanned).
 */
function checkLine(file: string, line: number, buf: Buffer, lineStart: number, start: number, end: number): string {
  const text = buf.toString('utf8', start, end);
  // Decoding turns invalid bytes into U+FFFD: only a line holding one needs its bytes checked
  // (a U+FFFD written as such is valid UTF-8). A search of the text is far cheaper than a scan.
  if (text.includes('\uFFFD')) {
    const bad = invalidUtf8Offset(buf, start, end);
    if (bad >= 0) throw new FixtureError(file, line, `invalid UTF-8 at byte offset ${bad + start - lineStart}`);
  }
  if (text.length > 2 * MAX_BODY_DEPTH) {
    const at = textDepthExceeded(text);
    if (at >= 0) throw new FixtureError(file, line, `nested more than ${MAX_BODY_DEPTH} levels deep (at character ${at})`);
  }
  return text;
}

/**
 * Loads fixtures into `engine.store`. Objects load before calls are queried, but the order
 * between files does not matter for correctness: refs resolve at query time.
 */
export async function loadFixtures(engine: Engine, path: string, onProgress?: (p: LoadProgress) => void, options?: LoadOptions): Promise<LoadReport> {
  return loadFixtureFiles(engine, path, filesOf(path), onProgress, options);
}

export interface LoadOptions {
  /**
   * Calls files of at least this many bytes (as stored: compressed for .gz) are read and
   * scanned on a worker thread while this one stores the rows. Default PARALLEL_MIN_BYTES;
   * Infinity keeps every load on one thread.
   */
  parallelMinBytes?: number;
  /** Bytes between two progress reports (default 32 MiB; inside a long line, at most 1% of it). */
  progressStepBytes?: number;
  /** A parallel load's bytes per block and its hand-over rule (forEachPrescannedLine's; tests cross block boundaries with small blocks). */
  parallelBlocks?: { blockSize: number; handOverAt: number };
}

/** Loads the given fixture files, in order, into `engine.store`. */
export async function loadFixtureFiles(
  engine: Engine,
  source: string,
  files: readonly FixtureFile[],
  onProgress?: (p: LoadProgress) => void,
  { parallelMinBytes = PARALLEL_MIN_BYTES, progressStepBytes = PROGRESS_STEP_BYTES, parallelBlocks }: LoadOptions = {},
): Promise<LoadReport> {
  const report: LoadReport = { source, files: [], notices: [] };
  // A one-shot's gate (io/load-calls/gate.ts): every calls line is read and checked, only the
  // rows it admits are stored. OneShotGateGaveUp rejects the load (load it again without).
  const callGate = callsLoadGate(engine);
  for (const { file, kind } of files) {
    let records = 0;
    let last: ReadProgress = { bytesRead: 0, totalBytes: 0 };
    let lastLine = 0;
    // Progress counts the bytes stored: those read up to the last line stored (`doneBytes`),
    // and inside a long line (a table of a million rows is one line, a minute of digesting) the
    // share of it stored so far. The end of the file is reported once, after its last line.
    let doneBytes = 0;
    let reportedBytes = 0;
    const tell = (bytesRead: number) => {
      reportedBytes = bytesRead;
      onProgress!({ ...last, bytesRead, file, records });
    };
    /** Reports the stored share of the line read from `from` to `to` (bytes of the file), every 1% or step. */
    const longLineProgress = (from: number, to: number) => {
      const step = Math.max(1, Math.min(progressStepBytes, Math.floor((to - from) / 100)));
      return (share: number) => {
        const at = from + Math.floor(share * (to - from));
        if (at - reportedBytes >= step && at < last.totalBytes) tell(at);
      };
    };
    const gate = kind === 'calls' ? callGate : undefined;
    const onLine = (ref: LineRef, prescan?: CallLinePrescan, slot?: number) => {
      lastLine = ref.line;
      const long = onProgress !== undefined && ref.end - ref.start >= Math.min(progressStepBytes, LONG_LINE_BYTES);
      const stored = loadLine(engine, kind, file, ref, prescan, slot, gate, long ? longLineProgress(doneBytes, last.bytesRead) : undefined);
      doneBytes = last.bytesRead;
      if (stored === 0) return;
      const before = records;
      records += stored;
      if (onProgress && records >> 14 !== before >> 14) tell(Math.max(reportedBytes, doneBytes));
    };
    const onChunk = (p: ReadProgress) => {
      last = p;
      // A long line being read moves nothing yet: its bytes count as they are stored.
      if (onProgress && doneBytes < p.totalBytes && doneBytes - reportedBytes >= progressStepBytes) tell(doneBytes);
    };
    const parallel = isFixtureKind(kind) && FIXTURE_KIND_REGISTRY[kind].prescanned && existsSync(file) && statSync(file).size >= parallelMinBytes;
    // The gate's id set is sized once from the file's size (a .gz's says little of its lines).
    if (gate !== undefined && parallel && !file.endsWith('.gz')) gate.expectFileBytes(statSync(file).size);
    // Through a gate this thread stores few rows: it scans a block whenever it has one in hand or none queued.
    const handOverAt = parallelBlocks?.handOverAt ?? (gate === undefined ? undefined : 1);
    await (parallel ? forEachPrescannedLine(file, onLine, onChunk, parallelBlocks?.blockSize, handOverAt, gate?.spec ?? null) : forEachLine(file, onLine, onChunk)).catch((e: unknown) => {
      const code = (e as NodeJS.ErrnoException)?.code;
      if (typeof code === 'string' && code.startsWith('Z_')) {
        throw new FixtureError(file, 0, `gzip data is truncated/corrupt (after ${lastLine} lines)`);
      }
      throw e;
    });
    forgetLastBlock(); // the last block, not to be kept alive
    if (gate !== undefined) {
      // The rows a top-k kept, stored in file order; then every project a row named exists.
      for (const kept of gate.keptLines()) loadLine(engine, kind, file, { buf: Buffer.from(kept.bytes.buffer, kept.bytes.byteOffset, kept.bytes.byteLength), start: 0, end: kept.bytes.byteLength, line: kept.line });
      for (const projectId of gate.projectsSeen) engine.store.projectForWrite(projectId);
    }
    onProgress?.({ ...last, file, records });
    report.files.push({ file, kind, records });
    if (records === 0) report.notices.push(`${file}: empty`);
  }
  return report;
}

/**
 * Loads the lines of one fixture kind (or feeding file) from text that is not a file: a string, bytes, or a
 * stream of chunks (a Readable, an async generator; gunzip it first if compressed). `name`
 * stands for the file in error messages. Returns the number of records loaded.
 */
export async function loadFixtureText(
  engine: Engine,
  kind: FixtureFileKind,
  source: Parameters<typeof forEachLineOf>[0],
  name = `<${kind}>`,
): Promise<number> {
  if (!isFixtureFileKind(kind)) throw new FixtureError(name, 0, `unknown fixture kind '${String(kind)}' (${FIXTURE_FILE_KINDS.join(', ')})`);
  let records = 0;
  await forEachLineOf(source, (ref) => {
    records += loadLine(engine, kind, name, ref);
  });
  return records;
}
