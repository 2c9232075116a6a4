/**
 * `tq fuzz`: differential testing of a server against tq's own engine.
 *
 * fast-check generates a small random data set (calls with traces, threads, failures, running
 * calls, mixed-type inputs; a table of mixed-type rows) and a random valid request on one of
 * the three query endpoints. Both sides receive the same writes (the target over its HTTP
 * write API, the reference in-process) and the same request; their answers must agree. Where
 * the request's sort leaves rows tied, tied rows may come in any order (semantics.md#order-ties).
 * On a mismatch fast-check shrinks the data and request to a minimal case, printed as a case file
 * ready for spec-tests/cases (after checking its expectation against the spec by hand), its
 * query in the canonical spelling the engine reads it in (expr/print.ts).
 *
 * Deterministic for a given seed: every random choice comes from fast-check's seeded source,
 * and the projects are named by seed and run number.
 */
import fc from 'fast-check';
import stableStringify from 'fast-json-stable-stringify';
import { rowDigest, tableDigest } from '../core/digest.ts';
import { parseLossless } from '../core/json/lossless.ts';
import { aliasOf, operationsOfShape } from '../query/calls/expr/operators.ts';
import { parseQuery } from '../query/calls/expr/parse.ts';
import { printQuery } from '../query/calls/expr/print.ts';
import { COMPUTED_SUMMARY_FIELD_NAMES, COMPUTED_SUMMARY_PREFIX } from '../query/calls/summary-fields.ts';
import { THREAD_SORT_FIELD_NAMES } from '../query/threads/sort-fields.ts';
import type { CaseRequest, ConformanceCase } from './case.ts';
import { compareValue } from './compare.ts';
import { createEngine } from '../engine.ts';
import { createEngineTarget } from './engine-target.ts';
import { casePrefixed, renamePrefix } from './prefix.ts';
import { runCase } from './runner.ts';
import { substituteCase } from './substitute.ts';
import type { Target, TargetResponse } from './target.ts';

type Json = Record<string, unknown>;

/** One generated scenario: the writes that create its data and the request under test. */
interface FuzzScenario {
  setup: CaseRequest[];
  request: CaseRequest;
  /** The request's sort fields (how lines may tie), in the response's own terms. */
  sortPaths: string[];
}

// ---------------------------------------------------------------------------------------------
// Data

const BASE_MS = Date.UTC(2024, 4, 1, 12, 0, 0);
const OPS = ['weave:///{{project}}/op/alpha:d1', 'weave:///{{project}}/op/beta:d2', 'weave:///{{project}}/op/alpha:d3', 'plain_op'];
const INPUT_VALUES: unknown[] = [0, 1, 2.5, -3, 10, '3', '10', 'abc', 'Zeta', '', null, true, false, { a: 1 }, [1, 2]];
const STRINGS = ['hello', 'Hello world', 'héllo', '\u{1F600}', '\uFF5E', 'a b', ''];
const THREADS = ['th-a', 'th-b', 'th-c'];
const USERS = ['u1', 'u2'];

const iso = (ms: number) => new Date(ms).toISOString();

interface CallSpec {
  parent: number; // index of an earlier call, or -1 for a root
  thread: number; // -1: none; else index into THREADS (roots only become turns)
  startSec: number;
  durationMs: number | null; // null: running
  exception: null | '' | 'ValueError: boom';
  op: number;
  x: number; // index into INPUT_VALUES, -1 = missing
  s: number; // index into STRINGS, -1 = missing
  display: null | string;
  user: number;
  errorCount: number;
}

const callSpec = fc.record({
  parent: fc.integer({ min: -1, max: 12 }),
  thread: fc.integer({ min: -1, max: THREADS.length - 1 }),
  startSec: fc.integer({ min: 0, max: 8 }),
  durationMs: fc.option(fc.integer({ min: 0, max: 5000 }), { nil: null, freq: 5 }),
  exception: fc.constantFrom(null, null, null, '' as const, 'ValueError: boom' as const),
  op: fc.integer({ min: 0, max: OPS.length - 1 }),
  x: fc.integer({ min: -1, max: INPUT_VALUES.length - 1 }),
  s: fc.integer({ min: -1, max: STRINGS.length - 1 }),
  display: fc.constantFrom(null, null, null, 'Named', 'named', '\u{1F600} run'),
  user: fc.integer({ min: 0, max: USERS.length - 1 }),
  errorCount: fc.constantFrom(0, 0, 1),
});

