// The real Weave TypeScript SDK (npm `weave` 0.11.1) driving a tq server; run by
// weave-sdk.test.ts in a child process with a temporary HOME and cwd.
// Env: WF_TRACE_SERVER_URL, WANDB_API_KEY, E2E_PROJECT. Prints "E2E OK" on success.
'use strict';
const assert = require('node:assert/strict');
const weave = require('weave');

async function readJsonl(resp) {
  const text = await resp.text();
  return text.split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l));
}

async function main() {
  const project = process.env.E2E_PROJECT;
  const client = await weave.init(project, { printCallLink: false });

  // Nested ops and a failing op.
  const add = weave.op(function add(a, b) { return a + b; }, { parameterNames: ['a', 'b'] });
  const double = weave.op(function double(x) { return x * 2; });
  const pipeline = weave.op(async function pipeline(x) { return double(await add(x, 1)); });
  const boom = weave.op(function boom() { throw new Error('kaboom'); });
  assert.equal(await pipeline(3), 8);
  await assert.rejects(async () => boom(), /kaboom/);
  await client.waitForBatchProcessing();

  const calls = await client.getCalls();
  assert.equal(calls.length, 4, 'four calls logged');
  const byOp = (name) => calls.find((c) => c.op_name.includes(`/op/${name}:`));
  const root = byOp('pipeline');
  assert.equal(root.parent_id ?? null, null);
  assert.equal(root.output, 8);
  for (const child of [byOp('add'), byOp('double')]) {
    assert.equal(child.trace_id, root.trace_id);
    assert.equal(child.parent_id, root.id);
  }
  assert.deepEqual(byOp('add').inputs, { a: 3, b: 1 });
  assert.equal(byOp('boom').exception, 'kaboom');
  assert.ok(byOp('boom').ended_at, 'the failed call has ended');
  // Default order: started_at ascending.
  const starts = calls.map((c) => Date.parse(c.started_at));
  assert.deepEqual(starts, [...starts].sort((a, b) => a - b));

  assert.equal((await client.getCalls({ trace_roots_only: true })).length, 2);
  assert.equal((await client.getCalls({ parent_ids: [root.id] })).length, 2);
  const one = await client.getCall(root.id);
  assert.equal(one.id, root.id);

  // A raw stream query with $contains and sort_by, through the generated client.
  const resp = await client.traceServerApi.calls.callsQueryStreamCallsStreamQueryPost({
    project_id: project,
    sort_by: [{ field: 'started_at', direction: 'desc' }],
    query: { $expr: { $contains: { input: { $getField: 'op_name' }, substr: { $literal: '/op/add:' } } } },
    limit: 10,
  });
  const rows = await readJsonl(resp);
  assert.equal(rows.length, 1);
  assert.equal(rows[0].output, 4);
  assert.equal(rows[0].summary.weave.status, 'success');

  // Dataset round trip: save, load, rows in order.
  const dataRows = [{ q: 'first', n: 1 }, { q: 'second', n: 2.5 }, { q: 'third', n: { deep: [1, 2] } }];
  // The SDK annotates the rows it is given (__savedRef), so it gets copies.
  const ref = await new weave.Dataset({ name: 'e2e dataset', rows: structuredClone(dataRows) }).save();
  const loaded = await ref.get();
  const back = [];
  for await (const row of loaded) back.push({ q: row.q, n: row.n });
  assert.deepEqual(back, dataRows);

  // The dataset's table through /table/query_stream, via the SDK's HTTP machinery.
  const objResp = await client.traceServerApi.obj.objReadObjReadPost({ project_id: project, object_id: ref.objectId, digest: ref.digest });
  const tableRef = objResp.data.obj.val.rows;
  const tableDigest = tableRef.slice(tableRef.lastIndexOf('/') + 1);
  const streamResp = await client.traceServerApi.request({
    path: '/table/query_stream', method: 'POST', type: 'application/json',
    body: { project_id: project, digest: tableDigest },
  });
  const tableRows = await readJsonl(streamResp);
  assert.deepEqual(tableRows.map((r) => r.val), dataRows);
  assert.deepEqual(tableRows.map((r) => r.original_index), [0, 1, 2]);

  // Counts: /calls/query_stats agrees with getCalls.
  const api = client.traceServerApi;
  const count = async (filter) => (await api.calls.callsQueryStatsCallsQueryStatsPost({ project_id: project, filter })).data.count;
  assert.equal(await count({}), calls.length);
  assert.equal(await count({ trace_roots_only: true }), 2);
  assert.equal((await api.call.callReadCallReadPost({ project_id: project, id: root.id })).data.call.output, 8);

  // Object refs: the dataset's ref and a path into it, read back through /refs/read_batch.
  const vals = (await api.refs.refsReadBatchRefsReadBatchPost({ refs: [ref.uri(), `${ref.uri()}/attr/rows`, `${ref.uri()}/attr/nope`] })).data.vals;
  assert.equal(vals[0].rows, tableRef);
  assert.deepEqual(vals.slice(1), [tableRef, null]);

  // Dataset length: the table's row count, one table at a time and in a batch.
  assert.equal((await api.table.tableQueryStatsTableQueryStatsPost({ project_id: project, digest: tableDigest })).data.count, dataRows.length);
  const batch = await api.request({
    path: '/table/query_stats_batch', method: 'POST', type: 'application/json', format: 'json',
    body: { project_id: project, digests: [tableDigest] },
  });
  assert.deepEqual(batch.data.tables.map((t) => t.count), [dataRows.length]);

  // Objects: the ops and the dataset the SDK saved; an op's source file read back by digest.
  const objs = (await api.objs.objsQueryObjsQueryPost({ project_id: project, filter: { latest_only: true } })).data.objs;
  assert.deepEqual(objs.filter((o) => o.kind === 'op').map((o) => o.object_id).sort(), ['add', 'boom', 'double', 'pipeline']);
  assert.deepEqual(objs.filter((o) => o.base_object_class === 'Dataset').map((o) => o.digest), [ref.digest]);
  const addOp = objs.find((o) => o.object_id === 'add');
  const file = await api.request({
    path: '/file/content', method: 'POST', type: 'application/json',
    body: { project_id: project, digest: addOp.val.files['obj.py'] },
  });
  assert.match(await file.text(), /a \+ b/);
  console.log('E2E OK');
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e instanceof Error ? e.stack : e);
    process.exit(1);
  },
);
