/**
 * One body path (issue 14 §4): every query case of the corpus, sent the way the CLI sends it,
 * gets the answer the in-process runner (and so HTTP, spec-tests/http.test.ts) gets.
 *
 * Two CLI shapes per case: `--request` (the case's body text passed through as text) and, where
 * the body can be spelled with flags, the flags `tq calls|table|threads` offers (`--query-json`
 * and `--filter-json` get the subtree's text with every number lexeme as written, so a
 * `{"$literal": 5.0}` stays a float). The CLI's own request composer builds the text; the route
 * runs on it exactly as `tq` runs it. Answers are compared line for line with the in-process
 * answer on the same data, and with the case's expectation.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { runRoute } from '../src/api/run-route.ts';
import { findRoute } from '../src/routes.ts';
import type { CaseRequest, ConformanceCase } from '../src/check/case.ts';
import { createEngineTarget } from '../src/check/engine-target.ts';
import { runCases } from '../src/check/runner.ts';
import { TRANSPORT_TAG, type Target, type TargetResponse } from '../src/check/target.ts';
import { localContext } from '../src/cli/common.ts';
import { callsEdits, tableEdits, threadsEdits } from '../src/cli/queries.ts';
import { composeRequest } from '../src/cli/request-body.ts';
import { TqError } from '../src/core/errors.ts';
import { LosslessNumber, LosslessObject, parseLossless, writeJson, type LosslessValue } from '../src/core/json/lossless.ts';
import { BUNDLE_PATH, type CaseBundle } from './bundle.ts';

const bundle = JSON.parse(readFileSync(BUNDLE_PATH, 'utf8')) as CaseBundle;

const EDITS: Record<string, (opts: Record<string, unknown>) => Map<string, (v: LosslessValue | undefined) => LosslessValue>> = {
  '/calls/stream_query': callsEdits,
  '/table/query_stream': tableEdits,
  '/threads/stream_query': threadsEdits,
};

const VERBATIM = { itemSeparator: ',', keySeparator: ':', string: (s: string) => JSON.stringify(s), number: (n: LosslessNumber) => n.lexeme };
const text = (v: LosslessValue) => writeJson(v, VERBATIM);

/** The body as the wire carries it, parsed losslessly (null when it is not JSON). */
function bodyOf(req: CaseRequest): LosslessValue | null {
  try {
    return parseLossless(req.body_text ?? JSON.stringify(req.body ?? null));
  } catch {
    return null;
  }
}

const isString = (v: LosslessValue | undefined): v is string => typeof v === 'string';
const isInt = (v: LosslessValue | undefined): v is LosslessNumber => v instanceof LosslessNumber && v.isInteger;
/** A list the CLI's `a,b,c` flags can carry: non-empty strings without commas or edge spaces. */
const listFlag = (v: LosslessValue | undefined): string | null =>
  Array.isArray(v) && v.length > 0 && v.every((x) => isString(x) && x !== '' && !x.includes(',') && x.trim() === x) ? (v as string[]).join(',') : null;
/** Sort terms as `--sort field:dir` flags (`key` is `direction` or `order`). */
function sortFlags(v: LosslessValue | undefined, key: string): string[] | null {
  if (!Array.isArray(v) || v.length === 0) return null;
  const out: string[] = [];
  for (const t of v) {
    if (!(t instanceof LosslessObject) || t.size !== 2 || !isString(t.get('field')) || !['asc', 'desc'].includes(t.get(key) as string)) return null;
    if (t.get('field') === '') return null;
    out.push(`${t.get('field')}:${t.get(key)}`);
  }
  return out;
}

/** Commander options that spell `body` for the command of `path`, or null when flags cannot. */
function flagsFor(path: string, body: LosslessValue | null): Record<string, unknown> | null {
  if (!(body instanceof LosslessObject)) return null;
  const opts: Record<string, unknown> = {};
  for (const [key, v] of body.entries) {
    if (key === 'project_id' && isString(v) && v !== '') opts.project = v;
    else if ((key === 'limit' || key === 'offset') && isInt(v)) opts[key] = v.lexeme;
    else if (key === 'sort_by' && sortFlags(v, path === '/table/query_stream' ? 'order' : 'direction')) opts.sort = sortFlags(v, path === '/table/query_stream' ? 'order' : 'direction');
    else if (path === '/calls/stream_query' && key === 'filter' && v instanceof LosslessObject) opts.filterJson = text(v);
    else if (path === '/calls/stream_query' && key === 'query' && v instanceof LosslessObject && v.has('$expr')) opts.queryJson = text(v);
    else if (path === '/calls/stream_query' && key === 'columns' && listFlag(v)) opts.columns = listFlag(v);
    else if (path === '/calls/stream_query' && key === 'expand_columns' && listFlag(v)) opts.expand = listFlag(v);
    else if (path === '/calls/stream_query' && key === 'return_expanded_column_values' && v === false) opts.expandValues = false;
    else if (path === '/calls/stream_query' && /^include_(costs|feedback|storage_size|total_storage_size)$/.test(key) && v === true) {
      opts.include = [opts.include, key.slice('include_'.length)].filter(Boolean).join(',');
    } else if (path === '/table/query_stream' && key === 'digest' && isString(v) && v !== '') opts.digest = v;
    else if (path === '/table/query_stream' && key === 'filter' && v instanceof LosslessObject && v.size === 1 && listFlag(v.get('row_digests'))) {
      opts.rowDigests = listFlag(v.get('row_digests'));
    } else if (path === '/threads/stream_query' && key === 'filter' && v instanceof LosslessObject && v.size > 0) {
      for (const [fk, fv] of v.entries) {
        if (fk === 'thread_ids' && listFlag(fv)) opts.threadIds = listFlag(fv);
        else if (fk === 'after_datetime' && isString(fv) && fv !== '') opts.after = fv;
        else if (fk === 'before_datetime' && isString(fv) && fv !== '') opts.before = fv;
        else return null;
      }
    } else return null;
  }
  if (opts.project === undefined || (path === '/table/query_stream' && opts.digest === undefined)) return null;
  return opts;
}

