/**
 * pydantic's `datetime` field in lax mode, with speedate's exact 422 wording: the one datetime
 * schema every request model uses (call starts and ends, cost dates, thread bounds).
 */
import { parseDatetimeInput, parseIsoMicros } from '../datetime.ts';
import { issue, type Schema } from '../schema.ts';

const NUMERIC_TEXT = /^[+-]?\d+(\.\d+)?$/;
const DIGITS = /^\d+$/;

/**
 * speedate's reason for refusing a date-time string (the common cases, in its order of checks).
 * When the text is no date-time, pydantic retries it as a date and reports the date's error,
 * which is why a bad time reads "unexpected extra characters at the end of the input".
 */
export function datetimeProblem(text: string): string {
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

/**
 * pydantic `datetime` (lax): an ISO 8601 string (naive means UTC, as Weave assumes), or a unix
 * timestamp as a number or numeric string (seconds, or milliseconds above 2e10). The result is
 * µs since the epoch.
 */
export const datetime = (): Schema<number> => ({
  check(v, loc, issues) {
    if (typeof v === 'string') {
      // pydantic takes no surrounding whitespace; parseIsoMicros would.
      const us = v.trim() === v ? (NUMERIC_TEXT.test(v) ? parseDatetimeInput(v) : parseIsoMicros(v)) : NaN;
      if (!Number.isNaN(us)) return us;
      const error = datetimeProblem(v);
      return issue(issues, 'datetime_from_date_parsing', loc, `Input should be a valid datetime or date, ${error}`, v, { error });
    }
    if (typeof v === 'number' && Number.isFinite(v)) return parseDatetimeInput(v);
    return issue(issues, 'datetime_type', loc, 'Input should be a valid datetime', v);
  },
});
