/**
 * End-to-end: the official Weave TypeScript SDK (weave 0.11.1) against `tq serve`.
 * Starts the real server process on port 0 with a users file granting the SDK's user `api`,
 * then runs weave-client.cjs in a child process with a temporary HOME and cwd
 * (semantics.md#sdk-e2e).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const API_KEY = 'e2e-secret-key';

/** Starts `tq serve` and resolves with its base URL once it prints the listening line. */
function startServer(usersFile: string): Promise<{ url: string; proc: ChildProcess }> {
  const proc = spawn(process.execPath, [join(ROOT, 'bin/tq'), 'serve', '--port', '0', '--users', usersFile], {
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let err = '';
    const timer = setTimeout(() => reject(new Error(`server did not start: ${err}`)), 30_000);
    proc.stderr!.on('data', (chunk: Buffer) => {
      err += chunk.toString();
      const m = /tq listening on (http:\/\/\S+)/.exec(err);
      if (m) {
        clearTimeout(timer);
        resolve({ url: m[1], proc });
      }
    });
    proc.on('exit', (code) => reject(new Error(`server exited ${code}: ${err}`)));
  });
}

function runClient(url: string, home: string): Promise<{ code: number | null; out: string }> {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: home,
    WF_TRACE_SERVER_URL: url,
    WANDB_API_KEY: API_KEY,
    WEAVE_PRINT_CALL_LINK: 'false',
    E2E_PROJECT: 'sdk-e2e/weave-client',
    NODE_PATH: join(ROOT, 'node_modules'),
  };
  const proc = spawn(process.execPath, [join(ROOT, 'spec-tests/sdk/weave-client.cjs')], { cwd: home, env });
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

test('the Weave SDK logs, queries and round-trips a dataset through tq serve', { timeout: 120_000 }, async () => {
  const home = mkdtempSync(join(tmpdir(), 'tq-sdk-'));
  const usersFile = join(home, 'users.json');
  writeFileSync(usersFile, JSON.stringify({ users: [{ name: 'api', password: API_KEY, projects: ['sdk-e2e/*'] }] }));
  const { url, proc } = await startServer(usersFile);
  try {
    const { code, out } = await runClient(url, home);
    assert.equal(code, 0, out);
    assert.match(out, /E2E OK/);
  } finally {
    proc.kill('SIGTERM');
    rmSync(home, { recursive: true, force: true });
  }
});
