/**
 * The conformance corpus itself: (a) cases.json is the current bundle of cases/*.json and every
 * case fits case.schema.json and the tagging rules; (b) the whole corpus passes in-process
 * against a fresh engine. Transport-tagged cases are skipped in-process by rule; SKIPS lists
 * any other case allowed to fail, with the reason (it should stay empty).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { findRoute } from '../src/routes.ts';
import type { ConformanceCase } from '../src/check/case.ts';
import { createEngineTarget } from '../src/check/engine-target.ts';
import { runCases } from '../src/check/runner.ts';
import { TRANSPORT_TAG } from '../src/check/target.ts';
import { BUNDLE_PATH, bundleCases, bundleText, caseSchemaCheck, type CaseBundle } from './bundle.ts';

/** Cases allowed to fail in-process: name → reason. */
const SKIPS: Record<string, string> = {};

const bundle = JSON.parse(readFileSync(BUNDLE_PATH, 'utf8')) as CaseBundle;
const AREAS = ['table', 'threads', 'calls', 'writes', 'auth', 'errors', 'objs', 'refs', 'files', 'feedback', 'costs', 'otel'];

test('cases.json is the bundle of spec-tests/cases/*.json (run spec-tests/bundle.ts after editing cases)', () => {
  assert.equal(readFileSync(BUNDLE_PATH, 'utf8'), bundleText(bundleCases()));
});

test('every case fits case.schema.json', () => {
  const check = caseSchemaCheck();
  assert.equal(bundle.version, 1);
  const problems = bundle.cases.flatMap((c) => check(c).map((p) => `${c.name}: ${p}`));
  assert.deepEqual(problems, []);
});

test('case names are unique and prefixed by their area', () => {
  const names = bundle.cases.map((c) => c.name);
  assert.equal(new Set(names).size, names.length);
  const unprefixed = names.filter((n) => !AREAS.some((a) => n.startsWith(`${a}-`)));
  assert.deepEqual(unprefixed, []);
});

/**
 * Whether a case only makes sense over HTTP: credentials other than user/other, expected
 * headers, or a request routing rejects (unknown path, wrong method).
 */
function needsTransport(c: ConformanceCase): boolean {
  const requests = [...(c.setup ?? []), c.request];
  const wireAuth = requests.some((r) => r.auth !== undefined && r.auth !== 'user' && r.auth !== 'other');
  const expectsHeaders = 'headers' in c.expect && c.expect.headers !== undefined;
  const route = findRoute(c.request.path.replaceAll('{{project}}', 'entity/project'));
  const routingFails = route === undefined || route.method !== (c.request.method ?? 'POST');
  return wireAuth || expectsHeaders || routingFails;
}

test(`cases needing HTTP are tagged '${TRANSPORT_TAG}', and only those`, () => {
  const untagged = bundle.cases.filter((c) => needsTransport(c) && !c.tags.includes(TRANSPORT_TAG)).map((c) => c.name);
  assert.deepEqual(untagged, []);
  const needless = bundle.cases.filter((c) => !needsTransport(c) && c.tags.includes(TRANSPORT_TAG)).map((c) => c.name);
  assert.deepEqual(needless, []);
});

test('every case with setup or a {{project}} names its project, and each project is its own', () => {
  const missing = bundle.cases.filter((c) => c.project === undefined && JSON.stringify([c.setup, c.request, c.expect]).includes('{{project}}'));
  assert.deepEqual(missing.map((c) => c.name), []);
  const projects = bundle.cases.flatMap((c) => (c.project === undefined ? [] : [c.project]));
  assert.equal(new Set(projects).size, projects.length);
});

test('the whole corpus passes in-process against a fresh engine', async () => {
  const target = createEngineTarget();
  const report = await runCases(bundle.cases, target);
  const unexpected = report.failed.filter((f) => SKIPS[f.name] === undefined);
  const stale = Object.keys(SKIPS).filter((name) => report.passedNames.includes(name));
  const skippedByRule = report.skipped.filter((s) => !bundle.cases.find((c) => c.name === s.name)?.tags.includes(TRANSPORT_TAG));
  assert.deepEqual(skippedByRule, [], 'only transport cases are skipped in-process');
  assert.deepEqual(stale, [], 'SKIPS entries that now pass must be removed');
  assert.equal(
    unexpected.length,
    0,
    `${unexpected.length} of ${bundle.cases.length} cases failed in-process:\n${unexpected.map((f) => `  ${f.name}: ${f.diff}`).join('\n')}`,
  );
  assert.ok(report.passed > 0);
});
