/**
 * A second implementation judged end to end through every report format. It is a small proxy
 * in front of a real tq server that changes one behaviour (it reverses the lines of every JSON
 * Lines answer with more than one line) and, like `tq serve --test-control` and Weave's test
 * mock, has a control plane (`GET /test/health`, `POST /test/reset`). `tq check` must find the
 * reversal in its stdout, its JSON Lines report (valid against spec-tests/report.schema.json),
 * its JUnit XML and its Markdown, turn the failures into an expect-fail file that makes the
 * next run green, and report the listed cases as unexpected passes against tq itself.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Server } from 'node:http';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { allRoutes } from '../src/routes.ts';
import { runMainCaptured } from '../src/cli/run-tq.testing.ts';
import { loadSuite } from '../src/check/corpus.ts';
import { createEngine } from '../src/engine.ts';
import { Users } from '../src/server/basic-auth.ts';
import { createTqServer, type TqServer } from '../src/server/server.ts';
import { TQ_VERSION } from '../src/version.ts';
import { listenProxy, reversed, rewritingProxy } from './proxy.testing.ts';

const USER = { name: 'checker', password: 'check-pw' };
const credentials = ['--user', USER.name, '--password', USER.password];
const suite = loadSuite();

let tq: TqServer, tqUrl = '';
let proxy: Server, proxyUrl = '';
const controlCalls: string[] = [];
let dir = '';

/** Forwards to tq, reversing multi-line JSONL bodies; answers /test/health and /test/reset itself. */
function secondImplementation(target: URL): Server {
  return rewritingProxy(target, {
    rewrite: reversed,
    intercept(req, res) {
      if (req.url !== '/test/health' && req.url !== '/test/reset') return false;
      controlCalls.push(`${req.method} ${req.url}`);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
      return true;
    },
  });
}

before(async () => {
  tq = createTqServer({ engine: createEngine(), routes: allRoutes(), users: new Users([{ name: USER.name, password: USER.password, projects: ['*'] }]) });
  const { host, port } = await tq.listen('127.0.0.1', 0);
  tqUrl = `http://${host}:${port}`;
  proxy = secondImplementation(new URL(tqUrl));
  proxyUrl = await listenProxy(proxy);
  dir = mkdtempSync(join(tmpdir(), 'tq-reports-'));
});

after(async () => {
  await new Promise<void>((r) => proxy.close(() => r()));
  await tq.close();
  rmSync(dir, { recursive: true, force: true });
});

const reportSchema = JSON.parse(readFileSync(new URL('./report.schema.json', import.meta.url), 'utf8')) as object;
const validateLine = new Ajv2020({ allErrors: true, strict: true, strictRequired: false }).compile(reportSchema);

function reportLines(file: string): Array<Record<string, unknown>> {
  const lines = readFileSync(file, 'utf8').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Record<string, unknown>);
  lines.forEach((line, i) => assert.ok(validateLine(line), `line ${i}: ${JSON.stringify(validateLine.errors)}`));
  return lines;
}

/** The count attributes of the <testsuites> element. */
function junitTotals(xml: string): Record<string, number> {
  const m = /<testsuites name="[^"]*" tests="(\d+)" failures="(\d+)" errors="(\d+)" skipped="(\d+)"/.exec(xml);
  assert.ok(m, xml.slice(0, 300));
  return { tests: +m[1], failures: +m[2], errors: +m[3], skipped: +m[4] };
}

