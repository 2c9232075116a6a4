/**
 * Datetimes of response lines as JSON strings (formatMicros' spelling): as text
 * (datetimeJsonFormatter) and written straight into a line's bytes (DatetimeBytes), without
 * building a string per row. Both encode the date part once per day and reuse it while rows
 * fall on the same day (most results span a few days).
 */
import { formatMicros } from '../../core/datetime.ts';
import { utf8, type JsonLineWriter } from '../../core/json/line-writer.ts';
import { COLON, DOT, QUOTE, ZERO } from '../../core/json/bytes.ts';

const DAY_US = 86_400_000_000;
const TWO_DIGITS = Array.from({ length: 60 }, (_, i) => String(i).padStart(2, '0'));

/**
 * A datetime renderer for one query's lines: formatMicros' output as a JSON string, with the
 * date part reused while rows fall on the same day.
 */
export function datetimeJsonFormatter(): (us: number) => string {
  let day = NaN;
  let prefix = '';
  return (us) => {
    if (Number.isNaN(us)) return 'null';
    const d = Math.floor(us / DAY_US);
    if (d !== day) {
      const text = formatMicros(d * DAY_US);
      day = d;
      prefix = `"${text.slice(0, text.indexOf('T') + 1)}`;
    }
    const inDay = us - d * DAY_US;
    const micros = inDay % 1_000_000;
    const secs = (inDay - micros) / 1_000_000;
    const time = `${TWO_DIGITS[Math.floor(secs / 3600)]}:${TWO_DIGITS[Math.floor((secs % 3600) / 60)]}:${TWO_DIGITS[secs % 60]}`;
    return micros === 0 ? `${prefix}${time}Z"` : `${prefix}${time}.${String(micros).padStart(6, '0')}Z"`;
  };
}
const Z = 0x5a;

/**
 * Days whose date part DatetimeBytes keeps at once (a power of two: a day's slot is its low
 * bits). More than one, because an answer sorted by anything but time (latency, a thread's p50)
 * visits its days in no order: with one, nearly every row encoded its date again.
 */
const DAY_SLOTS = 64;

/** datetimeJsonFormatter's output, written as bytes. */
export class DatetimeBytes {
  /** The day kept in each slot (NaN: none), and its `"YYYY-MM-DDT`. */
  private readonly days = new Float64Array(DAY_SLOTS).fill(NaN);
  private readonly prefixes: Uint8Array[] = new Array<Uint8Array>(DAY_SLOTS);
  /** For what has no byte form here (fractional microseconds): the text formatter. */
  private readonly text = datetimeJsonFormatter();

  /** Writes `us` (µs since the epoch) as a JSON datetime string, NaN as `null`. */
  write(w: JsonLineWriter, us: number): void {
    const b = w.room(MAX_BYTES);
    w.advance(this.put(b, w.position, us) - w.position);
  }

  /**
   * Writes `us` at `b[at]`, which has room for MAX_BYTES; returns the next index. For row
   * writers that keep their own position in the buffer.
   */
  put(b: Uint8Array, at: number, us: number): number {
    if (!Number.isSafeInteger(us) && !Number.isNaN(us)) {
      // Fractional microseconds (or beyond 2^53): the text formatter's spelling, ASCII.
      const text = this.text(us);
      if (text.length > MAX_BYTES) throw new Error(`datetime text of ${text.length} characters exceeds MAX_BYTES`);
      for (let i = 0; i < text.length; i++) b[at++] = text.charCodeAt(i);
      return at;
    }
    if (Number.isNaN(us)) {
      b[at] = 0x6e; // null
      b[at + 1] = 0x75;
      b[at + 2] = 0x6c;
      b[at + 3] = 0x6c;
      return at + 4;
    }
    const d = Math.floor(us / DAY_US);
    const slot = d & (DAY_SLOTS - 1);
    let prefix = this.prefixes[slot];
    if (this.days[slot] !== d) {
      const text = formatMicros(d * DAY_US);
      prefix = this.prefixes[slot] = utf8(`"${text.slice(0, text.indexOf('T') + 1)}`);
      this.days[slot] = d;
    }
    for (let i = 0; i < prefix.length; i++) b[at++] = prefix[i];
    const inDay = us - d * DAY_US;
    const micros = inDay % 1_000_000;
    const secs = (inDay - micros) / 1_000_000;
    at = two(b, at, Math.floor(secs / 3600));
    b[at++] = COLON;
    at = two(b, at, Math.floor((secs % 3600) / 60));
    b[at++] = COLON;
    at = two(b, at, secs % 60);
    if (micros !== 0) {
      b[at++] = DOT;
      // Six digits, last first (micros is a safe integer below 10^6 here: small-integer math).
      let m = micros;
      for (let k = 5; k >= 0; k--) {
        const q = (m / 10) | 0;
        b[at + k] = ZERO + (m - q * 10);
        m = q;
      }
      at += 6;
    }
    b[at++] = Z;
    b[at++] = QUOTE;
    return at;
  }
}

/**
 * Room put() needs. The longest spelling is a fractional microsecond: `"` + `YYYY-MM-DDT`
 * (years 1..9999 are four digits) + `hh:mm:ss.` + up to 18 characters of a double's digits +
 * `Z"`, about 45 bytes.
 */
export const MAX_BYTES = 64;

/** Two digits (hours, minutes, seconds: always below 100) at `at`; returns the next index. */
function two(b: Uint8Array, at: number, v: number): number {
  b[at] = ZERO + Math.floor(v / 10);
  b[at + 1] = ZERO + (v % 10);
  return at + 2;
}
