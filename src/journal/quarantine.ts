/**
 * Inspecting and setting aside one journal record (`tq journal show|quarantine DIR FILE:LINE`),
 * the way forward when a record stops the replay (src/journal/data-dir.ts `stoppedAt`). The
 * record's bytes move to DIR/quarantine/ (fsync'd there first), then the segment is rewritten
 * without them through a temp file and one rename, under DIR's lock: nothing is lost, and a
 * crash at any moment leaves either the old segment or the new one.
 */
import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { basename, join } from 'node:path';
import { replayRecord } from './apply.ts';
import { decodeRecord } from './record.ts';
import { acquireLock } from './lock.ts';
import { syncDir } from './sync-dir.ts';
import { createEngine } from '../engine.ts';

export const QUARANTINE_DIR = 'quarantine';

/** `FILE:LINE` → the segment's path in DIR and the 1-based line; null when it does not parse. */
export function parsePlace(dir: string, place: string): { file: string; line: number } | null {
  const m = /^([^/:]+\.jsonl):(\d+)$/.exec(place);
  return m && Number(m[2]) > 0 ? { file: join(dir, m[1]), line: Number(m[2]) } : null;
}

/** The byte range of line `line` of `bytes` (with its newline when it has one); null past the end. */
function lineRange(bytes: Buffer, line: number): { start: number; end: number } | null {
  let start = 0;
  for (let i = 1; i < line; i++) {
    const nl = bytes.indexOf(0x0a, start);
    if (nl < 0) return null;
    start = nl + 1;
  }
  if (start >= bytes.length) return null;
  const nl = bytes.indexOf(0x0a, start);
  return { start, end: nl < 0 ? bytes.length : nl + 1 };
}

/** What the record at FILE:LINE holds and whether it decodes (replay needs what came before it). */
export function showRecord(file: string, line: number): string {
  const bytes = readFileSync(file);
  const range = lineRange(bytes, line);
  if (range === null) throw new Error(`${basename(file)} has no line ${line}`);
  const text = bytes.subarray(range.start, range.end).toString('utf8').replace(/\n$/, '');
  let verdict: string;
  try {
    const record = decodeRecord(text);
    verdict = `decodes: ${record.route} by ${record.user}`;
    try {
      // Alone, on an empty store: a write that needs earlier records may fail here but not in DIR.
      replayRecord(createEngine(undefined, { fieldPrefix: record.prefix }), record);
      verdict += '; replays on an empty store';
    } catch (e) {
      verdict += `; on an empty store: ${(e as Error).message}`;
    }
  } catch (e) {
    verdict = `does not decode: ${(e as Error).message}`;
  }
  const shown = text.length > 2000 ? `${text.slice(0, 2000)}… (${text.length} characters)` : text;
  return `${basename(file)}:${line}: ${range.end - range.start} bytes at byte ${range.start}; ${verdict}\n${shown}`;
}

/** Moves the record at FILE:LINE to DIR/quarantine/ and rewrites the segment without it. */
export async function quarantineRecord(dir: string, file: string, line: number, now: Date = new Date()): Promise<string> {
  const release = acquireLock(dir);
  try {
    const bytes = readFileSync(file);
    const range = lineRange(bytes, line);
    if (range === null) throw new Error(`${basename(file)} has no line ${line}`);
    const qdir = join(dir, QUARANTINE_DIR);
    mkdirSync(qdir, { recursive: true, mode: 0o700 });
    const aside = join(qdir, `${basename(file)}.line-${line}.${now.toISOString().replace(/[:.]/g, '-')}`);
    writeDurably(aside, bytes.subarray(range.start, range.end));
    await syncDir(qdir);
    const temp = `${file}.quarantine.tmp`;
    writeDurably(temp, Buffer.concat([bytes.subarray(0, range.start), bytes.subarray(range.end)]));
    renameSync(temp, file);
    await syncDir(dir);
    return aside;
  } finally {
    release();
  }
}

function writeDurably(path: string, bytes: Uint8Array): void {
  const fd = openSync(path, 'wx', 0o600);
  try {
    let done = 0;
    while (done < bytes.length) done += writeSync(fd, bytes, done, bytes.length - done);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
