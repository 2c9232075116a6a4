/**
 * `POST /refs/read_batch` (RefsReadBatchReq `{refs}` → `{vals}`), as production's
 * `_parsed_refs_read_batch` (semantics.md#refs-read-batch): one value per ref, in order. An
 * object or op ref names its version by digest: `latest` is a 400 and `v<N>` is read as a
 * digest. The root objects are looked up together; digests that name no object (deleted ones
 * exist) fail the whole batch with a 404 listing them. Then each extra path is followed in
 * pairs: `key` / `attr` index a dict, `index` a list (or a string, as Python indexing does;
 * negative counts from the end), `id` reads a row of the table the value refers to. A string
 * that is an object ref met with steps left is read in the next round (again all together,
 * again 404 for missing digests) and the path goes on inside it, to its end (production stops
 * there and returns the nested object: semantics.md#refs-read-nested-path, a deviation).
 * Anything else unresolvable (deleted object, missing key, bad index, unknown edge) is `null`,
 * and so is every ref into a project the caller holds no grant on (semantics.md#auth-grants-refs):
 * nothing about that project leaks, not even whether a digest exists. Table and call refs as
 * such are rejected (400), as production rejects them; more than 1000 refs is a 400.
 */
import { defineRoute } from '../../api/define-route.ts';
import { parseSpelled } from '../../core/json/exact.ts';
import type { RequestContext } from '../../api/types.ts';
import { invalidRequest, RefObjectsNotFoundError } from '../../core/errors.ts';
import { pyStrRepr } from '../../core/json/pyjson.ts';
import { isPlainObject } from '../../core/plain-object.ts';
import { parseRef, unquoteRefPart, type ParsedRef } from '../../core/refs.ts';
import { list, model, str } from '../../core/schema.ts';
import type { Store } from '../../store/store.ts';

const MAX_REFS = 1000;
const readBatchModel = model('RefsReadBatchReq', { refs: list(str()) }, { strict: true });

const bad = (reason: string) => invalidRequest('TQ_INVALID_REQUEST', { reason });
const LATEST_REFUSED = 'Reading refs with `latest` is not supported';

const NONE = Symbol('none');
type Found = unknown | typeof NONE;

/** Python's `val[int(arg)]` for a list or a string; NONE where Python raises. */
function indexed(val: unknown, arg: string): Found {
  if (!/^\s*[-+]?\d+\s*$/.test(arg)) return NONE;
  let i = Number(arg.trim());
  const items = typeof val === 'string' ? [...val] : Array.isArray(val) ? val : null;
  if (items === null) return NONE;
  if (i < 0) i += items.length;
  return i >= 0 && i < items.length ? items[i] : NONE;
}

/** One extra-path step (edge, argument) from `val`; NONE when it does not resolve. */
function step(store: Store, ctx: RequestContext, val: unknown, edge: string, arg: string): Found {
  switch (edge) {
    case 'key':
    case 'attr':
      return isPlainObject(val) && Object.prototype.hasOwnProperty.call(val, arg) ? val[arg] : NONE;
    case 'index':
      return indexed(val, arg);
    case 'id': {
      const table = typeof val === 'string' ? parseRef(val) : null;
      if (table?.kind !== 'table' || !ctx.canRead(table.projectId)) return NONE;
      const row = store.project(table.projectId)?.rows.get(arg);
      return row ? (row.parsed ??= JSON.parse(row.text)) : NONE;
    }
    default:
      return NONE;
  }
}

/** A ref being read: the object still to look up (null: none), the value so far, the steps left. */
interface Reading {
  pending: ParsedRef | null;
  val: Found;
  steps: string[];
}

/** Production's rule for a nested object ref met with steps left: its own path only (the defect). */
export interface RefReadRules {
  /** True: the steps after a nested object ref are followed inside it (tq); false: dropped (production). */
  followPastNestedRefs: boolean;
}

const TQ_REF_RULES: RefReadRules = { followPastNestedRefs: true };
export const PRODUCTION_REF_RULES: RefReadRules = { followPastNestedRefs: false };

