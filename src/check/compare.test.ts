import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { CaseRequest, ConformanceCase } from './case.ts';
import { compareResponse, compareValue, isoInstantMicros } from './compare.ts';
import { parseResponseBody } from './http-target.ts';
import { casePrefixed, renamePrefix } from './prefix.ts';
import { runCases } from './runner.ts';
import { substituteCase } from './substitute.ts';
import type { Target, TargetResponse } from './target.ts';

const ok = (extra: Partial<TargetResponse>): TargetResponse => ({ status: 200, headers: {}, ...extra });

test('numbers compare numerically: 150 equals 150.0 and a last-bit difference of a percentile', () => {
  assert.equal(compareValue(150, 150.0, 'exact'), undefined);
  assert.equal(compareValue(199, 199.00000000000003, 'exact'), undefined);
  assert.equal(compareValue(2.97, 2.9699999999999998, 'exact'), undefined);
  assert.equal(compareValue(1, 2, 'exact'), 'at $: expected 1, got 2');
  assert.equal(compareValue(150, 150.5, 'exact'), 'at $: expected 150, got 150.5');
  assert.equal(compareValue(1, '1', 'exact'), 'at $: expected 1, got "1"');
});

test('datetimes compare as instants at microsecond precision', () => {
  assert.equal(compareValue('2024-05-01T12:00:00Z', '2024-05-01T12:00:00.000000+00:00', 'exact'), undefined);
  assert.equal(compareValue('2024-05-01T14:00:00+02:00', '2024-05-01T12:00:00Z', 'exact'), undefined);
  assert.equal(compareValue('2024-05-01T12:00:00.1234567Z', '2024-05-01T12:00:00.123456Z', 'exact'), undefined);
  assert.equal(
    compareValue('2024-05-01T12:00:00.000001Z', '2024-05-01T12:00:00Z', 'exact'),
    'at $: expected "2024-05-01T12:00:00.000001Z", got "2024-05-01T12:00:00Z"',
  );
  assert.equal(isoInstantMicros('2024-05-01'), undefined);
  assert.equal(isoInstantMicros('1970-01-01T00:00:01.5Z'), 1_500_000n);
  assert.ok(compareValue('abc', 'abd', 'exact'));
});

test('subset matching checks only named keys, at every depth; exact rejects extra keys', () => {
  const got = { a: 1, b: { c: 2, d: 3 }, e: null };
  assert.equal(compareValue({ b: { c: 2 } }, got, 'subset'), undefined);
  assert.equal(compareValue({ e: null }, got, 'subset'), undefined);
  assert.equal(compareValue({ f: null }, got, 'subset'), 'at $.f: expected null, got <missing>');
  assert.equal(compareValue({ b: { c: 2 } }, got, 'exact'), 'at $.b.d: unexpected key (got 3)');
  assert.equal(compareValue({ a: 1, b: { c: 2, d: 4 }, e: null }, got, 'exact'), 'at $.b.d: expected 4, got 3');
  assert.equal(compareValue({ 'x y': [1, { z: 2 }] }, { 'x y': [1, { z: 3 }] }, 'subset'), 'at $["x y"][1].z: expected 2, got 3');
  assert.equal(compareValue([1, 2], [1, 2, 3], 'subset'), 'at $: expected 2 elements, got 3: expected [1,2], got [1,2,3]');
});

test('lines: order matters; the diff names the first differing line and key path', () => {
  const res = ok({ lines: [{ id: 'a', n: 1 }, { id: 'b', n: 2 }] });
  assert.equal(compareResponse({ lines: [{ id: 'a' }, { id: 'b' }] }, res), undefined);
  assert.equal(compareResponse({ lines: [{ id: 'b' }, { id: 'a' }] }, res), 'line 0: at $.id: expected "b", got "a"');
  assert.equal(
    compareResponse({ lines: [{ id: 'a' }] }, res),
    'expected 1 lines, got 2; first extra line 1: {"id":"b","n":2}',
  );
  assert.equal(compareResponse({ lines: [] }, ok({ lines: [] })), undefined);
  assert.equal(compareResponse({ lines: [] }, ok({ json: { rows: [] } })), 'expected a JSON Lines stream, got {"rows":[]}');
});