/** Calls as start/end items of one /call/upsert_batch; children after parents, as clients send. */
function callWrites(specs: CallSpec[]): { batch: Json[]; ids: string[] } {
  const ids: string[] = [];
  const traces: string[] = [];
  const turns: Array<string | null> = [];
  const threads: Array<string | null> = [];
  const batch: Json[] = [];
  specs.forEach((c, i) => {
    // Ids are not in start order, so that id tie-breaks and started_at order differ.
    const id = `call-${((i * 7919) % 997).toString().padStart(3, '0')}-${i}`;
    const parent = c.parent >= 0 && c.parent < i ? c.parent : -1;
    const traceId = parent >= 0 ? traces[parent] : `trace-${i}`;
    const thread = parent >= 0 ? threads[parent] : c.thread >= 0 ? THREADS[c.thread] : null;
    const turn = parent >= 0 ? turns[parent] : thread !== null ? id : null;
    ids.push(id);
    traces.push(traceId);
    threads.push(thread);
    turns.push(turn);
    const inputs: Json = {};
    if (c.x >= 0) inputs.x = INPUT_VALUES[c.x];
    if (c.s >= 0) inputs.s = STRINGS[c.s];
    const startMs = BASE_MS + c.startSec * 1000 + (i % 3);
    batch.push({
      mode: 'start',
      req: {
        start: {
          project_id: '{{project}}', id, op_name: OPS[c.op], display_name: c.display, trace_id: traceId,
          parent_id: parent >= 0 ? ids[parent] : null, thread_id: thread, turn_id: turn,
          started_at: iso(startMs), attributes: { env: i % 2 ? 'prod' : 'dev' }, inputs, svc_user_id: USERS[c.user],
        },
      },
    });
    if (c.durationMs !== null) {
      batch.push({
        mode: 'end',
        req: {
          end: {
            project_id: '{{project}}', id, ended_at: iso(startMs + c.durationMs), exception: c.exception,
            output: c.exception ? null : { y: c.x >= 0 ? INPUT_VALUES[c.x] : null },
            summary: { status_counts: { success: 1, error: c.errorCount } },
          },
        },
      });
    }
  });
  return { batch, ids };
}

// ---------------------------------------------------------------------------------------------
// Requests

const CALL_FIELDS = ['inputs.x', 'inputs.s', 'op_name', 'display_name', 'exception', 'started_at', 'ended_at', ...COMPUTED_SUMMARY_FIELD_NAMES.map((f) => COMPUTED_SUMMARY_PREFIX + f), 'thread_id', 'parent_id'];
const LITERALS: unknown[] = [0, 1, 2, 2.5, 10, '3', 'abc', 'hello', '', true, null, 'success', 'error', 'running', '2024-05-01T12:00:03Z'];

const operand = fc.oneof(
  fc.constantFrom(...CALL_FIELDS).map((f) => ({ $getField: f })),
  fc.constantFrom(...LITERALS).map((v) => ({ $literal: v })),
);

const comparison = fc
  .tuple(fc.constantFrom(...operationsOfShape('binary').map((o) => aliasOf(o.op))), fc.constantFrom(...CALL_FIELDS), fc.constantFrom(...LITERALS))
  .map(([op, f, v]) => ({ [op]: [{ $getField: f }, { $literal: v }] }));

