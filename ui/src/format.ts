/** How a call's columns are read and shown (status, latency, tokens, cost, user). */
export interface CallRow {
  id: string;
  project_id: string;
  op_name: string;
  display_name: string | null;
  trace_id: string;
  parent_id: string | null;
  thread_id?: string | null;
  started_at: string;
  ended_at: string | null;
  exception: string | null;
  attributes?: unknown;
  inputs?: unknown;
  output?: unknown;
  summary?: Record<string, unknown> | null;
  [key: string]: unknown;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `weave:///e/p/op/name:digest` → `name`; anything else as it is. */
function opName(ref: string): string {
  const m = /^weave:\/\/\/[^/]+\/[^/]+\/op\/([^:]+):/.exec(ref);
  return m ? m[1] : ref;
}

export const callTitle = (c: CallRow) => c.display_name || opName(c.op_name);

const weaveSummary = (c: CallRow): Record<string, unknown> => (isObject(c.summary) && isObject(c.summary.weave) ? c.summary.weave : {});

export function statusOf(c: CallRow): string {
  const s = weaveSummary(c).status;
  if (typeof s === 'string') return s;
  if (c.exception) return 'error';
  return c.ended_at ? 'success' : 'running';
}

const ms = (iso: string | null) => (iso ? Date.parse(iso) : NaN);

export function latencyMs(c: CallRow): number | undefined {
  const l = weaveSummary(c).latency_ms;
  if (typeof l === 'number') return l;
  const d = ms(c.ended_at) - ms(c.started_at);
  return Number.isFinite(d) ? d : undefined;
}

/** Total tokens over the models of `summary.usage`. */
export function tokensOf(c: CallRow): number | undefined {
  const usage = isObject(c.summary) ? c.summary.usage : undefined;
  if (!isObject(usage)) return undefined;
  let total = 0;
  let any = false;
  for (const u of Object.values(usage)) {
    if (!isObject(u)) continue;
    const t = typeof u.total_tokens === 'number' ? u.total_tokens : (Number(u.prompt_tokens) || 0) + (Number(u.completion_tokens) || 0);
    if (Number.isFinite(t)) {
      total += t;
      any = true;
    }
  }
  return any ? total : undefined;
}

/** Total cost (USD) over the models of `summary.weave.costs` (asked for with include_costs). */
export function costOf(c: CallRow): number | undefined {
  const costs = weaveSummary(c).costs;
  if (!isObject(costs)) return undefined;
  let total = 0;
  for (const m of Object.values(costs)) {
    if (!isObject(m)) continue;
    total += (Number(m.prompt_tokens_total_cost) || 0) + (Number(m.completion_tokens_total_cost) || 0);
  }
  return total;
}

/** The user id column, whichever wire prefix the server uses (svc_ or wb_). */
export const userOf = (c: CallRow): string => String(c.svc_user_id ?? c.wb_user_id ?? '');

/** The value at a dotted path (`inputs.model`), or undefined. */
export function valueAt(row: unknown, path: string): unknown {
  let v: unknown = row;
  for (const part of path.split('.')) {
    if (!isObject(v)) return undefined;
    v = v[part];
  }
  return v;
}

export function fmtMs(n: number | undefined): string {
  if (n === undefined) return '';
  if (n < 1000) return `${Math.round(n)} ms`;
  if (n < 60_000) return `${(n / 1000).toFixed(2)} s`;
  return `${(n / 60_000).toFixed(1)} min`;
}

export const fmtInt = (n: number | undefined) => (n === undefined ? '' : n.toLocaleString('en-US'));

export function fmtCost(n: number | undefined): string {
  if (n === undefined) return '';
  return n === 0 ? '$0' : n < 0.01 ? `$${n.toPrecision(2)}` : `$${n.toFixed(2)}`;
}

/** A timestamp in the browser's time zone, to the second (`2025-03-12 10:00:00`). */
export function fmtTime(iso: string | null | undefined): string {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

/** A short one-line rendering of any JSON value, for a table cell. */
export function compact(v: unknown, max = 120): string {
  if (v === undefined) return '';
  const text = typeof v === 'string' ? v : JSON.stringify(v);
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
