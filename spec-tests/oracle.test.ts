/**
 * The oracle judged as a product: `tq check` passes against `tq serve` and fails (exit 1, with
 * a diff per failing case) against a deliberately wrong server; `tq fuzz` finds no difference
 * between `tq serve` and the engine, and does find (and shrinks) the wrong server's bug.
 *
 * The wrong server is a proxy in front of a real tq server that reverses the lines of every
 * JSON Lines response with more than one line: every answer is right except its order.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import type { Server } from 'node:http';
import { fileURLToPath } from 'node:url';
import { readFileSync } from 'node:fs';
import { allRoutes } from '../src/routes.ts';
import { DEVIATES_TAG } from '../src/check/target.ts';
import { BUNDLE_PATH, type CaseBundle } from './bundle.ts';
import { listenProxy, reversed, rewritingProxy } from './proxy.testing.ts';
import { fuzz } from '../src/check/fuzz.ts';
import { createHttpTarget } from '../src/check/http-target.ts';
import { createEngine } from '../src/engine.ts';
import { Users } from '../src/server/basic-auth.ts';
import { createTqServer, type TqServer } from '../src/server/server.ts';

const TQ = fileURLToPath(new URL('../bin/tq', import.meta.url));
const USER = { name: 'checker', password: 'check-pw' };
const OTHER = { name: 'nobody', password: 'nobody-pw' };

let tq: TqServer;
let tqUrl = '';
let wrong: Server;
let wrongUrl = '';

/** Forwards to tq, reversing multi-line JSONL bodies. */

before(async () => {
  const users = new Users([
    { name: USER.name, password: USER.password, projects: ['*'] },
    { name: OTHER.name, password: OTHER.password, projects: [] },
  ]);
  tq = createTqServer({ engine: createEngine(), routes: allRoutes(), users });
  const { host, port } = await tq.listen('127.0.0.1', 0);
  tqUrl = `http://${host}:${port}`;
  wrong = rewritingProxy(new URL(tqUrl), { rewrite: reversed });
  wrongUrl = await listenProxy(wrong);
});

after(async () => {
  await new Promise<void>((r) => wrong.close(() => r()));
  await tq.close();
});

function runTq(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const proc = spawn(process.execPath, [TQ, ...args], { env: { ...process.env, NO_COLOR: '1' } });
    let stdout = '', stderr = '';
    proc.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    proc.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    proc.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

const credentials = ['--user', USER.name, '--password', USER.password, '--other-user', OTHER.name, '--other-password', OTHER.password];

test('tq check passes every case against tq serve', { timeout: 300_000 }, async () => {
  const { code, stdout, stderr } = await runTq(['check', '--base-url', tqUrl, ...credentials]);
  assert.match(stdout, /^\d+ passed, 0 failed$/m, stdout.slice(-3000));
  assert.equal(stderr, '');
  assert.equal(code, 0);
});

test('tq check --skip-tags leaves out the cases tagged deviates-from-production (and only those)', { timeout: 120_000 }, async () => {
  const bundle = JSON.parse(readFileSync(BUNDLE_PATH, 'utf8')) as CaseBundle;
  const threads = bundle.cases.filter((c) => c.tags.includes('threads'));
  const deviating = threads.filter((c) => c.tags.includes(DEVIATES_TAG)).map((c) => c.name).sort();
  assert.ok(deviating.length > 0);
  const { code, stdout } = await runTq(['check', '--base-url', tqUrl, ...credentials, '--tags', 'threads', '--skip-tags', DEVIATES_TAG, '--verbose']);
  assert.equal(code, 0, stdout.slice(-2000));
  assert.match(stdout, new RegExp(`^${threads.length - deviating.length} passed, 0 failed, ${deviating.length} skipped$`, 'm'));
  const skipped = [...stdout.matchAll(/^skip (\S+): tagged 'deviates-from-production'/gm)].map((m) => m[1]).sort();
  assert.deepEqual(skipped, deviating);
});

test('tq check reports each failing case and exits 1 against a server that reverses its streams', { timeout: 300_000 }, async () => {
  const { code, stdout, stderr } = await runTq(['check', '--base-url', wrongUrl, ...credentials, '--tags', 'sort']);
  assert.equal(code, 1, stderr.slice(-2000));
  const summary = /^(\d+) passed, (\d+) failed/m.exec(stdout);
  assert.ok(summary, stdout.slice(-2000));
  assert.ok(Number(summary[2]) > 0);
  assert.match(stdout, /^FAIL \S+: /m);
  assert.equal(stderr, '', 'results go to stdout; stderr has only diagnostics');
});

test('tq fuzz finds no difference between tq serve and the engine', { timeout: 120_000 }, async () => {
  const target = createHttpTarget({ baseUrl: tqUrl, user: USER, other: OTHER });
  const result = await fuzz({ target, seed: 1, runs: 60 });
  assert.equal(result.difference, undefined);
  assert.equal(result.ok, true);
});

test('tq fuzz finds and shrinks the reversed order of a wrong server', { timeout: 120_000 }, async () => {
  const target = createHttpTarget({ baseUrl: wrongUrl, user: USER, other: OTHER });
  const result = await fuzz({ target, seed: 7, runs: 100 });
  assert.equal(result.ok, false);
  const c = result.counterexample!;
  assert.deepEqual(c.tags, ['fuzz']);
  // Lines that may tie on the request's sort come as tie groups, as the comparison allowed.
  const expected = 'lines' in c.expect && c.expect.lines ? c.expect.lines : 'ties' in c.expect && c.expect.ties ? c.expect.ties.flat() : [];
  assert.ok(expected.length >= 2, 'a reversal needs two lines');
  assert.match(result.difference ?? '', /^line group 0 at \$\.\w+: expected .+, got .+ \(\d+ vs \d+ lines\)$/);
  assert.equal(result.reproduces, true);
});
