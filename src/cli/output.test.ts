import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { gzipSync } from 'node:zlib';
import { Chalk } from 'chalk';
import { TQ_BIN } from './run-tq.testing.ts';
import { prettyJson, stdoutIsTerminal, tableLines } from './output.ts';
import { plainOrGunzipped } from './stdin.ts';

const DEMO_CALLS = readFileSync(new URL('../../fixtures/calls.jsonl', import.meta.url));

function tq(args: string[], env: Record<string, string> = {}, input?: Buffer | string) {
  const r = spawnSync(process.execPath, [TQ_BIN, ...args], { cwd: tmpdir(), input, encoding: 'utf8', env: { ...process.env, TQ_FIXTURES: '', NO_COLOR: '1', ...env } });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

test('prettyJson indents as jq does, keeps every lexeme as written, and colours keys, strings and literals', () => {
  const line = '{"a":1.0,"b":[],"c":{},"d":["x\\"y,z",null,true,1e400],"e":{"f":-0.0}}';
  const plain = new Chalk({ level: 0 });
  assert.equal(prettyJson(line, plain), '{\n  "a": 1.0,\n  "b": [],\n  "c": {},\n  "d": [\n    "x\\"y,z",\n    null,\n    true,\n    1e400\n  ],\n  "e": {\n    "f": -0.0\n  }\n}');
  const colour = new Chalk({ level: 1 });
  assert.equal(prettyJson('{"k":"v","n":null}', colour), `{\n  ${colour.blue.bold('"k"')}: ${colour.green('"v"')},\n  ${colour.blue.bold('"n"')}: ${colour.dim('null')}\n}`);
  assert.equal(stdoutIsTerminal({}, { isTTY: false }), false);
  assert.equal(stdoutIsTerminal({ TQ_FORCE_STDOUT_TTY: '1' }, { isTTY: false }), true);
  assert.equal(stdoutIsTerminal({}, { isTTY: true }), true);
});

test('on a terminal the lines are pretty (with colour unless NO_COLOR); --compact and a pipe keep one line each', () => {
  const args = ['threads', '-p', 'acme/support-bot', '--limit', '1'];
  const piped = tq(args);
  assert.equal(piped.out.split('\n').length, 2);
  const pretty = tq(args, { TQ_FORCE_STDOUT_TTY: '1' });
  assert.equal(pretty.out, prettyJson(piped.out.trim(), new Chalk({ level: 0 })) + '\n');
  assert.match(pretty.out, /^ {2}"p50_turn_duration_ms": 3784\.0,$/m, 'the float lexeme as the engine wrote it');
  const coloured = tq(args, { TQ_FORCE_STDOUT_TTY: '1', NO_COLOR: '' });
  assert.ok(coloured.out.includes('\u001b[32m"conv-04-plan-upgrade"\u001b[39m'), coloured.out.slice(0, 200));
  assert.equal(tq([...args, '--compact'], { TQ_FORCE_STDOUT_TTY: '1' }).out, piped.out);
});

test('--format table prints the chosen fields aligned; numbers right-aligned; op refs by op name', () => {
  const threads = tq(['threads', '-p', 'acme/support-bot', '--format', 'table', '--table-columns', 'thread_id,turn_count', '--limit', '2']);
  assert.deepEqual([threads.code, threads.out], [0, 'thread_id               turn_count\nconv-04-plan-upgrade             6\nconv-06-address-change           2\n']);
  const calls = tq(['calls', '-p', 'acme/support-bot', '--limit', '2', '--columns', 'id,op_name', '--format', 'table']);
  assert.equal(calls.out, 'id                                    op_name\n01957f13-614a-79cb-8806-2275368d35e4  chat_turn\n01957f13-614a-751b-b09a-b0ab070ae7f1  retrieve_docs\n');
  assert.equal(tq(['threads', '-p', 'acme/evals', '--format', 'table']).out, '(no rows)\n');
  const long = [...tableLines(Array.from({ length: 502 }, (_, i) => JSON.stringify({ n: i, s: 'x'.repeat(i % 3) })), ['n', 's'])];
  assert.deepEqual(long.slice(0, 2), ['  n  s', '  0']);
  assert.deepEqual(long.slice(499, 503), ['498', '499  x', '500  xx', '501'], 'rows past the first block keep its widths');
  const bad = tq(['threads', '-p', 'acme/support-bot', '--format', 'csv']);
  assert.deepEqual([bad.code, bad.err], [2, "error: --format: must be jsonl or table, got 'csv'\n"]);
  const stray = tq(['threads', '-p', 'acme/support-bot', '--table-columns', 'a']);
  assert.deepEqual([stray.code, stray.err], [2, 'error: --table-columns: only with --format table\n']);
});

test('--fixtures - reads calls JSON Lines from stdin, plain or gzip, and answers as from the file', () => {
  const fromFile = tq(['calls', '-p', 'acme/support-bot', '--columns', 'id,op_name', '--fixtures', new URL('../../fixtures/calls.jsonl', import.meta.url).pathname]);
  assert.equal(fromFile.code, 0, fromFile.err);
  for (const input of [DEMO_CALLS, gzipSync(DEMO_CALLS)]) {
    const r = tq(['calls', '-p', 'acme/support-bot', '--columns', 'id,op_name', '--fixtures', '-'], {}, input);
    assert.deepEqual([r.code, r.out, r.err], [0, fromFile.out, '']);
  }
  const bad = tq(['calls', '-p', 'a/b', '--fixtures', '-'], {}, '{"id":1}\n{bad\n');
  assert.equal(bad.code, 1);
  assert.match(bad.err, /^fixture error: <stdin>:1: /);
  const both = tq(['calls', '--request', '-', '--fixtures', '-']);
  assert.deepEqual([both.code, both.err], [2, 'error: --request - and --fixtures - both read stdin: give one of them a file\n']);
});

test('plainOrGunzipped streams: it yields before its source ends, and reads gzip split into one-byte chunks', async () => {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  async function* slow() {
    yield Buffer.from('{"a":1}\n');
    await gate; // the source does not end until the consumer has seen the first line
    yield Buffer.from('{"a":2}\n');
  }
  const seen: string[] = [];
  for await (const chunk of plainOrGunzipped(slow())) {
    seen.push(chunk.toString());
    release();
  }
  assert.deepEqual(seen, ['{"a":1}\n', '{"a":2}\n']);
  const zipped = gzipSync('x\ny\n');
  async function* bytes() {
    for (const b of zipped) yield Buffer.from([b]);
  }
  const out: Buffer[] = [];
  for await (const chunk of plainOrGunzipped(bytes())) out.push(chunk);
  assert.equal(Buffer.concat(out).toString(), 'x\ny\n');
  const empty: Buffer[] = [];
  for await (const chunk of plainOrGunzipped((async function* () {})())) empty.push(chunk);
  assert.deepEqual(empty, []);
  const one: Buffer[] = [];
  for await (const chunk of plainOrGunzipped((async function* () { yield 'z'; })())) one.push(chunk);
  assert.deepEqual(one.map(String), ['z']);
});
