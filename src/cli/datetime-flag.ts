/**
 * Datetime flags (`tq threads --after/--before`), checked as the engine will read them, so a
 * mistake names the flag instead of coming back as a 422 on `body.filter.after_datetime`.
 */
import { parseDatetimeInput } from '../core/datetime.ts';
import { UsageError } from './common.ts';

export function datetimeFlag(name: string, text: string): string {
  if (Number.isNaN(parseDatetimeInput(text))) throw new UsageError(`${name}: not an ISO 8601 datetime (e.g. 2025-03-01T00:00:00Z), got '${text}'`);
  return text;
}
