// The real Weave TypeScript SDK (npm `weave` 0.11.1) as its quick start uses it: weave.init with
// a project name and no entity, so the SDK first asks WANDB_BASE_URL/graphql for the viewer's
// default entity (over https: its URL helper forces it), then traces to WANDB_BASE_URL/traces.
// Run by weave-init-tls.test.ts with WANDB_BASE_URL, WANDB_API_KEY and NODE_EXTRA_CA_CERTS set
// and WF_TRACE_SERVER_URL unset. Prints "INIT OK <project id>" on success.
'use strict';
const assert = require('node:assert/strict');
const weave = require('weave');

async function main() {
  const client = await weave.init('just-a-project', { printCallLink: false });
  const shout = weave.op(function shout(text) { return text.toUpperCase(); });
  const twice = weave.op(async function twice(text) { return (await shout(text)) + (await shout(text)); });
  assert.equal(await twice('hi'), 'HIHI');
  await client.waitForBatchProcessing();

  const calls = await client.getCalls();
  assert.equal(calls.length, 3, 'three calls logged');
  const root = calls.find((c) => c.op_name.includes('/op/twice:'));
  assert.equal(root.output, 'HIHI');
  assert.deepEqual(calls.filter((c) => c.parent_id === root.id).map((c) => c.output), ['HI', 'HI']);
  // The project the calls went to: the default entity the server reported, and the name given.
  const projectId = root.project_id;
  assert.equal((await client.traceServerApi.call.callReadCallReadPost({ project_id: projectId, id: root.id })).data.call.output, 'HIHI');
  console.log(`INIT OK ${projectId}`);
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e instanceof Error ? e.stack : e);
    process.exit(1);
  },
);
