import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applyExpectFail, expectFailFromRun, parseExpectFail, runFailed } from './expect-fail.ts';
import { jsonlReport, junitReport, markdownReport, reportedResponse, summaryLine, type ReportHeader } from './report.ts';
import { keyPathOf, type CaseResult } from './runner.ts';

const header: ReportHeader = {
  type: 'header', format: 1, tq_version: '0.1.0', suite_version: '1.0.0', weave_source: 'wandb/weave@x', target: 'http://h', field_prefix: 'svc_',
  server_info: null, control_plane: 'none', started_at: '2026-01-01T00:00:00.000Z', selection: { smoke: false },
};
const base = { grade: 'must' as const, tags: ['t'], duration_ms: 2 };
const results: CaseResult[] = [
  { ...base, name: 'calls-a', outcome: 'pass' },
  { ...base, name: 'calls-b', outcome: 'fail', detail: 'line 0: at $.x: expected 1, got 2', key_path: 'line 0 $.x' },
  { ...base, name: 'writes-c', outcome: 'error', detail: 'setup[0] POST /x failed: <a & "b">\u0001' },
  { ...base, name: 'writes-d', outcome: 'skip', detail: 'needs --other-user', duration_ms: 0 },
];

test('expect-fail files: every problem named with its entry; outcomes applied; the file a run implies', () => {
  const known = new Set(results.map((r) => r.name));
  assert.deepEqual(parseExpectFail('[{"case":"calls-b","reason":"known","link":"http://x"}]', known, 'f'), [{ case: 'calls-b', reason: 'known', link: 'http://x' }]);
  for (const [text, message] of [
    ['nope', /^f: not JSON/],
    ['{}', /^f: expected a JSON array/],
    ['[1]', /^f\[0\]: expected an object/],
    ['[{"case":"calls-b","reason":"r","x":1}]', /^f\[0\]\.x: not allowed/],
    ['[{"reason":"r"}]', /^f\[0\]\.case: must be a case name$/],
    ['[{"case":"calls-b"}]', /^f\[0\]\.reason: must say why/],
    ['[{"case":"calls-b","reason":"r","link":1}]', /^f\[0\]\.link: must be a string/],
    ['[{"case":"calls-b","reason":"r"},{"case":"calls-b","reason":"r"}]', /^f\[1\]\.case: 'calls-b' is listed twice$/],
  ] as const) assert.throws(() => parseExpectFail(text, known, 'f'), { message }, text);
  const applied = applyExpectFail(results, [{ case: 'calls-a', reason: 'r' }, { case: 'calls-b', reason: 'known', link: 'L' }, { case: 'writes-d', reason: 's' }]);
  assert.deepEqual(applied.map((r) => r.outcome), ['unexpected-pass', 'expected-fail', 'error', 'skip']);
  assert.equal(runFailed(applied), true);
  assert.equal(runFailed(applyExpectFail(results.filter((r) => r.outcome !== 'error'), [{ case: 'calls-b', reason: 'k' }])), false);
  assert.equal(expectFailFromRun(applied, [{ case: 'calls-b', reason: 'known', link: 'L' }]), '[\n  {"case":"calls-b","reason":"known","link":"L"},\n  {"case":"writes-c","reason":"setup[0] POST /x failed: <a & \\"b\\">\\u0001"}\n]\n');
  assert.equal(expectFailFromRun([]), '[\n]\n');
  assert.equal(expectFailFromRun([{ ...base, name: 'z', outcome: 'fail', detail: 'y'.repeat(400) }]).length < 300, true);
});

