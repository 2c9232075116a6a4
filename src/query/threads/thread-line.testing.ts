/**
 * The thread line as it was rendered before it was written as bytes: one string built by
 * hand, floats through pyFloatRepr, datetimes through formatMicros. Kept as the oracle that
 * thread-line.ts must match byte for byte.
 */
import { formatMicros } from '../../core/datetime.ts';
import { pyFloatRepr } from '../../core/json/py-float.ts';
import type { ThreadStats } from './aggregate.ts';

const floatOrNull = (v: number | null) => (v === null ? 'null' : pyFloatRepr(v));
const datetimeOrNull = (us: number) => (Number.isNaN(us) ? 'null' : JSON.stringify(formatMicros(us)));

export function threadLineOracle(t: ThreadStats): string {
  return (
    `{"thread_id":${JSON.stringify(t.thread_id)},"turn_count":${t.turn_count},` +
    `"start_time":${datetimeOrNull(t.start_time)},"last_updated":${datetimeOrNull(t.last_updated)},` +
    `"first_turn_id":${JSON.stringify(t.first_turn_id)},"last_turn_id":${t.last_turn_id === null ? 'null' : JSON.stringify(t.last_turn_id)},` +
    `"p50_turn_duration_ms":${floatOrNull(t.p50_turn_duration_ms)},"p99_turn_duration_ms":${floatOrNull(t.p99_turn_duration_ms)}}`
  );
}
