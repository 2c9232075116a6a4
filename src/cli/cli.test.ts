/**
 * The command line as a user meets it: bin/tq in a child process, on the bundled demo data.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tempDir } from '../io/temp-dir.testing.ts';

const TQ = fileURLToPath(new URL('../../bin/tq', import.meta.url));
const cwd = tempDir('tq-cli-'); // no ./fixtures here: the bundled demo loads

function tq(args: string[], input?: string) {
  const r = spawnSync(process.execPath, [TQ, ...args], { cwd, input, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', TQ_FIXTURES: '' } });
  return {
    code: r.status,
    out: r.stdout,
    err: r.stderr,
    get lines() {
      return r.stdout.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Record<string, unknown>);
    },
  };
}

test('--help lists every command', () => {
  const { code, out } = tq(['--help']);
  assert.equal(code, 0);
  for (const cmd of ['calls', 'table', 'threads', 'serve', 'check', 'fuzz', 'load', 'gen']) assert.match(out, new RegExp(`^  ${cmd} `, 'm'));
});

test('tq calls: the README query prints the five most recent chat calls of the demo', () => {
  const query = '{"$expr":{"$contains":{"input":{"$getField":"op_name"},"substr":{"$literal":"chat"}}}}';
  const { code, lines } = tq(['calls', '--project', 'acme/support-bot', '--query-json', query, '--sort', 'started_at:desc', '--limit', '5']);
  assert.equal(code, 0);
  // The expected ids are worked out by hand in fixtures/README.md.
  const readme = readFileSync(new URL('../../fixtures/README.md', import.meta.url), 'utf8');
  const ids = lines.map((l) => l.id as string);
  assert.equal(ids.length, 5);
  for (const id of ids) assert.ok(readme.includes(id.slice(0, 13)), `${id} is one of the README's five`);
  const starts = lines.map((l) => Date.parse(l.started_at as string));
  assert.deepEqual(starts, [...starts].sort((a, b) => b - a));
});

test('tq threads and tq table print JSON lines; --request - reads a whole body', () => {
  const threads = tq(['threads', '--project', 'acme/support-bot']);
  assert.equal(threads.code, 0);
  assert.equal(threads.lines[0].thread_id, 'conv-04-plan-upgrade');
  const body = '{"project_id":"acme/evals","digest":"10539a35ae35030cddcb98ffcd1d555ec899184d64c3185ec8a87e91370cdf3f","limit":2}';
  const table = tq(['table', '--request', '-'], body);
  assert.equal(table.code, 0);
  assert.deepEqual(table.lines.map((l) => l.original_index), [0, 1]);
});

test('a request the engine rejects exits 2 with status, code and body on stderr', () => {
  const { code, out, err } = tq(['calls', '--project', 'acme/evals', '--limit', '-1']);
  assert.equal(code, 2);
  assert.equal(out, '');
  assert.match(err, /error 400 TQ_NEGATIVE_LIMIT: Limit must be a positive integer/);
  assert.match(err, /\{"reason":"Limit must be a positive integer"\}/);
});

test('usage mistakes exit 2; bad fixtures exit 1 naming file:line', () => {
  assert.equal(tq(['calls']).code, 2);
  assert.equal(tq(['calls', '--project', 'a/b', '--limit', 'ten']).code, 2);
  assert.equal(tq(['nope']).code, 2);
  const bad = join(cwd, 'bad.jsonl');
  writeFileSync(bad, '{"id":\n');
  const r = tq(['calls', '--project', 'a/b', '--fixtures', bad]);
  assert.equal(r.code, 1);
  assert.match(r.err, /bad\.jsonl:1: invalid JSON/);
});

test('tq load --check prints the counts; tq gen writes a data set tq loads', () => {
  const load = tq(['load', '--check']);
  assert.equal(load.code, 0);
  assert.deepEqual(
    { calls: load.lines[0].calls, projects: load.lines[0].projects, tables: load.lines[0].tables },
    { calls: 297, projects: 3, tables: 1 },
  );
  const out = join(cwd, 'gen');
  assert.equal(tq(['gen', '--calls', '50', '--table-rows', '5', '--out', out]).code, 0);
  const again = tq(['load', '--check', out]);
  assert.equal(again.lines[0].calls, 50);
  assert.equal(again.lines[0].rows, 5);
});

test('issue 14 §4: --query-json and --request - hand the route the text, so 5.0 stays a float and big integers keep their digits', () => {
  const record = (id: string, n: string) =>
    `{"id":"${id}","project_id":"e/p","op_name":"op","display_name":null,"trace_id":"t-${id}","parent_id":null,"thread_id":null,"turn_id":null,` +
    `"started_at":"2024-05-01T12:00:0${id.slice(1)}Z","ended_at":null,"attributes":{},"inputs":{"n":${n},"big":12345678901234567890},"output":null,"exception":null,"summary":null,"svc_user_id":"u","svc_run_id":null,"deleted_at":null}`;
  const fixtures = join(cwd, 'floats.jsonl');
  writeFileSync(fixtures, [record('c1', '7.5'), record('c2', '9')].join('\n') + '\n');
  const query = '{"$gt":[{"$getField":"inputs.n"},{"$literal":5.0}]}';
  const viaFlag = tq(['calls', '--fixtures', fixtures, '-p', 'e/p', '--query-json', query]);
  assert.equal(viaFlag.code, 0, viaFlag.err);
  assert.deepEqual(viaFlag.lines.map((l) => l.id), ['c1', 'c2'], 'a double cast: 7.5 > 5.0 too');
  assert.match(viaFlag.out, /"big":12345678901234567890[,}]/, 'the response keeps every digit');
  const body = `{"project_id":"e/p","query":{"$expr":${query}},"sort_by":[{"field":"inputs.n","direction":"desc"}]}`;
  const viaRequest = tq(['calls', '--fixtures', fixtures, '--request', '-'], body);
  assert.equal(viaRequest.code, 0, viaRequest.err);
  assert.deepEqual(viaRequest.lines.map((l) => l.id), ['c2', 'c1']);
  // (Flag edits of --request text, int literals and big-integer filters: request-body.test.ts,
  // spec-tests/cli-path.test.ts and the calls-json-* cases, without a process each.)
});

test('--request that is not JSON is the route\'s 422 (exit 2)', () => {
  const notJson = tq(['calls', '--request', '-'], '{"project_id": ');
  assert.equal(notJson.code, 2);
  assert.match(notJson.err, /error 422 TQ_REQUEST_SCHEMA: body.15: JSON decode error/);
  assert.ok(notJson.err.includes('{"detail":[{"type":"json_invalid","loc":["body",15],"msg":"JSON decode error"'), notJson.err);
});
