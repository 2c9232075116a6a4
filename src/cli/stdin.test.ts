import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { readAll, readRequestSource } from './stdin.ts';
import { TQ_BIN } from './run-tq.testing.ts';
import { tempDir } from '../io/temp-dir.testing.ts';

const TQ = TQ_BIN;

test('readAll waits for EOF and joins a UTF-8 character split across chunks', async () => {
  const stream = new PassThrough();
  const text = readAll(stream);
  const bytes = Buffer.from('{"q":"€"}');
  stream.write(bytes.subarray(0, 7)); // the euro sign's three bytes are split 2 + 1
  await new Promise((r) => setTimeout(r, 30));
  stream.end(bytes.subarray(7));
  assert.equal(await text, '{"q":"€"}');
});

test('readRequestSource: - is the given stdin, anything else a file', async () => {
  const dir = tempDir('tq-stdin-');
  writeFileSync(join(dir, 'body.json'), '{"a":1}');
  assert.equal(await readRequestSource(join(dir, 'body.json')), '{"a":1}');
  const stdin = new PassThrough();
  stdin.end('{"b":2}');
  assert.equal(await readRequestSource('-', stdin), '{"b":2}');
  await assert.rejects(readRequestSource(join(dir, 'missing.json')), { code: 'ENOENT' });
  const terminal = Object.assign(new PassThrough(), { isTTY: true });
  terminal.end('{}');
  const hints: string[] = [];
  assert.equal(await readRequestSource('-', terminal, (l) => hints.push(l)), '{}');
  assert.deepEqual(hints, ['tq: reading the request body from the terminal; end it with Ctrl-D']);
});

const env = { ...process.env, NO_COLOR: '1', TQ_FIXTURES: '' };
const cwd = tempDir('tq-stdin-cwd-');
const TABLE_BODY = '{"project_id":"acme/evals","digest":"10539a35ae35030cddcb98ffcd1d555ec899184d64c3185ec8a87e91370cdf3f","limit":2}';

test('tq table --request - reads a slow pipe to the end', () => {
  // The producer writes after the reader has started, in two parts.
  const script = `(sleep 0.3; printf '%s' '${TABLE_BODY.slice(0, 10)}'; sleep 0.2; printf '%s\\n' '${TABLE_BODY.slice(10)}') | "${process.execPath}" "${TQ}" table --request -`;
  const r = spawnSync('sh', ['-c', script], { encoding: 'utf8', env, cwd });
  assert.equal(r.stderr, '');
  assert.equal(r.status, 0);
  assert.deepEqual(r.stdout.trim().split('\n').map((l) => JSON.parse(l).original_index), [0, 1]);
});

// A body typed into a terminal: stdin is a TTY, where a synchronous read fails with EAGAIN.
const hasScript = spawnSync('script', ['--version']).status === 0;
test('tq calls/threads --request - read a body typed into a terminal until Ctrl-D', { skip: !hasScript && 'util-linux script(1) is not installed' }, () => {
  const typed: Array<[string, string, string]> = [
    ['calls', '{"project_id":"acme/evals","limit":2}', '{"id":'],
    ['threads', '{"project_id":"acme/support-bot","limit":2}', '{"thread_id":'],
  ];
  for (const [command, body, answer] of typed) {
    // stdout is the terminal too: --compact keeps one line per answer line (it would be pretty).
    const shell = `(sleep 0.6; printf '%s\\n' '${body}'; sleep 0.3; printf '\\004') | script -qec '"${process.execPath}" "${TQ}" ${command} --request - --compact' /dev/null`;
    const r = spawnSync('sh', ['-c', shell], { encoding: 'utf8', env, cwd, timeout: 20_000 });
    const lines = r.stdout.split(/\r?\n/);
    assert.doesNotMatch(r.stdout, /EAGAIN|internal error/, command);
    assert.equal(lines.filter((l) => l.startsWith(answer)).length, 2, `${command}: ${r.stdout}`);
    assert.match(r.stdout, /tq: reading the request body from the terminal; end it with Ctrl-D/);
  }
  // Without --compact a real terminal gets each line pretty-printed, as jq prints it.
  const pretty = spawnSync('sh', ['-c', `script -qec '"${process.execPath}" "${TQ}" threads -p acme/support-bot --limit 1' /dev/null`], { encoding: 'utf8', env, cwd, timeout: 20_000 });
  assert.match(pretty.stdout, /^\{\r?\n {2}"thread_id": "conv-04-plan-upgrade",\r?$/m, pretty.stdout);
});