const leaf = fc.oneof(
  comparison,
  fc.tuple(
    fc.constantFrom(...operationsOfShape('substring').map((o) => aliasOf(o.op))),
    fc.record({ input: operand, substr: fc.constantFrom('', 'a', 'ell', 'HELLO', '\u{1F600}', '{').map((s) => ({ $literal: s })), case_insensitive: fc.boolean() }),
  ).map(([op, c]) => ({ [op]: c })),
  fc.tuple(fc.constantFrom(...CALL_FIELDS), fc.subarray(LITERALS, { minLength: 1, maxLength: 3 })).map(([f, vs]) => ({ $in: [{ $getField: f }, vs.map((v) => ({ $literal: v }))] })),
  fc.tuple(fc.constantFrom('inputs.x', 'inputs.s'), fc.constantFrom('int', 'double', 'bool', 'string', 'exists'), fc.constantFrom(...LITERALS)).map(([f, to, v]) => ({ $eq: [{ $convert: { input: { $getField: f }, to } }, { $literal: v }] })),
);

const expression: fc.Arbitrary<Json> = fc.letrec<{ e: Json }>((tie) => ({
  e: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    fc.array(tie('e'), { minLength: 1, maxLength: 3 }).map((xs) => ({ $and: xs })),
    fc.array(tie('e'), { minLength: 1, maxLength: 3 }).map((xs) => ({ $or: xs })),
    tie('e').map((x) => ({ $not: [x] })),
  ),
})).e;

const direction = fc.constantFrom('asc', 'desc');
const paging = fc.record({ limit: fc.option(fc.integer({ min: 0, max: 8 }), { nil: undefined }), offset: fc.option(fc.integer({ min: 0, max: 6 }), { nil: undefined }) }, { requiredKeys: [] });

function callsRequest(ids: string[]): fc.Arbitrary<{ body: Json; sortPaths: string[] }> {
  const filter = fc.record(
    {
      op_names: fc.subarray([...OPS, 'weave:///{{project}}/op/alpha:*']),
      call_ids: fc.subarray(ids),
      trace_roots_only: fc.boolean(),
      thread_ids: fc.subarray(THREADS),
      svc_user_ids: fc.subarray(USERS),
    },
    { requiredKeys: [] },
  );
  const sort = fc.option(fc.array(fc.record({ field: fc.constantFrom(...CALL_FIELDS, 'id'), direction }), { maxLength: 2 }), { nil: undefined });
  return fc
    .record({ filter: fc.option(filter, { nil: undefined }), query: fc.option(expression.map((e) => ({ $expr: e })), { nil: undefined }), sort_by: sort, paging }, { requiredKeys: ['paging'] })
    .map(({ paging: p, ...rest }) => {
      const body: Json = { project_id: '{{project}}', ...rest, ...p };
      for (const k of Object.keys(body)) if (body[k] === undefined) delete body[k];
      // Explicit sorts always end in an implicit id term (semantics.md#calls-sort-default), so
      // lines never tie.
      return { body, sortPaths: [] };
    });
}

const threadsRequest = fc
  .record({ sort: fc.option(fc.record({ field: fc.constantFrom(...THREAD_SORT_FIELD_NAMES), direction }), { nil: undefined }), paging, window: fc.option(fc.tuple(fc.integer({ min: 0, max: 4 }), fc.integer({ min: 4, max: 9 })), { nil: undefined }) })
  .map(({ sort, paging: p, window }) => {
    const body: Json = { project_id: '{{project}}', ...p };
    if (sort) body.sort_by = [sort];
    if (window) {
      body.after_datetime = iso(BASE_MS + window[0] * 1000);
      body.before_datetime = iso(BASE_MS + window[1] * 1000);
    }
    for (const k of Object.keys(body)) if (body[k] === undefined) delete body[k];
    return { body, sortPaths: sort ? [sort.field] : ['last_updated'] };
  });

const TABLE_VALUES: unknown[] = [1, 1.0, 2, -1, 10, '9', '10', 'b', 'B', '', null, true, { n: 1 }, [3]];
const tableRow = fc.record({ v: fc.constantFrom(...TABLE_VALUES), nested: fc.record({ k: fc.constantFrom(...TABLE_VALUES) }), tag: fc.constantFrom('x', 'y') }, { requiredKeys: ['tag'] });

