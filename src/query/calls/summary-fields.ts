/**
 * The computed `summary.weave.*` fields of the filter and sort side
 * (semantics.md#calls-summary-filter): computed from a call's columns, never read from its stored
 * summary. The one list: the field resolver, its 422 message, the response's discarding of
 * stored copies (summary.ts) and tq fuzz read it.
 */
import type { CallTable } from '../../store/call-table.ts';
import type { FieldAccessor } from './expr/fields.ts';

/**
 * The computed `summary.weave.status` of the filter side (semantics.md#calls-summary-filter: error,
 * descendant_error, running, success).
 */
function filterStatus(table: CallTable, row: number): string {
  if (table.exceptions.get(row) !== null) return 'error';
  const errors = table.statusErrorCount.data[row];
  if (Number.isInteger(errors) && errors > 0) return 'descendant_error';
  if (Number.isNaN(table.endedAt.data[row])) return 'running';
  return 'success';
}

/** `summary.weave.latency_ms` of the filter side: whole-ms difference, NULL while running. */
function filterLatencyMs(table: CallTable, row: number): number | null {
  const end = table.endedAt.data[row];
  if (Number.isNaN(end)) return null;
  return Math.floor(end / 1000) - Math.floor(table.startedAt.data[row] / 1000);
}

/** filterLatencyMs of `rows` into `out` (NaN while running), as one typed loop. */
function fillLatencyMs(table: CallTable, rows: ArrayLike<number>, out: Float64Array): void {
  const started = table.startedAt.data, ended = table.endedAt.data;
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i];
    out[i] = Math.floor(ended[r] / 1000) - Math.floor(started[r] / 1000); // NaN stays NaN
  }
}

/** The name segment of an op/object ref (`…/op/name:digest` → `name`), '' without a colon. */
export function refNameSegment(opName: string): string {
  const last = opName.slice(opName.lastIndexOf('/') + 1);
  const colon = last.indexOf(':');
  return colon < 0 ? '' : last.slice(0, colon);
}

/** `summary.weave.trace_name` of the filter side. */
function filterTraceName(table: CallTable, row: number): string | null {
  const display = table.displayNames.get(row);
  if (display !== null && display !== '') return display;
  const op = table.opName(row);
  if (op === null) return null;
  return op.startsWith('weave:///') || op.startsWith('weave-trace-internal:///') ? refNameSegment(op) : op;
}

/** Where the computed fields live in a field path. */
export const COMPUTED_SUMMARY_PREFIX = 'summary.weave.';

/** Name (below `summary.weave.`) → accessor over a call table; in the order a response writes them. */
export const COMPUTED_SUMMARY_FIELDS = {
  status: (t) => ({ kind: 'string', get: (r) => filterStatus(t, r) }),
  latency_ms: (t) => ({ kind: 'number', get: (r) => filterLatencyMs(t, r), fill: (rows, out) => fillLatencyMs(t, rows, out) }),
  trace_name: (t) => ({ kind: 'string', get: (r) => filterTraceName(t, r) }),
} satisfies Record<string, (table: CallTable) => FieldAccessor>;

export type ComputedSummaryField = keyof typeof COMPUTED_SUMMARY_FIELDS;

export const COMPUTED_SUMMARY_FIELD_NAMES = Object.keys(COMPUTED_SUMMARY_FIELDS) as ComputedSummaryField[];

export const isComputedSummaryField = (name: string): name is ComputedSummaryField =>
  (COMPUTED_SUMMARY_FIELD_NAMES as readonly string[]).includes(name);

/** The names as the server's 422 lists them: alphabetical, comma-separated. */
export const COMPUTED_SUMMARY_FIELDS_LISTED = [...COMPUTED_SUMMARY_FIELD_NAMES].sort().join(', ');
