/**
 * A large write prepared off the event loop (src/server/off-loop.ts) and small writes that
 * arrive while it is prepared: the small ones are acknowledged first, and the journal holds
 * the writes in the order the store took them, so a restart rebuilds the same store.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { answers, durableServer, send } from './journal.testing.ts';
import { tempDir } from '../io/temp-dir.testing.ts';
import { otlpExport, protobufOf } from '../otel/otlp.testing.ts';

const P = 'acme/one';

type Answer = { status: number; text: string };
type DurableServer = Awaited<ReturnType<typeof durableServer>>;
/** An answer with the moment it arrived. */
const timed = (answer: Promise<Answer>) => answer.then((r) => ({ ...r, at: performance.now() }));

/**
 * The large write and every small one answered 200, a small one before the large one, and
 * the server restarted from its journal answers as before. Returns the restarted server.
 */
async function assertAcknowledgedAndReplayed(server: DurableServer, dir: string, big: Answer & { at: number }, small: Array<Answer & { at: number }>): Promise<DurableServer> {
  assert.equal(big.status, 200, big.text.slice(0, 200));
  for (const a of small) assert.equal(a.status, 200, a.text);
  assert.ok(small.some((a) => a.at < big.at), 'a small write was acknowledged while the large one was prepared');
  const before = answers(server.engine);
  await server.close();
  const restarted = await durableServer(dir);
  assert.equal(answers(restarted.engine), before);
  return restarted;
}

