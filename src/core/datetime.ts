/**
 * Datetimes as integer microseconds since the Unix epoch (UTC), the precision Weave stores.
 * A float64 holds every microsecond exactly for ±285 years around 1970, so plain numbers are
 * used; NaN stands for "no value" in typed-array columns.
 */

const ISO =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?\s*(Z|z|[+-]\d{2}(?::?\d{2})?)?$/;

/** Days since 1970-01-01 of a proleptic Gregorian date (no Date object: keeps years < 100 right). */
function daysFromCivil(y: number, m: number, d: number): number {
  y -= m <= 2 ? 1 : 0;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

function daysInMonth(y: number, m: number): number {
  if (m === 2) return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0 ? 29 : 28;
  return m === 4 || m === 6 || m === 9 || m === 11 ? 30 : 31;
}

const digit = (text: string, i: number) => text.charCodeAt(i) - 48;
const two = (text: string, i: number) => digit(text, i) * 10 + digit(text, i + 1);

/**
 * The common case, `YYYY-MM-DDTHH:MM:SS[.f…]Z` from 1970 on, without a regex: what every
 * fixture line and client sends, parsed a million times on a large load. Returns -1 for
 * anything else (the general parser then decides).
 */
function parseCanonicalUtc(text: string): number {
  const n = text.length;
  if (n < 20 || text.charCodeAt(n - 1) !== 0x5a /* Z */ || text.charCodeAt(4) !== 0x2d || text.charCodeAt(7) !== 0x2d) return -1;
  if (text.charCodeAt(10) !== 0x54 /* T */ || text.charCodeAt(13) !== 0x3a || text.charCodeAt(16) !== 0x3a) return -1;
  for (const i of CANONICAL_DIGITS) {
    const d = digit(text, i);
    if (d < 0 || d > 9) return -1;
  }
  let micros = 0;
  if (n > 20) {
    if (text.charCodeAt(19) !== 0x2e /* . */ || n - 21 < 1 || n - 21 > 9) return -1;
    for (let i = 20, scale = 100_000; i < n - 1; i++, scale /= 10) {
      const d = digit(text, i);
      if (d < 0 || d > 9) return -1;
      if (scale >= 1) micros += d * scale;
    }
  }
  const y = digit(text, 0) * 1000 + digit(text, 1) * 100 + two(text, 2);
  const mo = two(text, 5), d = two(text, 8), h = two(text, 11), mi = two(text, 14), s = two(text, 17);
  if (y < 1970 || mo < 1 || mo > 12 || d < 1 || d > daysInMonth(y, mo) || h > 23 || mi > 59 || s > 59) return -1;
  return (daysFromCivil(y, mo, d) * 86400 + h * 3600 + mi * 60 + s) * 1_000_000 + micros;
}
const CANONICAL_DIGITS = [0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18];

/**
 * parseCanonicalUtc on the bytes `buf[from, to)` of an ASCII text (a fixture line's datetime,
 * read without decoding it to a string): the same checks, the same result, -1 for anything else.
 */
export function parseCanonicalUtcBytes(buf: Uint8Array, from: number, to: number): number {
  // No closures over buf: this runs three times per line of a large load.
  const n = to - from;
  if (n < 20 || buf[to - 1] !== 0x5a /* Z */ || buf[from + 4] !== 0x2d || buf[from + 7] !== 0x2d) return -1;
  if (buf[from + 10] !== 0x54 /* T */ || buf[from + 13] !== 0x3a || buf[from + 16] !== 0x3a) return -1;
  for (let k = 0; k < CANONICAL_DIGITS.length; k++) {
    const d = buf[from + CANONICAL_DIGITS[k]] - 48;
    if (d < 0 || d > 9) return -1;
  }
  let micros = 0;
  if (n > 20) {
    if (buf[from + 19] !== 0x2e /* . */ || n - 21 < 1 || n - 21 > 9) return -1;
    for (let i = from + 20, scale = 100_000; i < to - 1; i++, scale /= 10) {
      const d = buf[i] - 48;
      if (d < 0 || d > 9) return -1;
      if (scale >= 1) micros += d * scale;
    }
  }
  const y = twoDigitsAt(buf, from) * 100 + twoDigitsAt(buf, from + 2);
  const mo = twoDigitsAt(buf, from + 5), d = twoDigitsAt(buf, from + 8), h = twoDigitsAt(buf, from + 11), mi = twoDigitsAt(buf, from + 14), s = twoDigitsAt(buf, from + 17);
  if (y < 1970 || mo < 1 || mo > 12 || d < 1 || d > daysInMonth(y, mo) || h > 23 || mi > 59 || s > 59) return -1;
  return (daysFromCivil(y, mo, d) * 86400 + h * 3600 + mi * 60 + s) * 1_000_000 + micros;
}

/** The two-digit number at `buf[at]` (its bytes checked to be digits beforehand). */
function twoDigitsAt(buf: Uint8Array, at: number): number {
  return (buf[at] - 48) * 10 + buf[at + 1] - 48;
}

/**
 * Parses an ISO 8601 date-time (any offset; naive means UTC, as Weave assumes) to µs.
 * Fractions beyond microseconds are truncated. Returns NaN when the text is not a valid time.
 */
export function parseIsoMicros(text: string): number {
  const fast = parseCanonicalUtc(text);
  if (fast >= 0) return fast;
  const m = ISO.exec(text.trim());
  if (!m) return NaN;
  const [, ys, mos, ds, hs = '0', mis = '0', ss = '0', frac = '', tz] = m;
  const y = +ys, mo = +mos, d = +ds, h = +hs, mi = +mis, s = +ss;
  if (mo < 1 || mo > 12 || d < 1 || d > daysInMonth(y, mo) || h > 23 || mi > 59 || s > 59) return NaN;
  let offsetMin = 0;
  if (tz && tz !== 'Z' && tz !== 'z') {
    const sign = tz[0] === '-' ? -1 : 1;
    const digits = tz.slice(1).replace(':', '');
    const oh = +digits.slice(0, 2), om = digits.length > 2 ? +digits.slice(2, 4) : 0;
    if (oh > 23 || om > 59) return NaN;
    offsetMin = sign * (oh * 60 + om);
  }
  const micros = frac ? +(frac + '000000').slice(0, 6) : 0;
  const seconds = daysFromCivil(y, mo, d) * 86400 + h * 3600 + mi * 60 + s - offsetMin * 60;
  return seconds * 1_000_000 + micros;
}

/**
 * pydantic's lax datetime input: an ISO string, or a unix timestamp number (seconds, or
 * milliseconds when larger than 2e10, as pydantic decides). NaN when neither.
 */
export function parseDatetimeInput(value: unknown): number {
  if (typeof value === 'string') {
    const iso = parseIsoMicros(value);
    if (!Number.isNaN(iso)) return iso;
    const t = value.trim();
    return t !== '' && /^[+-]?\d+(\.\d+)?$/.test(t) ? parseDatetimeInput(Number(t)) : NaN;
  }
  if (typeof value === 'number' && Number.isFinite(value)) {
    const seconds = Math.abs(value) > 2e10 ? value / 1000 : value;
    return Math.round(seconds * 1_000_000);
  }
  return NaN;
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/**
 * Formats µs as `YYYY-MM-DDTHH:MM:SS[.ffffff]Z` (fraction only when non-zero;
 * semantics.md#wire-datetimes).
 */
export function formatMicros(us: number): string {
  const micros = ((us % 1_000_000) + 1_000_000) % 1_000_000;
  const totalSeconds = (us - micros) / 1_000_000;
  const days = Math.floor(totalSeconds / 86400);
  const secOfDay = totalSeconds - days * 86400;
  // civil-from-days (Howard Hinnant's algorithm)
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  const y = yoe + era * 400 + (m <= 2 ? 1 : 0);
  const hh = Math.floor(secOfDay / 3600), mm = Math.floor((secOfDay % 3600) / 60), ss = secOfDay % 60;
  const base = `${pad(y, 4)}-${pad(m)}-${pad(d)}T${pad(hh)}:${pad(mm)}:${pad(ss)}`;
  return micros === 0 ? `${base}Z` : `${base}.${pad(micros, 6)}Z`;
}

/** Whole milliseconds of a µs time, floored (ClickHouse toUnixTimestamp64Milli of a DateTime64(6)). */
export const floorMillis = (us: number) => Math.floor(us / 1000);

/**
 * Python timedelta whole milliseconds: days*86400000 + seconds*1000 + microseconds//1000.
 * timedelta normalises so that microseconds is in [0, 1e6); that makes this a floor of the
 * exact difference in ms (−0.5 ms → −1).
 */
export const timedeltaMillis = (startUs: number, endUs: number) => Math.floor((endUs - startUs) / 1000);
