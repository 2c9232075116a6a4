/**
 * End-to-end: the official Weave TypeScript SDK's quick start, `weave.init('just-a-project')`
 * with no entity, against `tq serve --tls-cert --tls-key` with only WANDB_BASE_URL pointing at
 * it (no WF_TRACE_SERVER_URL): the SDK asks /graphql for the default entity over https, trusting
 * the self-signed certificate through NODE_EXTRA_CA_CERTS, then logs and reads calls through
 * /traces/... (docs/local-weave-server.md).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeTestCert } from '../../src/server/tls.testing.ts';
import { runClient, startServer } from './sdk-process.testing.ts';

const API_KEY = 'init-secret-key';

/** The init client with the key and `env` (the base URL, the CA file). */
const runInitClient = (env: NodeJS.ProcessEnv, home: string) => runClient('weave-init-client.cjs', home, { WANDB_API_KEY: API_KEY, WEAVE_PRINT_CALL_LINK: 'false', ...env });

test("weave.init('just-a-project') over https: /graphql names the entity, calls go to <entity>/just-a-project", { timeout: 120_000 }, async () => {
  const home = mkdtempSync(join(tmpdir(), 'tq-sdk-init-'));
  const cert = makeTestCert();
  const usersFile = join(home, 'users.json');
  writeFileSync(usersFile, JSON.stringify({ users: [{ name: 'api', password: API_KEY, projects: ['sdk-tls/*'] }] }));
  const { url, proc } = await startServer(['--users', usersFile, '--entity', 'sdk-tls', '--field-prefix', 'wb_', '--tls-cert', cert.certFile, '--tls-key', cert.keyFile]);
  try {
    const { code, out } = await runInitClient({ WANDB_BASE_URL: url, NODE_EXTRA_CA_CERTS: cert.certFile }, home);
    assert.equal(code, 0, out);
    assert.match(out, /INIT OK sdk-tls\/just-a-project\n/);
    // Without the certificate the SDK refuses the server: TLS is really on.
    const untrusted = await runInitClient({ WANDB_BASE_URL: url }, home);
    assert.notEqual(untrusted.code, 0);
    assert.match(untrusted.out, /self[- ]signed certificate|unable to verify|UNABLE_TO_VERIFY|DEPTH_ZERO_SELF_SIGNED/i);
  } finally {
    proc.kill('SIGTERM');
    rmSync(home, { recursive: true, force: true });
    rmSync(cert.dir, { recursive: true, force: true });
  }
});