const tableRequest = fc
  .record({ sort: fc.option(fc.array(fc.record({ field: fc.constantFrom('v', 'nested.k', 'tag'), order: direction }), { minLength: 1, maxLength: 2 }), { nil: undefined }), paging })
  .map(({ sort, paging: p }) => {
    // The digest is filled in once the table is created (play()).
    const body: Json = { project_id: '{{project}}', ...p };
    if (sort) body.sort_by = sort;
    for (const k of Object.keys(body)) if (body[k] === undefined) delete body[k];
    return { body, sortPaths: [] };
  });

/** The scenario arbitrary: data plus one request on a random endpoint. */
const scenario: fc.Arbitrary<FuzzScenario & { tableRows: Json[] }> = fc
  .tuple(fc.array(callSpec, { minLength: 1, maxLength: 14 }), fc.array(tableRow, { maxLength: 8 }), fc.nat(2))
  .chain(([specs, rows, which]) => {
    const { batch, ids } = callWrites(specs as CallSpec[]);
    const setup: CaseRequest[] = [{ path: '/call/upsert_batch', body: { batch } }];
    if (which === 0) return callsRequest(ids).map((r) => ({ setup, request: { path: '/calls/stream_query', body: r.body }, sortPaths: r.sortPaths, tableRows: [] as Json[] }));
    if (which === 1) return threadsRequest.map((r) => ({ setup, request: { path: '/threads/stream_query', body: r.body }, sortPaths: r.sortPaths, tableRows: [] as Json[] }));
    return tableRequest.map((r) => ({ setup: [] as CaseRequest[], request: { path: '/table/query_stream', body: r.body }, sortPaths: r.sortPaths, tableRows: rows as Json[] }));
  });

// ---------------------------------------------------------------------------------------------
// Comparison

const readPath = (v: unknown, path: string): unknown =>
  path.split('.').reduce<unknown>((cur, k) => (cur !== null && typeof cur === 'object' ? (cur as Json)[k] : undefined), v);

/** Lines grouped into runs that tie on every sort path (empty paths: every line alone). */
function tieGroups(lines: unknown[], sortPaths: string[]): string[][] {
  const groups: string[][] = [];
  let lastKey: string | undefined;
  for (const line of lines) {
    const text = stableStringify(line);
    const key = sortPaths.length === 0 ? undefined : stableStringify(sortPaths.map((p) => readPath(line, p) ?? null));
    if (key !== undefined && key === lastKey) groups[groups.length - 1].push(text);
    else groups.push([text]);
    lastKey = key;
  }
  return groups.map((g) => g.sort());
}

/** The first place two values differ, as `tq check` names it (`at $.path: expected x, got y`). */
function firstDifference(want: unknown, got: unknown): string {
  const d = compareValue(want, got, 'exact');
  // compareValue forgives what tq check forgives (number spelling, equal instants); fuzz does
  // not, so a difference it cannot see is shown whole, at the top.
  return d ?? `at $: expected ${stableStringify(want)}, got ${stableStringify(got)}`;
}

/** Why the target's answer differs from the reference's, or undefined when they agree. */
function compareAnswers(reference: TargetResponse, got: TargetResponse, sortPaths: string[]): string | undefined {
  if (reference.status !== got.status) return `status: expected ${reference.status}, got ${got.status} ${stableStringify(got.json ?? got.text ?? null)}`;
  if (reference.status !== 200) {
    const a = stableStringify(reference.json ?? null), b = stableStringify(got.json ?? null);
    return a === b ? undefined : `error body ${firstDifference(reference.json ?? null, got.json ?? null)}`;
  }
  const want = tieGroups(reference.lines ?? [], sortPaths);
  const have = tieGroups(got.lines ?? [], sortPaths);
  if (stableStringify(want) === stableStringify(have)) return undefined;
  const counts = `(${reference.lines?.length ?? 0} vs ${got.lines?.length ?? 0} lines)`;
  const n = Math.max(want.length, have.length);
  for (let i = 0; i < n; i++) {
    const x = want[i], y = have[i];
    if (stableStringify(x ?? null) === stableStringify(y ?? null)) continue;
    if (x === undefined) return `line group ${i}: unexpected extra line ${y![0]} ${counts}`;
    if (y === undefined) return `line group ${i}: missing line ${x[0]} ${counts}`;
    // Lines are kept as stable JSON text; the first differing member pair names the key path.
    const j = x.findIndex((line, k) => line !== y[k]);
    const at = j < 0 ? 0 : j;
    return `line group ${i}${x.length > 1 ? ` member ${at}` : ''} ${firstDifference(JSON.parse(x[at] ?? 'null'), JSON.parse(y[at] ?? 'null'))} ${counts}`;
  }
  return `answers differ ${counts}`;
}

