/**
 * The benchmark's cross-checks: the same rows in the same order (by key), and the same content
 * for a sample of rows, compared in a canonical form that forgives only what is presentation:
 * key order, datetime spelling (tq `2025-01-01T00:00:00.5Z`, DuckDB `2025-01-01 00:00:00.5`),
 * a computed latency/name left out versus written as null, and float noise in percentiles.
 */
import stableStringify from 'fast-json-stable-stringify';
import type { RowKind } from './queries.ts';

/** Compares two key lists; null when equal, else a description naming the differing keys. */
export function diffIds(expected: readonly string[], actual: readonly string[]): string | null {
  if (expected.length === actual.length && expected.every((id, i) => id === actual[i])) return null;
  const exp = new Set(expected);
  const act = new Set(actual);
  const missing = expected.filter((id) => !act.has(id));
  const extra = actual.filter((id) => !exp.has(id));
  const firstDiff = expected.findIndex((id, i) => id !== actual[i]);
  const at = firstDiff < 0 ? Math.min(expected.length, actual.length) : firstDiff;
  const window = (list: readonly string[]) => JSON.stringify(list.slice(Math.max(0, at - 1), at + 4));
  return (
    `${expected.length} expected vs ${actual.length} actual; missing ${missing.length} ${JSON.stringify(missing.slice(0, 10))}; ` +
    `extra ${extra.length} ${JSON.stringify(extra.slice(0, 10))}; first order difference at position ${at}: ` +
    `expected ${window(expected)} got ${window(actual)}`
  );
}

type Obj = Record<string, unknown>;

const DATETIME_KEYS = new Set(['started_at', 'ended_at', 'deleted_at', 'start_time', 'last_updated', 'created_at']);

/** µs since epoch of `YYYY-MM-DD[T ]HH:MM:SS[.ffffff][Z]`; other values unchanged. */
export function canonicalDatetime(v: unknown): unknown {
  if (typeof v !== 'string') return v;
  const m = /^(\d{4}-\d\d-\d\dT?\s?\d\d:\d\d:\d\d)(?:\.(\d{1,6}))?Z?$/.exec(v.replace(' ', 'T'));
  if (!m) return v;
  return Date.parse(m[1] + 'Z') * 1000 + Number((m[2] ?? '').padEnd(6, '0'));
}

const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The computed summary fields both sides produce, with the trace name/display name folded. */
function canonicalWeave(weave: unknown): Obj {
  const w = isObj(weave) ? weave : {};
  const out: Obj = {
    status: w.status ?? null,
    latency_ms: w.latency_ms ?? null,
    name: w.display_name ?? w.trace_name ?? null,
  };
  if (Array.isArray(w.feedback)) out.feedback = w.feedback.map((f) => (isObj(f) ? { ...f, created_at: canonicalDatetime(f.created_at) } : f));
  return out;
}

function canonicalCall(row: Obj, columns: readonly string[] | null): Obj {
  const out: Obj = {};
  const keys = columns ?? Object.keys(row).filter((k) => k !== 'storage_size_bytes' && k !== 'total_storage_size_bytes');
  for (const k of keys) {
    let v = row[k];
    if (DATETIME_KEYS.has(k)) v = canonicalDatetime(v);
    else if (k === 'summary') {
      const { weave, ...stored } = isObj(v) ? v : ({} as Obj);
      v = { ...stored, weave: canonicalWeave(weave) };
    } else if ((k === 'inputs' || k === 'attributes') && v === null) v = {};
    out[k] = v;
  }
  return out;
}

/** Percentiles as ClickHouse/DuckDB compute them can differ in the last bits. */
const roundFloat = (v: unknown) => (typeof v === 'number' && !Number.isInteger(v) ? Number(v.toPrecision(12)) : v);

/** The canonical form of one result row. */
export function canonicalRow(kind: RowKind, row: unknown, columns: readonly string[] | null): string {
  if (!isObj(row)) return stableStringify(row);
  switch (kind) {
    case 'call':
      return stableStringify(canonicalCall(row, columns));
    case 'thread': {
      const out: Obj = {};
      for (const [k, v] of Object.entries(row)) out[k] = DATETIME_KEYS.has(k) ? canonicalDatetime(v) : roundFloat(v);
      return stableStringify(out);
    }
    case 'table_row':
      return stableStringify({ digest: row.digest, val: row.val, original_index: row.original_index });
    case 'stats':
      return stableStringify(row);
  }
}

/** The key the order check compares: call id, thread id, table position, or the whole row. */
export function rowKey(kind: RowKind, row: unknown): string {
  const r = isObj(row) ? row : {};
  switch (kind) {
    case 'call':
      return String(r.id);
    case 'thread':
      return String(r.thread_id);
    case 'table_row':
      return String(r.original_index);
    case 'stats':
      return stableStringify(row);
  }
}

export interface CheckResult {
  ids_match: boolean;
  /** Rows whose canonical content was compared. */
  content_sampled: number;
  content_match: boolean;
  detail: string | null;
}

/**
 * Cross-checks DuckDB's texts against tq's: keys and order for every row, canonical content for
 * up to `sample` rows spread over the result (first and last included).
 */
export function crossCheck(kind: RowKind, columns: readonly string[] | null, tqTexts: readonly string[], duckTexts: readonly string[], sample = 50): CheckResult {
  const tqRows = tqTexts.map((t) => JSON.parse(t) as unknown);
  const duckRows = duckTexts.map((t) => JSON.parse(t) as unknown);
  const idDiff = diffIds(tqRows.map((r) => rowKey(kind, r)), duckRows.map((r) => rowKey(kind, r)));
  if (idDiff !== null) return { ids_match: false, content_sampled: 0, content_match: false, detail: `keys: ${idDiff}` };
  const n = tqRows.length;
  const picks = new Set<number>();
  for (let i = 0; i < Math.min(sample, n); i++) picks.add(Math.round((i * (n - 1)) / Math.max(1, Math.min(sample, n) - 1)));
  for (const i of picks) {
    const a = canonicalRow(kind, tqRows[i], columns);
    const b = canonicalRow(kind, duckRows[i], columns);
    if (a !== b) {
      return { ids_match: true, content_sampled: picks.size, content_match: false, detail: `row ${i} (${rowKey(kind, tqRows[i])}): tq ${a.slice(0, 600)} vs DuckDB ${b.slice(0, 600)}` };
    }
  }
  return { ids_match: true, content_sampled: picks.size, content_match: true, detail: null };
}
