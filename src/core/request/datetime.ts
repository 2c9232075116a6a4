/**
 * pydantic's `datetime` field in lax mode, with speedate's exact 422 wording: the one datetime
 * schema every request model uses (call starts and ends, cost dates, thread bounds).
 */
import { parseDatetimeInput, parseIsoMicros } from '../datetime.ts';
import type { ValidationIssue } from '../errors.ts';
import { LosslessNumber } from '../json/lossless.ts';
import { issue, type INVALID, type Loc, type Schema } from '../schema.ts';

const DIGITS = /^\d+$/;

/**
 * The date-times speedate accepts: a date, optionally a time after `T`, `t`, `_` or a space
 * (seconds and a fraction of any length optional), and an offset only after a time: `Z`, `z`,
 * `±HH:MM` or `±HHMM`.
 */
const SPEEDATE_DATETIME = /^(\d{4}-\d{2}-\d{2})(?:[Tt _](\d{2}:\d{2})(?::(\d{2})(?:([.,])(\d+))?)?(Z|z|[+-]\d{2}:?\d{2})?)?$/;

/** A unix timestamp as text: digits with an optional sign and fraction (`1.` and `.5` too). */
const NUMERIC_TEXT = /^[+-]?(\d+)?(?:\.(\d*))?$/;
/** speedate reads the integer part as an i64; a longer one is not a number to it. */
const I64_MAX = 9223372036854775807n;

/** Seconds bounds of a unix timestamp: speedate's (years 0000..9999), and Python's year 1. */
const END_SECONDS = 253_402_300_800; // 10000-01-01T00:00:00Z, the first instant refused
const MIN_SECONDS = -62_167_219_200;
const YEAR_ONE_SECONDS = -62_135_596_800;

/**
 * speedate's reason for refusing a date-time string (the common cases, in its order of checks).
 * When the text is no date-time, pydantic retries it as a date and reports the date's error,
 * which is why a bad time reads "unexpected extra characters at the end of the input".
 */
function datetimeProblem(text: string): string {
  if (text.length < 10) return 'input is too short';
  if (!DIGITS.test(text.slice(0, 4))) return 'invalid character in year';
  if (text[4] !== '-') return 'invalid date separator, expected `-`';
  if (!DIGITS.test(text.slice(5, 7))) return 'invalid character in month';
  const month = Number(text.slice(5, 7));
  if (month < 1 || month > 12) return 'month value is outside expected range of 1-12';
  if (text[7] !== '-') return 'invalid date separator, expected `-`';
  if (!DIGITS.test(text.slice(8, 10))) return 'invalid character in day';
  if (Number.isNaN(parseIsoMicros(text.slice(0, 10)))) return 'day value is outside expected range';
  return 'unexpected extra characters at the end of the input';
}

/** A speedate date-time string as µs, or NaN (then datetimeProblem says why). */
function isoMicros(text: string): number {
  const m = SPEEDATE_DATETIME.exec(text);
  if (m === null) return NaN;
  const [, date, hm, sec, sep, frac, offset] = m;
  if (hm === undefined) return parseIsoMicros(date);
  // Beyond nanoseconds a fraction only adds digits that are truncated anyway.
  const fraction = frac === undefined ? '' : `${sep}${frac.slice(0, 9)}`;
  return parseIsoMicros(`${date}T${hm}${sec === undefined ? '' : `:${sec}${fraction}`}${offset === undefined ? '' : offset.toUpperCase()}`);
}

/** Why a unix timestamp (seconds, or ms above 2e10) is out of range, or null when it is not. */
function timestampProblem(value: number): { error: string; python: boolean } | null {
  if (Number.isNaN(value)) return { error: 'NaN values not permitted', python: false };
  const seconds = Math.abs(value) > 2e10 ? value / 1000 : value;
  if (seconds >= END_SECONDS) return { error: 'dates after 9999 are not supported as unix timestamps', python: false };
  if (seconds < MIN_SECONDS) return { error: 'dates before 0000 are not supported as unix timestamps', python: false };
  // speedate takes year 0; Python's datetime, which pydantic then builds, does not.
  if (seconds < YEAR_ONE_SECONDS) return { error: 'year 0 is out of range', python: true };
  return null;
}

/** A timestamp given as text, when speedate reads the text as one. */
function numericText(text: string): number | null {
  const m = NUMERIC_TEXT.exec(text);
  if (m === null || (m[1] === undefined && !m[2])) return null;
  if (m[1] !== undefined && BigInt(m[1]) > I64_MAX) return null;
  return Number(text);
}

/** The issue of a value pydantic parsed but could not turn into a datetime. */
const parsingIssue = (issues: ValidationIssue[], loc: Loc, input: unknown, error: string): typeof INVALID =>
  issue(issues, 'datetime_parsing', loc, `Input should be a valid datetime, ${error}`, input, { error });

/** The issue of a string speedate refused. */
const textIssue = (issues: ValidationIssue[], loc: Loc, input: string, error: string): typeof INVALID =>
  issue(issues, 'datetime_from_date_parsing', loc, `Input should be a valid datetime or date, ${error}`, input, { error });

/**
 * pydantic `datetime` (lax): an ISO 8601 string (naive means UTC, as Weave assumes), or a unix
 * timestamp as a number or numeric string (seconds, or milliseconds above 2e10). The result is
 * µs since the epoch. Every refusal is worded as pydantic 2 words it.
 */
export const datetime = (): Schema<number> => ({
  check(v, loc, issues) {
    // An integer beyond 2^53 arrives exact (core/json/exact.ts); the issue echoes it so.
    const n = v instanceof LosslessNumber ? Number(v.lexeme) : v;
    if (typeof n === 'number') {
      const problem = timestampProblem(n);
      return problem === null ? parseDatetimeInput(n) : parsingIssue(issues, loc, v, problem.error);
    }
    if (typeof v !== 'string') return issue(issues, 'datetime_type', loc, 'Input should be a valid datetime', v);
    const timestamp = numericText(v);
    if (timestamp !== null) {
      const problem = timestampProblem(timestamp);
      if (problem === null) return parseDatetimeInput(timestamp);
      return problem.python ? parsingIssue(issues, loc, v, problem.error) : textIssue(issues, loc, v, problem.error);
    }
    const us = isoMicros(v);
    if (Number.isNaN(us)) return textIssue(issues, loc, v, datetimeProblem(v));
    return v.startsWith('0000') ? parsingIssue(issues, loc, v, 'year 0 is out of range') : us;
  },
});