// ---------------------------------------------------------------------------------------------
// Running

export interface FuzzOptions {
  target: Target;
  seed: number;
  runs: number;
  /** Progress goes here (the difference itself is in the result, printed once by the caller). */
  log?: (line: string) => void;
}

export interface FuzzResult {
  ok: boolean;
  runs: number;
  /** On failure: the shrunk case, as a spec-tests case object (svc_ spelling, like every case). */
  counterexample?: ConformanceCase;
  /** The shrunk case's difference, with its first differing key path. */
  difference?: string;
  /** Whether the case, replayed by tq check's runner against the target, fails as it should. */
  reproduces?: boolean;
  /** When it does not reproduce: what the replay saw. */
  replay?: string;
}

/** Sends a scenario to one target; the table (if any) is created first and its digest filled in. */
async function play(target: Target, s: FuzzScenario & { tableRows: Json[] }, project: string): Promise<{ res: TargetResponse; setupError?: string }> {
  const c = casePrefixed(substituteCase({ name: 'fuzz', tags: [], spec: '', project, setup: s.setup, request: s.request, expect: { lines: [] } }, 'x', target.user), target.fieldPrefix);
  for (const w of c.setup ?? []) {
    const r = await target.send(w);
    if (r.status < 200 || r.status > 299) return { res: r, setupError: `setup ${w.path} answered ${r.status} ${stableStringify(r.json ?? r.text ?? null)}` };
  }
  let request = c.request;
  if (request.path === '/table/query_stream') {
    const created = await target.send({ path: '/table/create', body: { table: { project_id: c.project, rows: s.tableRows } } });
    if (created.status !== 200) return { res: created, setupError: `setup /table/create answered ${created.status}` };
    const digest = (created.json as Json).digest as string;
    request = { ...request, body: { ...(request.body as Json), digest } };
  }
  return { res: await target.send(request) };
}

export async function fuzz(opts: FuzzOptions): Promise<FuzzResult> {
  const log = opts.log ?? (() => {});
  // The reference speaks the target's spelling: both receive the same renamed writes and
  // requests, so a wb_ target is compared with a wb_ engine, never with an svc_ one.
  const reference = () => createEngineTarget({ user: opts.target.user, engine: createEngine(undefined, { fieldPrefix: opts.target.fieldPrefix }) });
  const runReference = reference();
  let runNo = 0;
  // Both sides use the same project id (their stores are separate); the run id keeps repeated
  // fuzz runs against one long-lived server apart.
  const runId = Date.now().toString(36);
  const property = fc.asyncProperty(scenario, async (s) => {
    const project = `fuzz/s${opts.seed}-${runId}-r${runNo++}`;
    return (await differenceOf(runReference, opts.target, s, project)) === undefined;
  });
  const details = await fc.check(property, { seed: opts.seed, numRuns: opts.runs, endOnFailure: false });
  if (!details.failed) {
    log(`${opts.runs} runs, no difference (seed ${opts.seed})`);
    return { ok: true, runs: opts.runs };
  }
  const [minimal] = details.counterexample!;
  // The minimal scenario once more, on a fresh reference and project: its difference (not the
  // last one seen while shrinking) and the reference's answer as the case's expectation.
  const minProject = `fuzz/s${opts.seed}-${runId}-min`;
  const again = await play(reference(), minimal, minProject);
  const difference = await differenceOf(reference(), opts.target, minimal, `${minProject}b`);
  const counterexample = caseOf(minimal, again.res, `${minProject}-x`, opts.target.fieldPrefix, opts.seed);
  // Replayed as tq check would run it, the case must fail against the target.
  const replay = await runCase(casePrefixed(substituteCase(counterexample, `${runId}-replay`, opts.target.user), opts.target.fieldPrefix), opts.target);
  log(`difference after ${details.numRuns} runs (seed ${opts.seed}), shrunk ${details.numShrinks} times`);
  const result: FuzzResult = { ok: false, runs: details.numRuns, counterexample, difference: difference ?? 'the minimal scenario no longer differs when run again (a flaky target?)', reproduces: replay !== undefined };
  if (replay === undefined) result.replay = 'the case passes against the target when replayed: tq check\'s comparison forgives this difference (number spelling or an equal instant)';
  return result;
}

