/**
 * End-to-end: the official Weave TypeScript SDK's quick start, `weave.init('just-a-project')`
 * with no entity, against `tq serve --tls-cert --tls-key` with only WANDB_BASE_URL pointing at
 * it (no WF_TRACE_SERVER_URL): the SDK asks /graphql for the default entity over https, trusting
 * the self-signed certificate through NODE_EXTRA_CA_CERTS, then logs and reads calls through
 * /traces/... (docs/local-weave-server.md).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeTestCert } from '../../src/server/tls.testing.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const API_KEY = 'init-secret-key';

function startServer(args: string[]): Promise<{ url: string; proc: ChildProcess }> {
  const proc = spawn(process.execPath, [join(ROOT, 'bin/tq'), 'serve', '--port', '0', ...args], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
  return new Promise((resolve, reject) => {
    let err = '';
    const timer = setTimeout(() => reject(new Error(`server did not start: ${err}`)), 30_000);
    proc.stderr!.on('data', (chunk: Buffer) => {
      err += chunk.toString();
      const m = /tq listening on (https:\/\/\S+)/.exec(err);
      if (m) {
        clearTimeout(timer);
        resolve({ url: m[1], proc });
      }
    });
    proc.on('exit', (code) => reject(new Error(`server exited ${code}: ${err}`)));
  });
}

function runClient(env: NodeJS.ProcessEnv, home: string): Promise<{ code: number | null; out: string }> {
  const proc = spawn(process.execPath, [join(ROOT, 'spec-tests/sdk/weave-init-client.cjs')], {
    cwd: home,
    env: { PATH: process.env.PATH, HOME: home, WANDB_API_KEY: API_KEY, WEAVE_PRINT_CALL_LINK: 'false', NODE_PATH: join(ROOT, 'node_modules'), ...env },
  });
  let out = '';
  proc.stdout.on('data', (c: Buffer) => (out += c.toString()));
  proc.stderr.on('data', (c: Buffer) => (out += c.toString()));
  return new Promise((resolve) => {
    const timer = setTimeout(() => proc.kill('SIGKILL'), 60_000);
    proc.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, out });
    });
  });
}

test("weave.init('just-a-project') over https: /graphql names the entity, calls go to <entity>/just-a-project", { timeout: 120_000 }, async () => {
  const home = mkdtempSync(join(tmpdir(), 'tq-sdk-init-'));
  const cert = makeTestCert();
  const usersFile = join(home, 'users.json');
  writeFileSync(usersFile, JSON.stringify({ users: [{ name: 'api', password: API_KEY, projects: ['sdk-tls/*'] }] }));
  const { url, proc } = await startServer(['--users', usersFile, '--entity', 'sdk-tls', '--field-prefix', 'wb_', '--tls-cert', cert.certFile, '--tls-key', cert.keyFile]);
  try {
    const { code, out } = await runClient({ WANDB_BASE_URL: url, NODE_EXTRA_CA_CERTS: cert.certFile }, home);
    assert.equal(code, 0, out);
    assert.match(out, /INIT OK sdk-tls\/just-a-project\n/);
    // Without the certificate the SDK refuses the server: TLS is really on.
    const untrusted = await runClient({ WANDB_BASE_URL: url }, home);
    assert.notEqual(untrusted.code, 0);
    assert.match(untrusted.out, /self[- ]signed certificate|unable to verify|UNABLE_TO_VERIFY|DEPTH_ZERO_SELF_SIGNED/i);
  } finally {
    proc.kill('SIGTERM');
    rmSync(home, { recursive: true, force: true });
    rmSync(cert.dir, { recursive: true, force: true });
  }
});