test('unordered: any order, with a matching that does not get stuck on greedy choices', () => {
  const res = ok({ lines: [{ k: 1, v: 'x' }, { k: 1, v: 'y' }] });
  // Greedy would give {k:1} the first line and leave {v:'x'} nothing.
  assert.equal(compareResponse({ unordered: [{ k: 1 }, { v: 'x' }] }, res), undefined);
  assert.equal(compareResponse({ unordered: [{ v: 'y' }, { v: 'x' }] }, res), undefined);
  const d = compareResponse({ unordered: [{ v: 'y' }, { v: 'z' }] }, res);
  assert.equal(d, 'expected line 1 {"v":"z"} matches no got line; nearest got line 0: at $.v: expected "z", got "x"');
  assert.equal(compareResponse({ unordered: [{ v: 'y' }] }, res), 'expected 1 lines (any order), got 2');
});

test('ties: groups in order, members of a group in any order', () => {
  const res = ok({ lines: [{ i: 1 }, { i: 3 }, { i: 2 }, { i: 4 }] });
  assert.equal(compareResponse({ ties: [[{ i: 1 }], [{ i: 2 }, { i: 3 }], [{ i: 4 }]] }, res), undefined);
  assert.equal(
    compareResponse({ ties: [[{ i: 1 }, { i: 2 }], [{ i: 3 }, { i: 4 }]] }, res),
    'tie group 0 (lines 0..1): expected line 1 {"i":2} matches no got line; nearest got line 1: at $.i: expected 2, got 3',
  );
  assert.equal(compareResponse({ ties: [[{ i: 1 }]] }, res), 'expected 1 lines (in 1 tie groups), got 4');
});

test('json bodies: subset by default, exact on request', () => {
  const res = ok({ json: { digest: 'd', row_digests: ['r'] } });
  assert.equal(compareResponse({ json: { digest: 'd' } }, res), undefined);
  assert.equal(compareResponse({ json: { digest: 'd' }, match: 'exact' }, res), 'json at $.row_digests: unexpected key (got ["r"])');
  assert.equal(compareResponse({ json: {} }, ok({ lines: [] })), 'expected a JSON body {}, got 0 JSON lines, first <missing>');
});

test('errors: status first, then the exact body or its keys, then headers', () => {
  const res: TargetResponse = { status: 400, headers: { 'content-type': 'application/json' }, json: { reason: 'Index out of range' } };
  assert.equal(compareResponse({ status: 400, body: { reason: 'Index out of range' } }, res), undefined);
  assert.equal(compareResponse({ status: 400, body: { reason: 'x' } }, res), 'body at $.reason: expected "x", got "Index out of range"');
  assert.equal(compareResponse({ status: 400, body_keys: ['reason'] }, res), undefined);
  assert.equal(compareResponse({ status: 400, body_keys: ['detail'] }, res), 'body keys: expected ["detail"], got ["reason"]');
  assert.equal(compareResponse({ status: 422 }, res), 'status: expected 422, got 400; body: {"reason":"Index out of range"}');
  assert.equal(compareResponse({ lines: [] }, res), 'status: expected 200, got 400; body: {"reason":"Index out of range"}');
  // An exact error body rejects extra keys.
  assert.equal(
    compareResponse({ status: 400, body: {} }, res),
    'body at $.reason: unexpected key (got "Index out of range")',
  );
});

test('headers: exact value, presence, or prefix; names case-insensitive', () => {
  const res: TargetResponse = { status: 401, headers: { 'www-authenticate': 'Basic realm="tq"' }, json: { reason: 'x' } };
  assert.equal(compareResponse({ status: 401, headers: { 'WWW-Authenticate': { prefix: 'Basic' } } }, res), undefined);
  assert.equal(compareResponse({ status: 401, headers: { 'WWW-Authenticate': true } }, res), undefined);
  assert.equal(
    compareResponse({ status: 401, headers: { 'WWW-Authenticate': 'Basic' } }, res),
    'header WWW-Authenticate: expected "Basic", got "Basic realm=\\"tq\\""',
  );
  assert.equal(compareResponse({ status: 401, headers: { 'X-Other': true } }, res), 'header X-Other: missing');
});

test('a target note is appended to the diff', () => {
  const res: TargetResponse = { status: 500, headers: {}, json: { reason: 'Internal server error' }, note: 'boom' };
  assert.equal(compareResponse({ lines: [] }, res), 'status: expected 200, got 500; body: {"reason":"Internal server error"} [boom]');
});