/** Plays a scenario on the reference and the target; the difference, or undefined when they agree. */
async function differenceOf(reference: Target, target: Target, s: FuzzScenario & { tableRows: Json[] }, project: string): Promise<string | undefined> {
  const want = await play(reference, s, project);
  if (want.setupError) throw new Error(`reference engine rejected generated data: ${want.setupError}`);
  let got: Awaited<ReturnType<typeof play>>;
  try {
    got = await play(target, s, project);
  } catch (e) {
    return `target error: ${e instanceof Error ? (e.cause instanceof Error ? `${e.message} (${e.cause.message})` : e.message) : String(e)}`;
  }
  if (got.setupError) return got.setupError;
  return compareAnswers(want.res, got.res, s.sortPaths);
}

/**
 * The case file for a minimal scenario: its writes and request as generated (svc_ spelling,
 * `{{project}}`), the reference's answer as the expectation (renamed back to svc_; lines that
 * may tie on the request's sort as tie groups, as the comparison allowed).
 */
function caseOf(minimal: FuzzScenario & { tableRows: Json[] }, answer: TargetResponse, answeredProject: string, prefix: Target['fieldPrefix'], seed: number): ConformanceCase {
  const setup = [...minimal.setup];
  let request = minimal.request;
  if (request.path === '/table/query_stream') {
    setup.push({ path: '/table/create', body: { table: { project_id: '{{project}}', rows: minimal.tableRows } } });
    request = { ...request, body: { ...(request.body as Json), digest: tableDigestOf(minimal.tableRows) } };
  }
  // The expectation names the case's own project, as every case does, in the svc_ spelling.
  const authored = <T>(value: T): T => renamePrefix(JSON.parse(JSON.stringify(value ?? null).replaceAll(answeredProject, '{{project}}')) as T, prefix, 'svc_');
  let expect: ConformanceCase['expect'];
  if (answer.status !== 200) expect = { status: answer.status, body: authored(answer.json) };
  else if (minimal.sortPaths.length > 0) expect = { ties: tieGroups(answer.lines ?? [], minimal.sortPaths).map((g) => g.map((line) => authored(JSON.parse(line)))), match: 'exact' };
  else expect = { lines: authored(answer.lines ?? []), match: 'exact' };
  return {
    name: `fuzz-seed-${seed}-${request.path.split('/')[1]}`,
    tags: ['fuzz'],
    spec: `found by tq fuzz --seed ${seed}; expectation is tq's answer: check it against the spec before adding`,
    project: `fuzz/seed-${seed}`,
    setup,
    request: withCanonicalQuery(request),
    expect,
  };
}

/**
 * A calls request with its `$expr` query (if any) printed back from the engine's reading of it:
 * every operator in its `$` spelling, defaults written out (`case_insensitive`), so a case
 * file shows exactly the expression that was run.
 */
export function withCanonicalQuery(request: CaseRequest): CaseRequest {
  const body = request.body as Json | undefined;
  if (request.path !== '/calls/stream_query' || body?.query === undefined) return request;
  return { ...request, body: { ...body, query: printQuery(parseQuery(body.query, ['body', 'query'])) } };
}

/** A table's digest (content-addressed: the same rows give the same digest on every server). */
function tableDigestOf(rows: Json[]): string {
  return tableDigest(rows.map((r) => rowDigest(parseLossless(JSON.stringify(r)))));
}
