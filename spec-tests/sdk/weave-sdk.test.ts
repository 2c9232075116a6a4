/**
 * End-to-end: the official Weave TypeScript SDK (weave 0.11.1) against `tq serve`.
 * Starts the real server process on port 0 with a users file granting the SDK's user `api`,
 * then runs weave-client.cjs in a child process with a temporary HOME and cwd
 * (semantics.md#sdk-e2e).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runClient, startServer } from './sdk-process.testing.ts';

const API_KEY = 'e2e-secret-key';

/** The e2e client against `url`, writing to sdk-e2e/weave-client. */
const runE2eClient = (url: string, home: string) =>
  runClient('weave-client.cjs', home, { WF_TRACE_SERVER_URL: url, WANDB_API_KEY: API_KEY, WEAVE_PRINT_CALL_LINK: 'false', E2E_PROJECT: 'sdk-e2e/weave-client' });

test('the Weave SDK logs, queries and round-trips a dataset through tq serve', { timeout: 120_000 }, async () => {
  const home = mkdtempSync(join(tmpdir(), 'tq-sdk-'));
  const usersFile = join(home, 'users.json');
  writeFileSync(usersFile, JSON.stringify({ users: [{ name: 'api', password: API_KEY, projects: ['sdk-e2e/*'] }] }));
  const { url, proc } = await startServer(['--users', usersFile]);
  try {
    const { code, out } = await runE2eClient(url, home);
    assert.equal(code, 0, out);
    assert.match(out, /E2E OK/);
  } finally {
    proc.kill('SIGTERM');
    rmSync(home, { recursive: true, force: true });
  }
});
