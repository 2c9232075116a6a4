/**
 * Reading a journal file. Every record ends with `\n`, written in one append; so bytes after
 * the last `\n` are a record torn by a crash mid-append (never acknowledged: its fsync did not
 * return). They are reported, and cut off by the writer before it appends again. Any other
 * line that does not decode is an error naming `file:line`: a journal that says something tq
 * cannot read is never skipped.
 */
import { createReadStream } from 'node:fs';
import { FixtureError } from '../core/errors.ts';
import { decodeRecord, RecordFormatError, type JournalRecord } from './record.ts';

/** A journal line tq cannot read or replay: `file:line: problem`, as for fixture files. */
export class JournalError extends FixtureError {
  constructor(file: string, line: number, problem: string) {
    super(file, line, problem, 'TQ_JOURNAL_FILE');
    this.name = 'JournalError';
  }
}

export interface JournalScan {
  records: number;
  /** Bytes of complete records (where a torn tail starts). */
  completeBytes: number;
  /** Byte offset of a torn last record, if there is one. */
  tornAt?: number;
}

/**
 * Calls `onRecord` for each complete record of `file` in order. A failure in `onRecord`
 * (a record that does not replay) is reported as `file:line` too.
 */
export async function readJournal(file: string, onRecord: (record: JournalRecord, line: number) => void): Promise<JournalScan> {
  let offset = 0;
  let line = 0;
  let carry: Buffer | null = null;
  const handle = (bytes: Buffer) => {
    line++;
    let record: JournalRecord;
    try {
      record = decodeRecord(bytes.toString('utf8'));
      onRecord(record, line);
    } catch (e) {
      if (e instanceof RecordFormatError) throw new JournalError(file, line, e.message);
      throw new JournalError(file, line, (e as Error).message);
    }
    offset += bytes.length + 1;
  };
  for await (const chunk of createReadStream(file, { highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>) {
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(0x0a, start);
      if (nl < 0) break;
      const piece = chunk.subarray(start, nl);
      if (carry) {
        handle(Buffer.concat([carry, piece]));
        carry = null;
      } else handle(piece);
      start = nl + 1;
    }
    if (start < chunk.length) carry = carry ? Buffer.concat([carry, chunk.subarray(start)]) : Buffer.from(chunk.subarray(start));
  }
  if (carry && carry.length > 0 && !couldBeTornAppend(carry)) {
    // Zeros, or anything that is not the start of a record tq wrote: damage, not a torn append.
    // The start stops here and the bytes are kept (the caller truncates only a torn append).
    throw new JournalError(file, line + 1, `${carry.length} bytes after the last complete record are not the start of a record (a torn append leaves a prefix of what tq wrote; these hold ${carry.includes(0) ? 'zero bytes' : 'other text'}): damage, not a crash mid-append`);
  }
  return { records: line, completeBytes: offset, ...(carry && carry.length > 0 ? { tornAt: offset } : {}) };
}

/**
 * Whether the bytes after the last newline can be a crash mid-append: a prefix of one record line
 * as tq writes it (`{"v":…`, UTF-8 JSON text, never a zero byte). Only the last round of a group
 * commit can be torn, and it is always the tail of the newest segment.
 */
function couldBeTornAppend(tail: Buffer): boolean {
  const head = Buffer.from('{"v":');
  if (tail.includes(0)) return false;
  return tail.length <= head.length ? head.subarray(0, tail.length).equals(tail) : tail.subarray(0, head.length).equals(head);
}
