/**
 * A thread's JSONL line (semantics.md#threads-line) written straight into the answer's bytes:
 * every ThreadSchema key present, datetimes as semantics.md#wire-datetimes, floats the way
 * pydantic writes them (`150.0`, not `150`). No string is built per line on the stream path.
 */
import { JsonLineWriter, utf8 } from '../../core/json/line-writer.ts';
import { DatetimeBytes } from '../calls/datetime-json.ts';
import type { ThreadStats } from './aggregate.ts';
import { writePyFloat } from './py-float-bytes.ts';

const THREAD_ID = utf8('{"thread_id":');
const TURN_COUNT = utf8(',"turn_count":');
const START_TIME = utf8(',"start_time":');
const LAST_UPDATED = utf8(',"last_updated":');
const FIRST_TURN_ID = utf8(',"first_turn_id":');
const LAST_TURN_ID = utf8(',"last_turn_id":');
const P50 = utf8(',"p50_turn_duration_ms":');
const P99 = utf8(',"p99_turn_duration_ms":');
const NULL = utf8('null');
const CLOSE = utf8('}');

/**
 * Writes the lines of one answer. Start and end times get a datetime writer each: each
 * column's successive values mostly fall on the same day, so each keeps its date prefix.
 */
export class ThreadLineWriter {
  private readonly starts = new DatetimeBytes();
  private readonly ends = new DatetimeBytes();

  /** One line, without its newline. */
  write(w: JsonLineWriter, t: ThreadStats): void {
    w.bytes(THREAD_ID);
    w.str(t.thread_id);
    w.bytes(TURN_COUNT);
    w.num(t.turn_count);
    w.bytes(START_TIME);
    this.starts.write(w, t.start_time);
    w.bytes(LAST_UPDATED);
    this.ends.write(w, t.last_updated);
    w.bytes(FIRST_TURN_ID);
    w.str(t.first_turn_id);
    w.bytes(LAST_TURN_ID);
    w.str(t.last_turn_id);
    w.bytes(P50);
    floatOrNull(w, t.p50_turn_duration_ms);
    w.bytes(P99);
    floatOrNull(w, t.p99_turn_duration_ms);
    w.bytes(CLOSE);
  }
}

function floatOrNull(w: JsonLineWriter, v: number | null): void {
  if (v === null) w.bytes(NULL);
  else writePyFloat(w, v);
}

const decoder = new TextDecoder();

/** One thread's line as text (for callers that want a string: the conformance corpus). */
export function threadLine(t: ThreadStats): string {
  const w = new JsonLineWriter(256);
  new ThreadLineWriter().write(w, t);
  return decoder.decode(w.take());
}