test('JSON Lines parsing skips blank lines and needs no trailing newline', () => {
  assert.deepEqual(parseResponseBody('application/jsonl', '{"a":1}\n\n{"a":2}'), { lines: [{ a: 1 }, { a: 2 }], raw: '{"a":1}\n\n{"a":2}' });
  assert.deepEqual(parseResponseBody('application/jsonl; charset=utf-8', ''), { lines: [], raw: '' });
  assert.deepEqual(parseResponseBody('application/json', '{"a":1}'), { json: { a: 1 }, raw: '{"a":1}' });
  assert.deepEqual(parseResponseBody('text/plain', 'oops'), { text: 'oops' });
});

const sampleCase: ConformanceCase = {
  name: 'sample',
  tags: [],
  spec: 'test',
  project: 'conf/sample',
  setup: [{ path: '/w', body: { project_id: '{{project}}', svc_user_id: '{{user}}' } }],
  request: { path: '/q', body_text: '{"project_id": "{{project}}", "entity": "{{entity}}", "sort_by": [{"field": "svc_user_id"}]}' },
  expect: { lines: [{ svc_run_id: 'r', project: '{{project}}' }] },
};

test('substitution suffixes the project per run and fills entity and user', () => {
  const c = substituteCase(sampleCase, 'run1', 'alice');
  assert.equal(c.project, 'conf/sample-run1');
  assert.deepEqual(c.setup?.[0].body, { project_id: 'conf/sample-run1', svc_user_id: 'alice' });
  assert.equal(c.request.body_text, '{"project_id": "conf/sample-run1", "entity": "conf", "sort_by": [{"field": "svc_user_id"}]}');
  assert.throws(() => substituteCase({ ...sampleCase, request: { path: '/q', body: { x: '{{nope}}' } } }, 'r', 'u'), /unknown placeholder \{\{nope\}\}/);
  assert.throws(() => substituteCase({ ...sampleCase, project: undefined }, 'r', 'u'), /names no project/);
});

test('prefix renaming turns svc_ into wb_ in keys and strings, and nothing else', () => {
  assert.deepEqual(renamePrefix({ svc_user_id: 'svc_x', a: ['svc_run_ids', 'my_svc_y'], b: 'svc_' }, 'svc_', 'wb_'), {
    wb_user_id: 'wb_x',
    a: ['wb_run_ids', 'my_svc_y'],
    b: 'svc_',
  });
  const c = casePrefixed(sampleCase, 'wb_');
  assert.equal(c.request.body_text, '{"project_id": "{{project}}", "entity": "{{entity}}", "sort_by": [{"field": "wb_user_id"}]}');
  assert.deepEqual(c.expect, { lines: [{ wb_run_id: 'r', project: '{{project}}' }] });
  assert.equal(casePrefixed(sampleCase, 'svc_'), sampleCase);
});

/** A fake target: answers setup writes 200 and queries from a table of canned responses. */
function fakeTarget(responses: Record<string, TargetResponse>, sent: CaseRequest[]): Target {
  return {
    name: 'fake',
    fieldPrefix: 'wb_',
    user: 'alice',
    skipReason: (c) => (c.tags.includes('transport') ? 'needs HTTP' : undefined),
    async send(req) {
      sent.push(req);
      if (req.path === '/throw') throw new Error('connection refused');
      return responses[req.path] ?? { status: 200, headers: {}, json: {} };
    },
  };
}

test('runner: skipTags skips every case carrying one of the tags, naming the tag; others run', async () => {
  const target = fakeTarget({ '/q': ok({ lines: [{ wb_run_id: 'r', project: 'conf/sample-R' }] }) }, []);
  const cases: ConformanceCase[] = [
    { ...sampleCase, name: 'deviating', tags: ['threads', 'deviates-from-production'] },
    { ...sampleCase, name: 'other', tags: ['a', 'b'] },
    sampleCase,
  ];
  const report = await runCases(cases, target, { runId: 'R', skipTags: ['b', 'deviates-from-production'] });
  assert.deepEqual(report.passedNames, ['sample']);
  assert.deepEqual(report.skipped, [
    { name: 'deviating', reason: "tagged 'deviates-from-production' (skipped by request)" },
    { name: 'other', reason: "tagged 'b' (skipped by request)" },
  ]);
});