test('the second implementation is judged through stdout, the JSON Lines report, JUnit and Markdown alike', { timeout: 180_000 }, async () => {
  const files = { report: join(dir, 'r.jsonl'), junit: join(dir, 'junit.xml'), markdown: join(dir, 'summary.md'), expectFail: join(dir, 'expect-fail.json') };
  const r = await runMainCaptured(['check', '--base-url', proxyUrl, ...credentials, '--tags', 'sort', '--report', files.report, '--junit', files.junit, '--markdown', files.markdown, '--write-expect-fail', files.expectFail], { NO_COLOR: '1' });
  assert.equal(r.code, 1, r.err);
  // stdout: one FAIL line per failure, then the summary; stderr: the diagnostics only.
  const failLines = r.out.split('\n').filter((l) => l.startsWith('FAIL '));
  const summary = /^(\d+) passed, (\d+) failed(?:, (\d+) skipped)?$/m.exec(r.out);
  assert.ok(summary, r.out.slice(-500));
  const [passed, failed, skipped] = [+summary[1], +summary[2], +(summary[3] ?? 0)];
  const skipPart = skipped ? `, ${skipped} skipped` : '';
  assert.ok(failed > 5, 'reversed streams fail the ordered sort cases');
  assert.equal(failLines.length, failed);
  assert.equal(passed + failed + skipped, suite.cases.filter((c) => c.tags.includes('sort')).length);
  assert.equal(r.err, `${proxyUrl} has a test control plane: reset it (POST /test/reset) before the run; --no-reset keeps its data\nwrote ${files.expectFail}\n`);
  assert.deepEqual(controlCalls, ['GET /test/health', 'POST /test/reset']);

  // The JSON Lines report: a header, one line per case, a summary; every line valid.
  const lines = reportLines(files.report);
  const [header, ...rest] = lines;
  const cases = rest.slice(0, -1), last = rest[rest.length - 1];
  assert.deepEqual(
    { ...header, started_at: 'T', server_info: typeof header.server_info },
    { type: 'header', format: 1, tq_version: TQ_VERSION, suite_version: suite.version, weave_source: suite.weave_source, target: proxyUrl, field_prefix: 'svc_', server_info: 'object', control_plane: 'reset', started_at: 'T', selection: { tags: ['sort'], smoke: false } },
  );
  assert.equal((header.server_info as { server_version?: unknown } | null) !== null, true);
  assert.equal(cases.length, passed + failed + skipped);
  assert.deepEqual(last, { ...last, type: 'summary', ok: false, total: cases.length, counts: { pass: passed, fail: failed, error: 0, skip: skipped, 'expected-fail': 0, 'unexpected-pass': 0 } });
  const fails = cases.filter((c) => c.outcome === 'fail');
  assert.deepEqual(fails.map((c) => c.name).sort(), failLines.map((l) => l.slice(5, l.indexOf(':'))).sort());
  for (const f of fails) {
    assert.match(String(f.key_path), /^(line \d+ \$\S*|line count|status)$/, String(f.detail));
    assert.equal((f.request as { path: string }).path.startsWith('/'), true);
    assert.equal((f.response as { status: number }).status, 200);
    assert.match(String(f.weave_source), /^wandb\/weave@/);
  }

  // JUnit: the same counts, a <failure> per failing case.
  const xml = readFileSync(files.junit, 'utf8');
  assert.deepEqual(junitTotals(xml), { tests: cases.length, failures: failed, errors: 0, skipped });
  for (const f of fails) assert.match(xml, new RegExp(`<testcase classname="tq\\.\\w+" name="${f.name}" time="[\\d.]+">\\n      <failure type="fail" message="`));
  assert.match(xml, new RegExp(`<property name="suite_version" value="${suite.version.replaceAll('.', '\\.')}"/>`));

  // Markdown: the totals, a row per area, a row per failure.
  const md = readFileSync(files.markdown, 'utf8');
  assert.match(md, /^## tq check: failed$/m);
  assert.ok(md.includes(`**${passed} passed, ${failed} failed${skipPart}**`), md.slice(0, 600));
  assert.match(md, /^\| area \| passed \| failed \| errors \| skipped \| expected failures \| unexpected passes \|$/m);
  for (const f of fails) assert.ok(md.includes(`| \`${f.name}\` | ${f.grade} | fail | ${f.key_path} |`), f.name as string);

  // The expect-fail file written from the run names exactly the failures.
  const written = JSON.parse(readFileSync(files.expectFail, 'utf8')) as Array<{ case: string; reason: string }>;
  assert.deepEqual(written.map((e) => e.case), fails.map((f) => f.name as string).sort());
  assert.ok(written.every((e) => e.reason.length > 0 && e.reason.length <= 240));

  // With that file the same target is green: the failures are expected, in every format.
  const green = await runMainCaptured(['check', '--base-url', proxyUrl, ...credentials, '--tags', 'sort', '--no-reset', '--expect-fail', files.expectFail, '--report', files.report, '--junit', files.junit, '--markdown', files.markdown], { NO_COLOR: '1' });
  assert.equal(green.code, 0, green.out.slice(-2000));
  assert.equal(green.out, `${passed} passed, 0 failed${skipPart}, ${failed} expected failures\n`);
  assert.deepEqual(controlCalls, ['GET /test/health', 'POST /test/reset'], '--no-reset: no probe, no reset');
  const greenLines = reportLines(files.report);
  assert.equal(greenLines.filter((l) => l.outcome === 'expected-fail').length, failed);
  assert.deepEqual((greenLines[0].selection as Record<string, unknown>).expect_fail, files.expectFail);
  assert.deepEqual(junitTotals(readFileSync(files.junit, 'utf8')), { tests: cases.length, failures: 0, errors: 0, skipped: skipped + failed });
  assert.match(readFileSync(files.markdown, 'utf8'), /^## tq check: passed$/m);

  // Against tq itself the listed cases pass: unexpected passes, which fail the run.
  const honest = await runMainCaptured(['check', '--base-url', tqUrl, ...credentials, '--tags', 'sort', '--expect-fail', files.expectFail, '--junit', files.junit], { NO_COLOR: '1' });
  assert.equal(honest.code, 1);
  assert.equal(honest.out.split('\n').filter((l) => l.startsWith('XPASS ')).length, failed);
  assert.match(honest.out, new RegExp(`^${passed} passed, 0 failed${skipPart}, ${failed} unexpected passes$`, 'm'));
  assert.deepEqual(junitTotals(readFileSync(files.junit, 'utf8')), { tests: cases.length, failures: failed, errors: 0, skipped });
});

test('tq check --smoke runs the suite\'s smoke cases against a wb_ server with --field-prefix (or its old name --prefix)', { timeout: 60_000 }, async () => {
  const wb = createTqServer({ engine: createEngine(undefined, { fieldPrefix: 'wb_' }), routes: allRoutes(), users: new Users([{ name: USER.name, password: USER.password, projects: ['*'] }]) });
  const { host, port } = await wb.listen('127.0.0.1', 0);
  try {
    for (const flag of ['--field-prefix', '--prefix']) {
      const r = await runMainCaptured(['check', '--base-url', `http://${host}:${port}`, ...credentials, '--smoke', flag, 'wb_'], { NO_COLOR: '1' });
      assert.deepEqual([r.code, r.out, r.err], [0, `${suite.smoke.length} passed, 0 failed\n`, ''], flag);
    }
    const both = await runMainCaptured(['check', '--base-url', `http://${host}:${port}`, ...credentials, '--field-prefix', 'wb_', '--prefix', 'svc_']);
    assert.deepEqual([both.code, both.err], [2, 'error: --field-prefix wb_ and --prefix svc_ disagree (--prefix is the old name of --field-prefix: give one)\n']);
  } finally {
    await wb.close();
  }
});

test('tq check --version names tq, the suite and the Weave source; bad flags are refused before any request', async () => {
  const v = await runMainCaptured(['check', '--version']);
  assert.deepEqual([v.code, v.out], [0, `tq ${TQ_VERSION}\nsuite ${suite.version} (${suite.cases.length} cases; Weave source ${suite.weave_source})\n`]);
  const noUrl = await runMainCaptured(['check', '--password', 'x']);
  assert.deepEqual([noUrl.code, noUrl.err], [2, 'error: --base-url: required (the server under test, e.g. --base-url http://127.0.0.1:6345)\n']);
  const badTag = await runMainCaptured(['check', '--base-url', tqUrl, ...credentials, '--skip-tags', 'shuold']);
  assert.equal(badTag.code, 2);
  assert.match(badTag.err, /^error: --skip-tags: no case has the tag or grade 'shuold' \(closest: should/);
  const missingDir = await runMainCaptured(['check', '--base-url', tqUrl, ...credentials, '--junit', join(dir, 'nope', 'j.xml')]);
  assert.deepEqual([missingDir.code, missingDir.err], [2, `error: --junit: the folder ${join(dir, 'nope')} does not exist\n`]);
  const file = join(dir, 'bad-expect.json');
  writeFileSync(file, '[{"case":"no-such-case","reason":"x"}]');
  const badExpect = await runMainCaptured(['check', '--base-url', tqUrl, ...credentials, '--expect-fail', file]);
  assert.deepEqual([badExpect.code, badExpect.err], [2, `error: --expect-fail: ${file}[0].case: no case is named 'no-such-case' in this suite (renamed or removed?)\n`]);
});

test('--tags and --skip-tags select on grades: should is the decision cases, deviates-from-production the deviations', { timeout: 60_000 }, async () => {
  const should = suite.cases.filter((c) => c.grade === 'should');
  assert.ok(should.length > 0 && should.every((c) => c.tags.includes('decision')));
  const r = await runMainCaptured(['check', '--base-url', tqUrl, ...credentials, '--tags', 'should', '--verbose'], { NO_COLOR: '1' });
  assert.equal(r.code, 0, r.out);
  assert.deepEqual(r.out.split('\n').filter((l) => l.startsWith('ok ')).map((l) => l.slice(3)), should.map((c) => c.name));
  const d = await runMainCaptured(['check', '--base-url', tqUrl, ...credentials, '--tags', 'threads', '--skip-tags', 'deviates-from-production', '--verbose'], { NO_COLOR: '1' });
  const skipped = d.out.split('\n').filter((l) => l.startsWith('skip ')).map((l) => l.slice(5, l.indexOf(':')));
  assert.deepEqual(skipped, suite.cases.filter((c) => c.tags.includes('threads') && c.grade === 'deviates-from-production').map((c) => c.name));
});
