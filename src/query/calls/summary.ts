/**
 * The response-side computed summary (semantics.md#calls-summary-response, Weave's
 * make_derived_summary_fields): recomputed for every returned call from its columns, discarding
 * stored copies.
 */
import { isPlainObject } from '../../core/plain-object.ts';
import { looksLikeRef, parseObjectRef } from '../../core/refs.ts';
import { timedeltaMillis } from '../../core/datetime.ts';
import { defineOwn, LosslessNumber } from '../../core/json/lossless.ts';
import { stringBytes, type DerivedCache } from '../../store/derived.ts';
import type { Store } from '../../store/store.ts';
import { COMPUTED_SUMMARY_FIELD_NAMES } from './summary-fields.ts';

export interface SummaryInputs {
  summary: Record<string, unknown> | null;
  opName: string;
  startedAt: number | null;
  endedAt: number | null;
  exception: string | null;
  displayName: string | null;
  /** The engine's trace-name cache (traceNameCache); without it each name is computed. */
  traceNames?: TraceNames;
}

/** Keys of a stored `weave` block that the computed one replaces: the filterable ones and display_name. */
const DERIVED: readonly string[] = [...COMPUTED_SUMMARY_FIELD_NAMES, 'display_name'];

/**
 * Returns a new summary object whose `weave` block is computed (semantics.md#calls-summary-response
 * steps 1–5).
 */
export function deriveSummary(c: SummaryInputs): Record<string, unknown> {
  // A fresh object with the stored keys but `weave` (no spread + delete: a deleted key turns
  // the object into a slow dictionary, and every line is serialised from it).
  const summary: Record<string, unknown> = {};
  let stored: unknown;
  if (c.summary) {
    for (const k in c.summary) {
      if (k === 'weave') stored = c.summary[k];
      else defineOwn(summary, k, c.summary[k]);
    }
  }
  const weave: Record<string, unknown> = {};
  if (isPlainObject(stored)) {
    for (const [k, v] of Object.entries(stored)) if (!DERIVED.includes(k)) defineOwn(weave, k, v);
  }

  // Status, response order: error (truthy exception), running, descendant_error, success.
  let status: string;
  if (c.exception) status = 'error';
  else if (c.endedAt === null) status = 'running';
  else if (descendantErrors(c.summary) > 0) status = 'descendant_error';
  else status = 'success';
  weave.status = status;

  if (c.startedAt !== null && c.endedAt !== null) weave.latency_ms = timedeltaMillis(c.startedAt, c.endedAt);

  if (c.displayName) {
    weave.display_name = c.displayName;
  } else {
    const name = traceName(c.opName, c.traceNames);
    if (name !== null) weave.trace_name = name;
  }
  summary.weave = weave;
  return summary;
}

/**
 * The computed `weave` block alone, as JSON text, for a stored summary that has no `weave` key
 * of its own: what deriveSummary puts there, in the same key order. `errorCount` is the
 * stored `status_counts.error` when it is a number (CallTable.statusErrorCount), else NaN.
 */
export function derivedWeaveJson(c: Omit<SummaryInputs, 'summary'>, errorCount: number): string {
  const status = c.exception ? 'error' : c.endedAt === null ? 'running' : errorCount > 0 ? 'descendant_error' : 'success';
  let out = `{"status":"${status}"`;
  if (c.startedAt !== null && c.endedAt !== null) out += `,"latency_ms":${JSON.stringify(timedeltaMillis(c.startedAt, c.endedAt))}`;
  if (c.displayName) out += `,"display_name":${JSON.stringify(c.displayName)}`;
  else {
    const name = traceName(c.opName, c.traceNames);
    if (name !== null) out += `,"trace_name":${JSON.stringify(name)}`;
  }
  return out + '}';
}

/** Op names repeat across calls: their trace names are computed once each, per engine. */
export class TraceNames implements DerivedCache {
  private readonly names = new Map<string, string | null>();

  get(opName: string): string | null {
    let name = this.names.get(opName);
    if (name === undefined) {
      name = computeTraceName(opName);
      if (this.names.size >= TRACE_NAME_CACHE_LIMIT) this.names.clear();
      this.names.set(opName, name);
    }
    return name;
  }

  clear(): void {
    this.names.clear();
  }

  bytes(): number {
    // Keys are the table's interned op names (held anyway); an entry and its name are extra.
    let n = 0;
    for (const name of this.names.values()) n += 32 + (name === null ? 0 : stringBytes(name));
    return n;
  }
}

const TRACE_NAME_CACHE_LIMIT = 65_536;

/** The store's trace-name cache. */
export const traceNameCache = (store: Store): TraceNames => store.derived.get('calls.trace_names', () => new TraceNames());

export function traceName(opName: string, cache?: TraceNames): string | null {
  return cache === undefined ? computeTraceName(opName) : cache.get(opName);
}

/**
 * semantics.md#calls-summary-response step 4: the ref's name part for object/op refs, none for
 * other refs, else op_name.
 */
function computeTraceName(opName: string): string | null {
  // Only object/op refs give a trace name; other ref-looking names give none.
  return looksLikeRef(opName) ? (parseObjectRef(opName)?.name ?? null) : opName;
}

function descendantErrors(summary: Record<string, unknown> | null): number {
  const counts = summary?.status_counts;
  if (!isPlainObject(counts)) return 0;
  const v = counts.error;
  if (v instanceof LosslessNumber) return Number(v.lexeme); // a count stored as a float (`1.0`)
  return typeof v === 'number' ? v : 0;
}
