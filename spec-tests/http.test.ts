/**
 * The whole conformance corpus over HTTP against `createTqServer` on an ephemeral port, with
 * the real route table and a fresh engine: the transport cases (credentials, routing,
 * methods, headers) run here too. Two users: `conformance` (granted every case project under
 * `conf/*`) and `outsider` (valid, granted nothing the cases use). Run the corpus in both
 * field spellings: tq's default `svc_` and Weave's `wb_` (semantics.md#wire-prefix), since cases are
 * authored with `svc_` and the runner renames them.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { allRoutes } from '../src/routes.ts';
import type { FieldPrefix } from '../src/api/types.ts';
import { createHttpTarget } from '../src/check/http-target.ts';
import { formatReport, runCases } from '../src/check/runner.ts';
import { createEngine } from '../src/engine.ts';
import { Users } from '../src/server/basic-auth.ts';
import { createTqServer } from '../src/server/server.ts';
import { BUNDLE_PATH, type CaseBundle } from './bundle.ts';

/** Cases allowed to fail over HTTP: name → reason (should stay empty). */
const SKIPS: Record<string, string> = {};

const bundle = JSON.parse(readFileSync(BUNDLE_PATH, 'utf8')) as CaseBundle;
const USER = { name: 'conformance', password: 'conformance-pw' };
const OTHER = { name: 'outsider', password: 'outsider-pw' };

async function runOverHttp(fieldPrefix: FieldPrefix): Promise<void> {
  const users = new Users([
    { ...USER, projects: ['conf/*'] },
    { ...OTHER, projects: ['elsewhere/*'] },
  ]);
  const server = createTqServer({ engine: createEngine(undefined, { fieldPrefix }), routes: allRoutes(), users });
  const { port } = await server.listen('127.0.0.1', 0);
  try {
    const target = createHttpTarget({ baseUrl: `http://127.0.0.1:${port}`, user: USER, other: OTHER, fieldPrefix });
    const report = await runCases(bundle.cases, target);
    const unexpected = report.failed.filter((f) => SKIPS[f.name] === undefined);
    const stale = Object.keys(SKIPS).filter((name) => report.passedNames.includes(name));
    assert.deepEqual(stale, [], 'SKIPS entries that now pass must be removed');
    assert.deepEqual(report.skipped, [], 'nothing is skipped over HTTP');
    assert.equal(unexpected.length, 0, formatReport({ ...report, failed: unexpected }, target.name));
    assert.equal(report.passed + report.failed.length, bundle.cases.length);
  } finally {
    await server.close();
  }
}

test('the whole corpus passes over HTTP (svc_ prefix)', () => runOverHttp('svc_'));

test('the whole corpus passes over HTTP with the wb_ prefix (cases renamed by the runner)', () => runOverHttp('wb_'));