/** A route run the way `tq` runs it, on the CLI-composed text; errors as the CLI reports them. */
function runAsCli(target: ReturnType<typeof createEngineTarget>, path: string, requestText: string): TargetResponse {
  try {
    const result = runRoute(findRoute(path)!, target.engine, { kind: 'text', text: requestText }, localContext);
    assert.equal(result.kind, 'stream');
    const lines = [...(result as { lines: Iterable<string> }).lines];
    // The text too, as the CLI prints it: json_texts expectations read number spellings from it.
    return { status: 200, headers: {}, lines: lines.map((l) => JSON.parse(l) as unknown), raw: lines.map((l) => l + '\n').join('') };
  } catch (e) {
    if (e instanceof TqError) return { status: e.status, headers: {}, json: e.body() };
    throw e;
  }
}

const mismatches: string[] = [];
const ranWithFlags = new Set<string>();
let current = '';

/**
 * Setup goes in-process; the case's query goes through both CLI shapes, each checked line for
 * line against the in-process answer; the `--request` answer is what the runner then compares
 * with the case's expectation.
 */
function cliTarget(): Target {
  const inner = createEngineTarget();
  return {
    ...inner,
    name: 'cli',
    skipReason(c: ConformanceCase) {
      current = c.name;
      if (c.tags.includes(TRANSPORT_TAG) || c.request.auth === 'other' || EDITS[c.request.path] === undefined) return 'not a CLI query';
      return undefined;
    },
    async send(req: CaseRequest): Promise<TargetResponse> {
      const edits = EDITS[req.path];
      if (edits === undefined || req.auth === 'other') return inner.send(req);
      const inProcess = await inner.send(req);
      const check = (shape: string, requestText: string): TargetResponse => {
        const viaCli = runAsCli(inner, req.path, requestText);
        try {
          assert.deepEqual(viaCli.lines ?? viaCli.json, inProcess.lines ?? inProcess.json);
          assert.equal(viaCli.status, inProcess.status);
        } catch {
          mismatches.push(`${current} (${shape}): ${requestText.slice(0, 300)}`);
        }
        return viaCli;
      };
      const flags = flagsFor(req.path, bodyOf(req));
      if (flags !== null) {
        check('flags', composeRequest(undefined, edits(flags)));
        ranWithFlags.add(current);
      }
      return check('--request', composeRequest(req.body_text ?? JSON.stringify(req.body), edits({ request: '-' })));
    },
  };
}

/** Whether a calls body carries a float literal in its query (the case issue 14 §4 names). */
function hasFloatLiteral(c: ConformanceCase): boolean {
  const body = c.request.path === '/calls/stream_query' ? bodyOf(c.request) : null;
  const query = body instanceof LosslessObject ? body.get('query') : undefined;
  if (query === undefined) return false;
  const stack: LosslessValue[] = [query];
  while (stack.length > 0) {
    const v = stack.pop()!;
    if (v instanceof LosslessNumber && !v.isInteger) return true;
    if (Array.isArray(v)) stack.push(...v);
    else if (v instanceof LosslessObject) stack.push(...v.entries.map(([, x]) => x));
  }
  return false;
}

test('every query case answers through the CLI path (--request, and flags where they can spell it) as in-process and as expected', async () => {
  const report = await runCases(bundle.cases, cliTarget());
  assert.deepEqual(report.failed, []);
  assert.deepEqual(mismatches, []);
  const queries = bundle.cases.filter((c) => EDITS[c.request.path] !== undefined && c.request.auth !== 'other' && !c.tags.includes(TRANSPORT_TAG));
  assert.equal(report.passed, queries.length, 'every query case runs with --request');
  const floats = queries.filter(hasFloatLiteral);
  assert.ok(floats.length >= 5, `${floats.length} float-literal cases`);
  assert.deepEqual(floats.filter((c) => !ranWithFlags.has(c.name)).map((c) => c.name), [], 'every calls case with a float literal runs with --query-json');
  assert.ok(ranWithFlags.size > queries.length * 0.6, `${ranWithFlags.size} of ${queries.length} ran with flags`);
});