test('small writes acknowledged during a large prepared write replay to the same store', async () => {
  const dir = tempDir('tq-offloop-');
  let server = await durableServer(dir);
  try {
    // About 4 MiB of rows, the first few also written by the small writes below.
    const rows = Array.from({ length: 4000 }, (_, i) => ({ i: i % 2000, text: 'y'.repeat(1000) }));
    const big = timed(send(server.url, { path: '/table/create', body: { table: { project_id: P, rows } } }));
    const small: Array<Promise<Answer & { at: number }>> = [];
    for (let i = 0; i < 5; i++) {
      small.push(timed(send(server.url, { path: '/table/create', body: { table: { project_id: P, rows: [rows[i], { small: i }] } } })));
      small.push(timed(send(server.url, { path: '/obj/create', body: { obj: { project_id: P, object_id: 'o', val: { i } } } })));
      await new Promise((r) => setTimeout(r, 5));
    }
    server = await assertAcknowledgedAndReplayed(server, dir, await big, await Promise.all(small));
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('call and object writes prepared off the event loop, ids drawn in the store step, replay to the same store', async () => {
  const dir = tempDir('tq-offloop-calls-');
  let server = await durableServer(dir);
  try {
    // About 4 MiB of calls, one in three without ids (drawn when stored, journaled with the write).
    const batch = Array.from({ length: 4000 }, (_, i) => ({
      mode: 'start',
      req: { start: { project_id: P, ...(i % 3 ? { id: `c${i}`, trace_id: `t${i % 10}` } : {}), op_name: 'op', started_at: '2024-01-01T00:00:00Z', attributes: {}, inputs: { i, text: 'y'.repeat(1000) } } },
    }));
    const big = timed(send(server.url, { path: '/call/upsert_batch', body: { batch } }));
    const bigObject = send(server.url, { path: '/obj/create', body: { obj: { project_id: P, object_id: 'big', val: { rows: batch } } } });
    const small: Array<Promise<Answer & { at: number }>> = [];
    for (let i = 0; i < 5; i++) {
      // Ends of calls in the big batch (the first may arrive before their start), and new starts.
      small.push(timed(send(server.url, { path: '/call/end', body: { end: { project_id: P, id: `c${3 * i + 1}`, ended_at: '2024-01-01T00:00:01Z', output: i, summary: {} } } })));
      small.push(timed(send(server.url, { path: '/call/start', body: { start: { project_id: P, op_name: 'small', started_at: '2024-01-01T00:00:00Z', attributes: {}, inputs: { i } } } })));
      await new Promise((r) => setTimeout(r, 5));
    }
    const bigAnswer = await big;
    assert.equal((await bigObject).status, 200);
    server = await assertAcknowledgedAndReplayed(server, dir, bigAnswer, await Promise.all(small));
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('an OTLP export prepared off the event loop (gzip, op objects created in the store step) replays to the same store', async () => {
  const dir = tempDir('tq-offloop-otel-');
  let server = await durableServer(dir);
  try {
    // About 2 MiB gzipped: 4000 spans of incompressible inputs, three op names (placeholder ops drawn at store time).
    const spans = Array.from({ length: 4000 }, (_, i) => ({ id: (0x100 + i).toString(16).padStart(16, '0'), name: `step ${i % 3}`, attrs: { 'input.value': randomBytes(400).toString('base64') } }));
    const body = gzipSync(protobufOf(otlpExport([{ 'wandb.entity': 'acme', 'wandb.project': 'otel' }, spans])));
    assert.ok(body.length > 1024 * 1024);
    const headers = { Authorization: 'Basic ' + Buffer.from('root:pw').toString('base64'), 'Content-Type': 'application/x-protobuf', 'Content-Encoding': 'gzip' };
    const big = timed(fetch(server.url + '/otel/v1/traces', { method: 'POST', headers, body }).then(async (r) => ({ status: r.status, text: await r.text() })));
    const small: Array<Promise<Answer & { at: number }>> = [];
    for (let i = 0; i < 5; i++) {
      // An op of one of the export's names, created while the export is prepared: the export's calls refer to it.
      small.push(timed(send(server.url, { path: '/obj/create', body: { obj: { project_id: 'acme/otel', object_id: `step_${i % 3}`, val: { _type: 'CustomWeaveType', weave_type: { type: 'Op' }, i } } } })));
      await new Promise((r) => setTimeout(r, 5));
    }
    server = await assertAcknowledgedAndReplayed(server, dir, await big, await Promise.all(small));
    assert.equal(server.engine.store.project('acme/otel')!.calls.size, 4000);
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('feedback prepared off the event loop, ids and times drawn in the store step, replays to the same store, spellings kept', async () => {
  const dir = tempDir('tq-offloop-feedback-');
  let server = await durableServer(dir);
  try {
    // About 4 MiB of feedback: one in three without an id, reactions, payloads spelling 1.0 and big integers.
    const items = Array.from({ length: 4000 }, (_, i) =>
      JSON.stringify({
        project_id: P,
        weave_ref: `weave:///${P}/call/c${i % 50}`,
        ...(i % 3 ? { id: `f${i}` } : {}),
        ...(i % 4 === 0 ? { feedback_type: 'wandb.reaction.1', payload: { emoji: '👍🏽', text: 'y'.repeat(1000) } } : { feedback_type: 'score', payload: { i, f: '@F', big: '@BIG', text: 'y'.repeat(1000) } }),
      }),
    );
    const body = `{"batch":[${items.join(',')}]}`.replaceAll('"@F"', '1.0').replaceAll('"@BIG"', '12345678901234567890123');
    const big = timed(send(server.url, { path: '/feedback/batch/create', body }));
    const small: Array<Promise<Answer & { at: number }>> = [];
    for (let i = 0; i < 5; i++) {
      small.push(timed(send(server.url, { path: '/feedback/create', body: `{"project_id":"${P}","weave_ref":"weave:///${P}/call/c${i}","feedback_type":"score","payload":{"small":${i}.0}}` })));
      small.push(timed(send(server.url, { path: '/call/start', body: { start: { project_id: P, id: `c${i}`, op_name: 'small', started_at: '2024-01-01T00:00:00Z', attributes: {}, inputs: { i } } } })));
      await new Promise((r) => setTimeout(r, 5));
    }
    const bigAnswer = await big;
    assert.match(bigAnswer.text, /"payload":\{"i":1,"f":1\.0,"big":12345678901234567890123,/);
    server = await assertAcknowledgedAndReplayed(server, dir, bigAnswer, await Promise.all(small));
    assert.equal(server.engine.store.project(P)!.feedback.length, 4005);
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