/**
 * Looks up one round of object refs: every digest must name a version of its object (deleted
 * ones included), else the batch fails with production's RefObjectsNotFoundError. Refs into
 * projects without a grant read as null and are never looked up.
 */
function lookUpRound(store: Store, ctx: RequestContext, round: Reading[]): void {
  const asked: string[] = [];
  const found = new Set<string>();
  const versions = round.map((r) => {
    const ref = r.pending!;
    if (!ctx.canRead(ref.projectId)) return null;
    if (ref.version === 'latest') throw bad(LATEST_REFUSED);
    const digest = ref.version ?? '';
    if (!asked.includes(digest)) asked.push(digest);
    const version = store.project(ref.projectId)?.objects.get(ref.name)?.find((v) => v.digest === digest);
    if (version) found.add(digest);
    return version ?? null;
  });
  const missing = asked.filter((d) => !found.has(d));
  if (missing.length > 0) {
    const diff = `{${missing.map(pyStrRepr).join(', ')}}`;
    throw new RefObjectsNotFoundError({ asked: asked.length, found: found.size, diff }, missing);
  }
  round.forEach((r, i) => {
    const version = versions[i];
    const ref = r.pending!;
    r.pending = null;
    if (version === null || version.deletedAtUs !== null) {
      r.val = NONE;
      r.steps = [];
    } else {
      r.val = parseSpelled(version.valText); // floats read back as floats (semantics.md#writes-number-spelling)
      r.steps = [...ref.extra.map(unquoteRefPart), ...r.steps];
    }
  });
}

/** Follows `r`'s steps until they end, fail, or meet an object ref to look up next round. */
function walk(store: Store, ctx: RequestContext, r: Reading, rules: RefReadRules): void {
  while (r.steps.length >= 2 && r.val !== NONE) {
    if (typeof r.val === 'string') {
      const nested = parseRef(r.val);
      if (nested !== null && (nested.kind === 'object' || nested.kind === 'op')) {
        r.pending = nested;
        r.steps = rules.followPastNestedRefs ? r.steps : [];
        return;
      }
    }
    r.val = step(store, ctx, r.val, r.steps[0], r.steps[1]);
    r.steps = r.steps.slice(2);
  }
}

/** Every ref's value: rounds of look-ups (all pending refs together) and walks, as production. */
export function readParsedRefs(store: Store, ctx: RequestContext, refs: readonly ParsedRef[], rules: RefReadRules = TQ_REF_RULES): unknown[] {
  const readings: Reading[] = refs.map((ref) => ({ pending: ref, val: NONE, steps: [] }));
  for (let round = readings.filter((r) => r.pending !== null); round.length > 0; round = readings.filter((r) => r.pending !== null)) {
    lookUpRound(store, ctx, round);
    for (const r of round) walk(store, ctx, r, rules);
  }
  return readings.map((r) => (r.val === NONE ? null : r.val));
}

/** The request's refs, parsed and checked before anything is read (400s, as production's). */
function parsedRefs(refs: readonly string[]): ParsedRef[] {
  if (refs.length > MAX_REFS) throw bad('Too many refs');
  const parsed = refs.map((r) => {
    const p = parseRef(r);
    if (p === null || !['object', 'op', 'table', 'call'].includes(p.kind)) throw bad(`Invalid ref: ${r}`);
    return p;
  });
  if (parsed.some((p) => p.kind === 'table')) throw bad('Table refs not supported');
  if (parsed.some((p) => p.kind === 'call')) throw bad('Call refs not supported in batch read, use calls_query_stream');
  if (parsed.some((p) => p.version === 'latest')) throw bad(LATEST_REFUSED);
  return parsed;
}

/**
 * Every ref is parsed before anything is read; each is read under the caller's grants
 * (readParsedRefs), so the route itself names no project to authorize.
 */
export const refsReadBatchRoute = defineRoute({
  path: '/refs/read_batch',
  body: 'plain',
  mutates: false,
  answer: 'json',
  model: () => readBatchModel,
  refine: ({ refs }) => parsedRefs(refs),
  project: () => [],
  run: (refs, { engine, ctx }): { vals: unknown[] } => ({ vals: readParsedRefs(engine.store, ctx, refs) }),
});