test('runner: substitutes, renames the prefix, runs setup, compares, and reports pass/fail/skip', async () => {
  const sent: CaseRequest[] = [];
  const target = fakeTarget(
    {
      '/q': ok({ lines: [{ wb_run_id: 'r', project: 'conf/sample-R' }] }),
      '/bad-setup': { status: 400, headers: {}, json: { reason: 'nope' } },
    },
    sent,
  );
  const cases: ConformanceCase[] = [
    sampleCase,
    { ...sampleCase, name: 'wrong', expect: { lines: [] } },
    { ...sampleCase, name: 'setup-fails', setup: [{ path: '/bad-setup', body: {} }] },
    { ...sampleCase, name: 'net', setup: [], request: { path: '/throw' } },
    { ...sampleCase, name: 'http-only', tags: ['transport'] },
    { ...sampleCase, name: 'listed' },
  ];
  const report = await runCases(cases, target, { runId: 'R', skips: { listed: 'known gap' } });
  assert.equal(report.passed, 1);
  assert.deepEqual(report.passedNames, ['sample']);
  assert.deepEqual(report.failed, [
    { name: 'wrong', diff: 'expected 0 lines, got 1; first extra line 0: {"wb_run_id":"r","project":"conf/sample-R"}' },
    { name: 'setup-fails', diff: 'setup[0] POST /bad-setup failed: status 400, body {"reason":"nope"}' },
    { name: 'net', diff: 'request POST /throw: connection refused' },
  ]);
  assert.deepEqual(report.skipped, [
    { name: 'http-only', reason: 'needs HTTP' },
    { name: 'listed', reason: 'known gap' },
  ]);
  // The first case's setup went out substituted and renamed for the wb_ target.
  assert.deepEqual(sent[0].body, { project_id: 'conf/sample-R', wb_user_id: 'alice' });
});

test('json_texts: the value at a key path, as compact JSON with the body\'s number spellings and key order', () => {
  const json = ok(parseResponseBody('application/json', '{"call": {"inputs": {"b": 1.0, "2": 12345678901234567890, "a b": [1e-05, -0.0]}}}'));
  const expect = (json_texts: Record<string, string>) => ({ json: {}, json_texts });
  assert.equal(compareResponse(expect({ '$.call.inputs.b': '1.0', '$.call.inputs["a b"][1]': '-0.0' }), json), undefined);
  assert.equal(compareResponse(expect({ '$.call.inputs': '{"b":1.0,"2":12345678901234567890,"a b":[1e-05,-0.0]}' }), json), undefined);
  // The value comparison alone takes 1.0 and 1 as equal; the text does not.
  assert.equal(compareResponse({ json: { call: { inputs: { b: 1 } } } }, json), undefined);
  assert.equal(compareResponse(expect({ '$.call.inputs.b': '1' }), json), 'json_texts at $.call.inputs.b: expected the text "1", got "1.0"');
  assert.equal(compareResponse(expect({ '$.call.output': 'null' }), json), 'json_texts at $.call.output: expected the text "null", got <missing>');
  assert.equal(compareResponse(expect({ 'call.inputs': '1' }), json), 'json_texts: "call.inputs" is not a key path');
  assert.equal(compareResponse(expect({ '$.call[0]': '1' }), json), 'json_texts at $.call[0]: expected the text "1", got <missing>');
  // A value mismatch is reported first.
  assert.match(compareResponse({ json: { call: 1 }, json_texts: { '$.call': '1' } }, json) ?? '', /^json at \$\.call: expected 1, got \{/);
});

test('json_texts: a stream\'s lines are $[0], $[1], ...; a body that is not JSON cannot match', () => {
  const stream = ok(parseResponseBody('application/jsonl', '{"x": 2.50}\n{"x": 3}\n'));
  assert.equal(compareResponse({ lines: [{ x: 2.5 }, { x: 3 }], json_texts: { '$[0].x': '2.50', '$[1].x': '3' } }, stream), undefined);
  assert.equal(compareResponse({ lines: [{}, {}], json_texts: { '$[1].x': '3.0' } }, stream), 'json_texts at $[1].x: expected the text "3.0", got "3"');
  assert.equal(compareResponse({ json_texts: { $: '1' } }, ok({ text: 'plain' })), 'json_texts: expected a JSON or JSON Lines body, got "plain"');
  assert.equal(compareResponse({ json_texts: { $: '1' } }, ok({ json: 1, raw: 'NaN!' })), 'json_texts: the body does not parse as JSON (Extra data: line 1 column 4 (char 3))');
});
