/**
 * Which fixture kinds a request's answer can depend on, decided from the request body before
 * anything is loaded (docs/loading.md). A one-shot command loads only these: a calls query
 * on a directory with a million-row table does not read the table. The answer is byte-identical
 * to loading everything (spec-tests/lazy-kinds.test.ts runs the corpus both ways), because each
 * rule below names every place a query reads a kind:
 *  - calls queries read the call tables; expanding refs (`expand_columns`) reads objects, and
 *    through a table ref inside an object (`.../rows/index/0`), table rows;
 *  - `include_feedback` and any `feedback.[type]...` field (filter, sort, columns) read feedback;
 *  - `include_costs` reads the prices (costs).
 * A route not listed here, or a body that is not a JSON object, needs every kind (the route then
 * answers, or refuses the body, exactly as with everything loaded).
 */
import { FIXTURE_KINDS, type FixtureKind } from './fixture-kinds.ts';

type Needs = (body: Record<string, unknown>) => FixtureKind[];

/** Whether any string in `value` (a parsed JSON body) reads a feedback field. */
function readsFeedback(value: unknown, depth = 0): boolean {
  if (typeof value === 'string') return value.startsWith('feedback.');
  if (value === null || typeof value !== 'object' || depth > 64) return depth > 64;
  for (const v of Array.isArray(value) ? value : Object.values(value)) if (readsFeedback(v, depth + 1)) return true;
  return false;
}

/** A boolean request flag that is on (anything but absent, null or false: the route judges the rest). */
const on = (v: unknown) => v !== undefined && v !== null && v !== false;

const callsQuery: Needs = (body) => {
  const kinds: FixtureKind[] = ['calls'];
  const expand = body.expand_columns;
  if (on(expand) && !(Array.isArray(expand) && expand.length === 0)) kinds.push('tables', 'objects');
  if (on(body.include_feedback) || readsFeedback(body)) kinds.push('feedback');
  if (on(body.include_costs)) kinds.push('costs');
  return kinds;
};

/** What each query route's answer can read. */
const ROUTE_NEEDS: Record<string, Needs> = {
  '/calls/stream_query': callsQuery,
  '/calls/query': callsQuery,
  '/calls/query_stats': callsQuery,
  '/threads/stream_query': () => ['calls'],
  '/table/query_stream': () => ['tables'],
  '/table/query': () => ['tables'],
  '/objs/query': () => ['objects'],
};

/** The kinds the answer of `path` to the body `text` can depend on, in load order. */
export function kindsNeeded(path: string, text: string): FixtureKind[] {
  const needs = ROUTE_NEEDS[path];
  if (needs === undefined) return [...FIXTURE_KINDS];
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return [...FIXTURE_KINDS];
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return [...FIXTURE_KINDS];
  const wanted = new Set(needs(body as Record<string, unknown>));
  return FIXTURE_KINDS.filter((k) => wanted.has(k));
}
