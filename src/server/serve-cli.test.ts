/**
 * `tq serve` as a process: startup message, generated credentials, auth, SIGTERM → graceful
 * exit 0, usage errors → exit 2. Runs `serveCommand()` through a tiny harness that reports
 * errors the way src/cli/main.ts does.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { tempDir } from '../io/temp-dir.testing.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const HARNESS = `
const { serveCommand } = await import('./src/cli/serve.ts');
const { reportError } = await import('./src/cli/common.ts');
try {
  await serveCommand().exitOverride().parseAsync(process.argv.slice(1), { from: 'user' });
} catch (e) {
  process.exitCode = e?.code?.startsWith?.('commander.') ? 2 : reportError(e);
}
`;

const fixtures = tempDir('tq-serve-');
writeFileSync(join(fixtures, 'calls.jsonl'), '');

interface Running {
  child: ChildProcess;
  stderr: () => string;
  stdout: () => string;
  exited: Promise<number | null>;
}

function startServe(args: string[], env: Record<string, string> = {}): Running {
  const cleanEnv: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', ...env };
  if (!('TQ_USER' in env)) delete cleanEnv.TQ_USER;
  if (!('TQ_PASSWORD' in env)) delete cleanEnv.TQ_PASSWORD;
  delete cleanEnv.TQ_FIXTURES;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', HARNESS, '--', ...args], {
    cwd: ROOT,
    env: cleanEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  let stdout = '';
  child.stderr!.on('data', (c) => (stderr += c));
  child.stdout!.on('data', (c) => (stdout += c));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, stderr: () => stderr, stdout: () => stdout, exited };
}

async function listening(run: Running): Promise<string> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const m = /tq listening on (http:\/\/127\.0\.0\.1:\d+)\n/.exec(run.stderr());
    if (m) return m[1];
    if (run.child.exitCode !== null) assert.fail(`tq serve exited: ${run.stderr()}`);
    if (Date.now() > deadline) assert.fail(`tq serve did not start: ${run.stderr()}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const basic = (user: string, password: string) => 'Basic ' + Buffer.from(`${user}:${password}`).toString('base64');

describe('tq serve (process)', { timeout: 60_000 }, () => {
  it('no users: prints generated credentials once, serves, and exits 0 on SIGTERM', async () => {
    const run = startServe(['--port', '0', '--fixtures', fixtures]);
    try {
      const base = await listening(run);
      const password = /password: (\S+)/.exec(run.stderr())?.[1];
      assert.ok(password, run.stderr());
      assert.equal(run.stderr().split(password).length - 1, 3, 'shown as the password, in the curl line and as WANDB_API_KEY, nowhere else');
      assert.match(run.stderr(), /^in memory: writes last until this process exits \(keep them with --data DIR\)$/m);
      assert.equal((await fetch(base + '/health')).status, 200);
      const denied = await fetch(base + '/server_info');
      assert.equal(denied.status, 401);
      assert.equal(denied.headers.get('www-authenticate'), 'Basic realm="tq"');
      const ok = await fetch(base + '/server_info', { headers: { Authorization: basic('api', password) } });
      assert.equal(ok.status, 200);
      run.child.kill('SIGTERM');
      assert.equal(await run.exited, 0);
      assert.match(run.stderr(), /tq: stopped\n$/);
    } finally {
      run.child.kill('SIGKILL');
    }
  });

  it('TQ_PASSWORD sets the api password; nothing is generated; --log logs requests', async () => {
    const run = startServe(['--port', '0', '--fixtures', fixtures, '--log'], { TQ_PASSWORD: 'sekret' });
    try {
      const base = await listening(run);
      assert.doesNotMatch(run.stderr(), /generated/);
      assert.equal((await fetch(base + '/server_info', { headers: { Authorization: basic('api', 'sekret') } })).status, 200);
      assert.equal((await fetch(base + '/server_info', { headers: { Authorization: basic('api', 'wrong') } })).status, 401);
      run.child.kill('SIGINT');
      assert.equal(await run.exited, 0);
      assert.match(run.stderr(), /GET \/server_info 200 /);
      assert.match(run.stderr(), /GET \/server_info 401 /);
    } finally {
      run.child.kill('SIGKILL');
    }
  });

  it('usage errors exit 2 with a clear message, before loading anything', async () => {
    const badUsers = join(fixtures, 'users.json');
    writeFileSync(badUsers, JSON.stringify({ users: [{ name: 'a', password: 'p', projects: ['acme'] }] }));
    const cases: Array<[string[], RegExp]> = [
      [['--port', '70000'], /--port: must be between 0 and 65535, got 70000/],
      [['--max-body-bytes', '0'], /--max-body-bytes: must be positive/],
      [['--max-body-bytes', '100', '--max-body-bytes-in-flight', '99'], /--max-body-bytes-in-flight: must be at least --max-body-bytes \(100\), got 99/],
      [['--field-prefix', 'xx_'], /--field-prefix: must be svc_ or wb_/],
      [['--user', 'ci'], /--user needs --password/],
      [['--users', badUsers], /users\.json: users\[0\]\.projects\[0\]: invalid grant "acme"/],
    ];
    for (const [args, message] of cases) {
      const run = startServe(['--port', '0', '--fixtures', join(fixtures, 'missing'), ...args]);
      assert.equal(await run.exited, 2, run.stderr());
      assert.match(run.stderr(), message);
    }
    // --watch reloads fixture files, which would drop the journaled writes of --data.
    const run = startServe(['--port', '0', '--data', join(fixtures, 'data'), '--watch']);
    assert.equal(await run.exited, 2, run.stderr());
    assert.match(run.stderr(), /--watch reloads fixture files; with --data the journal holds the writes/);
  });
});

describe('tq serve (process): the local Weave server flags', { timeout: 120_000 }, () => {
  it('--test-control prints READY=<url> on stdout, as trace_server_mock does, and serves /test/health open', async () => {
    const run = startServe(['--port', '0', '--fixtures', fixtures, '--test-control'], { TQ_PASSWORD: 'sekret' });
    try {
      const base = await listening(run);
      // stdout and stderr are separate pipes: wait for the line rather than assume an order.
      for (let i = 0; i < 100 && !run.stdout().endsWith('\n'); i++) await new Promise((r) => setTimeout(r, 20));
      assert.equal(run.stdout(), `READY=${base}\n`);
      assert.deepEqual(await (await fetch(base + '/test/health')).json(), { ok: true });
      run.child.kill('SIGTERM');
      assert.equal(await run.exited, 0);
    } finally {
      run.child.kill('SIGKILL');
    }
  });

  it('usage errors of the Weave server flags, in-process: each refused before anything loads', async () => {
    const { serveCommand } = await import('../cli/serve.ts');
    const { UsageError } = await import('../cli/common.ts');
    const badUsers = join(fixtures, 'users.json');
    writeFileSync(badUsers, JSON.stringify({ users: [{ name: 'a', password: 'p', projects: ['*'] }] }));
    const cases: Array<[string[], RegExp]> = [
      [['--tls-cert', badUsers], /--tls-cert and --tls-key go together/],
      [['--tls-cert', join(fixtures, 'no-cert.pem'), '--tls-key', badUsers], /--tls-cert: cannot read .*no-cert\.pem \(ENOENT\)/],
      [['--calls-mode', 'fast'], /--calls-mode: must be legacy or complete, got 'fast'/],
      [['--calls-complete', 'a/b/c'], /--calls-complete: invalid project pattern 'a\/b\/c'/],
      [['--entity', 'a/b'], /--entity: an entity name has no '\/', '\*' or spaces, got 'a\/b'/],
      [['--test-control', '--host', '0.0.0.0'], /--test-control: only on a loopback --host \(127\.0\.0\.1, ::1, localhost\), got '0\.0\.0\.0'/],
    ];
    for (const [args, message] of cases) {
      await assert.rejects(serveCommand().exitOverride().parseAsync(['--port', '0', '--fixtures', join(fixtures, 'missing'), ...args], { from: 'user' }), (e: Error) => e instanceof UsageError && message.test(e.message), args.join(' '));
    }
  });
});
