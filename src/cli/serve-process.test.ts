/**
 * `tq serve` as a user runs it (bin/tq in a child process): the banner, the request log on a
 * terminal, CORS by bind address, --watch and SIGHUP reloads, --delay, --quiet, --log json.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateCalls } from '../gen/generate.ts';
import { runMainCaptured, TQ_BIN } from './run-tq.testing.ts';
import { tempDir } from '../io/temp-dir.testing.ts';

const AUTH = 'Basic ' + Buffer.from('api:pw').toString('base64');
const callsText = (n: number) => [...generateCalls({ calls: n, seed: 1, projectId: 'gen/p' })].join('\n') + '\n';

interface Served {
  child: ChildProcess;
  base: string;
  stderr: () => string;
  waitFor: (pattern: RegExp) => Promise<void>;
  stop: () => Promise<number | null>;
}

async function serve(args: string[], env: Record<string, string> = {}): Promise<Served> {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', TQ_PASSWORD: 'pw', ...env };
  delete childEnv.TQ_USER;
  delete childEnv.TQ_FIXTURES;
  if (!env.TQ_FORCE_TTY) delete childEnv.TQ_FORCE_TTY;
  const child = spawn(process.execPath, [TQ_BIN, 'serve', '--port', '0', ...args], { env: childEnv, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (c) => (stderr += c));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const waitFor = async (pattern: RegExp) => {
    const deadline = Date.now() + 20_000;
    while (!pattern.test(stderr)) {
      if (child.exitCode !== null || Date.now() > deadline) assert.fail(`waiting for ${pattern}: ${stderr}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  // The banner ends with the SDK key line (its lines are separate writes).
  await waitFor(/tq listening on http:\/\/127\.0\.0\.1:\d+\n(.*\n)*    export WANDB_API_KEY=.*\n/);
  const base = /tq listening on (\S+)/.exec(stderr)![1];
  return {
    child,
    base,
    stderr: () => stderr,
    waitFor,
    stop: async () => {
      child.kill('SIGTERM');
      return exited;
    },
  };
}

const query = (base: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(base + '/calls/stream_query', { method: 'POST', headers: { Authorization: AUTH, ...headers }, body: JSON.stringify(body) });

const preflight = (base: string) =>
  fetch(base + '/calls/stream_query', { method: 'OPTIONS', headers: { Origin: 'http://localhost:3000', 'Access-Control-Request-Method': 'POST' } });

describe('tq serve (process)', { timeout: 90_000 }, () => {
  it('on a terminal: banner with curl, request log, CORS on loopback, --watch and SIGHUP reloads', async () => {
    const dir = tempDir('tq-serve-watch-');
    writeFileSync(join(dir, 'calls.jsonl'), callsText(2));
    const s = await serve(['--fixtures', dir, '--watch'], { TQ_FORCE_TTY: '1' });
    try {
      assert.match(s.stderr(), new RegExp(`  try: +curl -s -u 'api:<password>' ${s.base}/calls/stream_query -d '\\{"project_id":"gen/p",`));
      assert.match(s.stderr(), new RegExp(`    export WF_TRACE_SERVER_URL=${s.base}\\n    export WANDB_API_KEY=<password>\\n`));
      await s.waitFor(/tq: watching .* for changes/);
      const res = await query(s.base, { project_id: 'gen/p' });
      assert.equal((await res.text()).trim().split('\n').length, 2);
      await s.waitFor(/POST \/calls\/stream_query 200 project=gen\/p user=api lines=2 bytes=\d+ [\d.]+ms\n/);
      const pre = await preflight(s.base);
      assert.equal(pre.status, 204);
      assert.equal(pre.headers.get('access-control-allow-origin'), 'http://localhost:3000');

      writeFileSync(join(dir, 'calls.jsonl'), callsText(5));
      await s.waitFor(/tq: reloaded .* \(calls\.jsonl changed\) in \d+ ms: 1 projects, 5 calls/);
      assert.equal((await (await query(s.base, { project_id: 'gen/p' })).text()).trim().split('\n').length, 5);

      writeFileSync(join(dir, 'calls.jsonl'), callsText(1) + 'oops\n');
      await s.waitFor(/tq: reload \(calls\.jsonl changed\) failed, still serving the previous data: .*calls\.jsonl:2: invalid JSON/);
      assert.equal((await (await query(s.base, { project_id: 'gen/p' })).text()).trim().split('\n').length, 5);

      writeFileSync(join(dir, 'calls.jsonl'), callsText(3));
      await s.waitFor(/in \d+ ms: 1 projects, 3 calls/);
      s.child.kill('SIGHUP');
      await s.waitFor(/tq: reloaded .* \(SIGHUP\) in \d+ ms: 1 projects, 3 calls/);
      assert.equal(s.child.exitCode, null, 'SIGHUP does not stop the server');
    } finally {
      assert.equal(await s.stop(), 0);
    }
  });

  it('--no-cors, --delay, --log json (no terminal)', async () => {
    const s = await serve(['--no-cors', '--delay', '150', '--log', 'json']);
    try {
      assert.equal((await preflight(s.base)).status, 405);
      const t = performance.now();
      const res = await query(s.base, { project_id: 'acme/evals', limit: 1 });
      await res.text();
      assert.ok(performance.now() - t >= 145);
      const injected = await query(s.base, { project_id: 'acme/evals' }, { Prefer: 'code=503' });
      assert.deepEqual([injected.status, await injected.json()], [503, { reason: 'Injected error: Prefer: code=503' }]);
      await s.waitFor(/"status":503/);
      const entries = s.stderr().split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l));
      assert.deepEqual(Object.keys(entries[0]), ['time', 'method', 'path', 'project', 'user', 'status', 'lines', 'bytes', 'ms', 'aborted', 'reason']);
      assert.deepEqual(entries.map((e) => [e.method, e.status, e.project, e.lines]), [['OPTIONS', 405, null, null], ['POST', 200, 'acme/evals', 1], ['POST', 503, null, null]]);
    } finally {
      assert.equal(await s.stop(), 0);
    }
  });

  it('--quiet: no request log even on a terminal', async () => {
    const s = await serve(['--quiet'], { TQ_FORCE_TTY: '1' });
    try {
      await (await query(s.base, { project_id: 'acme/evals', limit: 1 })).text();
      await new Promise((r) => setTimeout(r, 100));
    } finally {
      assert.equal(await s.stop(), 0);
    }
    assert.doesNotMatch(s.stderr(), /POST \/calls/);
  });

  it('usage errors for the new flags', async () => {
    const cases: Array<[string[], string]> = [
      [['--log', 'xml'], "error: --log: format must be text or json, got 'xml'"],
      [['--quiet', '--log'], 'error: --quiet: cannot be combined with --log'],
      [['--delay', '300-100'], "error: --delay: the range must not decrease, got '300-100'"],
      [['--delay', 'soon'], "error: --delay: must be MS or MIN-MAX in milliseconds, got 'soon'"],
    ];
    for (const [args, message] of cases) {
      const r = await runMainCaptured(['serve', '--port', '0', ...args]);
      assert.deepEqual([r.code, r.err.split('\n')[0]], [2, message]);
    }
  });

  it('a port in use is said before the data is loaded (here the fixtures do not even exist)', async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const { port } = holder.address() as AddressInfo;
    try {
      const r = await runMainCaptured(['serve', '--port', String(port), '--fixtures', join(tmpdir(), 'tq-no-such-fixtures')]);
      assert.deepEqual([r.code, r.err.split('\n')[0]], [2, `error: port ${port} on 127.0.0.1 is in use; choose another with --port`]);
    } finally {
      holder.close();
    }
  });
});
