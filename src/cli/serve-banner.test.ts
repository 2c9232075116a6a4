import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Store } from '../store/store.ts';
import { demoEngine } from '../server/serving.testing.ts';
import { bannerLines } from './serve-banner.ts';

test('the banner: URL, a curl query on the first project with calls, the SDK lines', async () => {
  const { store } = await demoEngine();
  assert.deepEqual(bannerLines({ url: 'http://127.0.0.1:6345', user: 'api', generatedPassword: 'g3n', fieldPrefix: 'wb_', store }), [
    'tq listening on http://127.0.0.1:6345',
    '  browse:     http://127.0.0.1:6345/   (the trace viewer; sign in as api)',
    `  try:        curl -s -u 'api:g3n' http://127.0.0.1:6345/calls/stream_query -d '{"project_id":"acme/evals","sort_by":[{"field":"started_at","direction":"desc"}],"limit":3}'`,
    '  Weave SDK:',
    '    export WF_TRACE_SERVER_URL=http://127.0.0.1:6345',
    '    export WANDB_API_KEY=g3n',
    "    export WANDB_BASE_URL=http://127.0.0.1:6345   # /graphql: weave.init('project') without an entity (TypeScript: needs --tls-cert)",
  ]);
});

test('a configured password is never echoed; svc_ spelling and other users get a hint; no calls: /server_info', () => {
  const lines = bannerLines({ url: 'http://[::1]:80', user: "o'neil", fieldPrefix: 'svc_', store: new Store() });
  assert.deepEqual(lines, [
    'tq listening on http://[::1]:80',
    "  browse:     http://[::1]:80/   (the trace viewer; sign in as o'neil)",
    `  try:        curl -s -u 'o'\\''neil:<password>' http://[::1]:80/server_info`,
    '  Weave SDK (restart with --field-prefix wb_ first):',
    '    export WF_TRACE_SERVER_URL=http://[::1]:80',
    '    export WANDB_API_KEY=<password>   # the SDK signs in as user "api"',
    "    export WANDB_BASE_URL=http://[::1]:80   # /graphql: weave.init('project') without an entity (TypeScript: needs --tls-cert)",
  ]);
});

test('with --tls-cert: https, curl --cacert and NODE_EXTRA_CA_CERTS name the certificate', () => {
  const lines = bannerLines({ url: 'https://127.0.0.1:6345', user: 'api', generatedPassword: 'g3n', fieldPrefix: 'wb_', store: new Store(), tlsCert: '/tmp/my cert.pem' });
  assert.deepEqual(lines, [
    'tq listening on https://127.0.0.1:6345',
    '  browse:     https://127.0.0.1:6345/   (the trace viewer; sign in as api)',
    `  try:        curl -s --cacert '/tmp/my cert.pem' -u 'api:g3n' https://127.0.0.1:6345/server_info`,
    '  Weave SDK:',
    '    export WF_TRACE_SERVER_URL=https://127.0.0.1:6345',
    '    export WANDB_API_KEY=g3n',
    "    export WANDB_BASE_URL=https://127.0.0.1:6345   # /graphql: weave.init('project') without an entity",
    "    export NODE_EXTRA_CA_CERTS='/tmp/my cert.pem'   # Node trusts the self-signed certificate",
  ]);
});