test('reports: a summary line, bounded responses, JUnit with escaped text, Markdown tables', () => {
  assert.equal(summaryLine(results), '1 passed, 1 failed, 1 errors, 1 skipped');
  const big = reportedResponse({ status: 200, headers: {}, lines: Array.from({ length: 60 }, (_, i) => i), json: { t: 'x'.repeat(70_000) }, text: 'y'.repeat(70_000) });
  assert.deepEqual([big.lines!.length, big.line_count, big.truncated, big.json, big.text!.length], [50, 60, true, undefined, 65536]);
  const jsonl = jsonlReport(header, [{ ...results[1], request: { path: '/p', body_text: 'z'.repeat(70_000) }, response: { status: 200, headers: {}, json: { a: 1 } } }], () => 'src', 5, false).trim().split('\n').map((l) => JSON.parse(l));
  assert.deepEqual([jsonl.length, jsonl[1].request.body_text.length, jsonl[1].response, jsonl[2].counts.fail], [3, 65536, { status: 200, headers: {}, json: { a: 1 } }, 1]);
  const xml = junitReport(header, applyExpectFail(results, [{ case: 'calls-b', reason: 'known <x>' }]), 1234);
  assert.match(xml, /<testsuites name="tq check http:\/\/h" tests="4" failures="0" errors="1" skipped="2" time="1\.234">/);
  assert.match(xml, /<error type="error" message="setup\[0\] POST \/x failed: &lt;a &amp; &quot;b&quot;&gt;\uFFFD">/);
  assert.match(xml, /<skipped message="expected failure: known &lt;x&gt;"\/>/);
  assert.match(xml, /<skipped message="needs --other-user"\/>/);
  const md = markdownReport(header, applyExpectFail(results, [{ case: 'calls-b', reason: 'a | b', link: 'http://l' }]), false);
  assert.match(md, /^\| calls \| 1 \| 0 \| 0 \| 0 \| 1 \| 0 \|$/m);
  assert.match(md, /^\| `writes-c` \| must \| error \|  \| setup\[0\] POST \/x failed: &lt;a & "b">\u0001 \|$/m);
  assert.match(md, /^\| `calls-b` \| a \\\| b \(http:\/\/l\) \|$/m);
  const many = markdownReport(header, Array.from({ length: 120 }, (_, i) => ({ ...base, name: `calls-${i}`, outcome: 'fail' as const, detail: 'd'.repeat(400) })), false);
  assert.match(many, /…and 20 more \(the --report file has every one\)\./);
  assert.ok(many.split('\n').every((l) => l.length < 400));
});

test('keyPathOf names where a diff says the answer differs', () => {
  assert.equal(keyPathOf('status: expected 200, got 500; body: x'), 'status');
  assert.equal(keyPathOf('header content-type: missing'), 'header content-type');
  assert.equal(keyPathOf('json_texts at $[0].inputs.x: expected the text "1.0", got "1"'), 'json_texts $[0].inputs.x');
  assert.equal(keyPathOf('expected 3 lines, got 2; line 1: at $.a.b: expected 1, got 2'), 'line 1 $.a.b');
  assert.equal(keyPathOf('tie group 0 (lines 0..1): expected line 0 {} matches no got line; nearest got line 1: at $.id: expected "a", got "b"'), 'line 1 $.id');
  assert.equal(keyPathOf('body at $.reason: expected "a", got "b"'), 'body $.reason');
  assert.equal(keyPathOf('json at $: expected 1, got 2'), 'json $');
  assert.equal(keyPathOf('body keys: expected ["a"], got ["b"]'), 'body keys');
  assert.equal(keyPathOf('expected 3 lines, got 2; first missing line 2: {}'), 'line count');
  assert.equal(keyPathOf('something else'), undefined);
});

test('a case passes when the answer matches one of its alternatives; the diff named is the primary expectation\'s', async () => {
  const { createEngineTarget } = await import('./engine-target.ts');
  const { runCases } = await import('./runner.ts');
  const kase = {
    name: 'calls-alt', tags: ['calls'], spec: 'x', project: 'conf/alt',
    request: { path: '/calls/stream_query', body: { project_id: '{{project}}', limit: -1 } },
    expect: { status: 422, body_keys: ['detail'] },
  };
  const target = createEngineTarget();
  const without = await runCases([kase], target, { runId: 'r' });
  assert.equal(without.results[0].outcome, 'fail');
  assert.equal(without.results[0].key_path, 'status');
  assert.equal(without.results[0].response?.status, 400);
  const withAlternative = await runCases([{ ...kase, alternatives: [{ status: 404 }, { status: 400, body_keys: ['reason'] }] }], target, { runId: 'r2' });
  assert.deepEqual([withAlternative.results[0].outcome, withAlternative.passed], ['pass', 1]);
  const broken = await runCases([{ ...kase, request: { path: '/calls/stream_query', body: { project_id: '{{nope}}' } } }], target, { runId: 'r3' });
  assert.deepEqual([broken.results[0].outcome, broken.results[0].detail], ['error', 'runner error: case calls-alt: unknown placeholder {{nope}}']);
});
