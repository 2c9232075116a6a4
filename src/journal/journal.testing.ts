/**
 * Test support for the journal: everything a store answers (for "same answers before and
 * after a restart"), a random write workload, and a durable server on a directory.
 */
import fc from 'fast-check';
import { findRoute } from '../routes.ts';
import { runRoute } from '../api/run-route.ts';
import type { Engine, RequestContext } from '../api/types.ts';
import { TqError } from '../core/errors.ts';
import { openServedData } from '../cli/serve-data.ts';
import { Users } from '../server/basic-auth.ts';
import { createTqServer } from '../server/server.ts';
import { snapshot, SnapshotError } from './snapshot.ts';

const everything: RequestContext = { userId: 'tester', authorize() {}, canRead: () => true };

function ask(engine: Engine, path: string, value: unknown): string {
  try {
    const result = runRoute(findRoute(path)!, engine, { kind: 'value', value }, everything);
    if (result.kind === 'json') return JSON.stringify(result.body);
    return result.kind === 'bytes' ? Buffer.from(result.bytes).toString('base64') : [...result.lines].join('\n');
  } catch (e) {
    if (e instanceof TqError) return `${e.status} ${JSON.stringify(e.body())}`;
    throw e;
  }
}

/**
 * The answers of every query over every project (calls with costs and feedback, threads,
 * each table, each object version), then the store's full snapshot (which also holds what
 * no query shows: deletion times, price ids, files, ends waiting for their start).
 */
export function answers(engine: Engine): string {
  const out: string[] = [];
  for (const projectId of [...engine.store.projects.keys()].sort()) {
    const p = engine.store.projects.get(projectId)!;
    out.push(ask(engine, '/calls/stream_query', { project_id: projectId, include_costs: true, include_feedback: true }));
    out.push(ask(engine, '/calls/stream_query', { project_id: projectId, sort_by: [{ field: 'started_at', direction: 'desc' }], filter: { trace_roots_only: true } }));
    out.push(ask(engine, '/threads/stream_query', { project_id: projectId }));
    for (const digest of p.tables.keys()) out.push(ask(engine, '/table/query_stream', { project_id: projectId, digest }));
    for (const [objectId, versions] of p.objects) {
      for (const v of versions) out.push(ask(engine, '/obj/read', { project_id: projectId, object_id: objectId, digest: v.digest }));
      out.push(ask(engine, '/obj/read', { project_id: projectId, object_id: objectId, digest: 'latest' }));
    }
  }
  try {
    const snap = snapshot(engine.store);
    out.push(JSON.stringify(snap.lines), JSON.stringify(snap.records.map((r) => [r.route, r.body.kind === 'text' ? r.body.text : [...(r.body.kind === 'multipart' ? r.body.files.values() : [])].map((b) => Buffer.from(b).toString('base64'))])));
  } catch (e) {
    // A store fixture files cannot hold (a NaN row, renumbered versions): its queries still compare.
    if (!(e instanceof SnapshotError)) throw e;
    out.push(e.message);
  }
  return out.join('\n');
}

/** One write request of a workload: a JSON body, or a multipart file upload. */
export type WriteRequest = { path: string; body: unknown } | { path: '/file/create'; projectId: string; file: string };

const project = fc.constantFrom('acme/one', 'acme/two');
const callId = fc.constantFrom('c1', 'c2', 'c3', 'c4', 'c5');
const time = fc.integer({ min: 0, max: 5000 }).map((s) => new Date(Date.UTC(2024, 0, 1) + s * 1000).toISOString());
const small = fc.integer({ min: -3, max: 9 });

const start = fc.record({
  project_id: project,
  id: fc.option(callId, { nil: undefined }),
  trace_id: fc.option(fc.constantFrom('t1', 't2'), { nil: undefined }),
  parent_id: fc.option(callId, { nil: null }),
  thread_id: fc.option(fc.constantFrom('th1', 'th2'), { nil: null }),
  op_name: fc.constantFrom('weave:///acme/one/op/chat:abc', 'weave:///acme/one/op/tool:def'),
  started_at: time,
  attributes: fc.constant({}),
  inputs: fc.record({ n: small }),
}, { requiredKeys: ['project_id', 'op_name', 'started_at', 'attributes', 'inputs'] });

const end = fc.record({
  project_id: project,
  id: callId,
  ended_at: time,
  output: fc.record({ v: small }),
  summary: fc.record({ usage: fc.constant({ 'gpt-4o': { prompt_tokens: 10, completion_tokens: 5, requests: 1 } }) }),
  exception: fc.option(fc.constantFrom('boom'), { nil: null }),
});

/** Random writes over two projects: most succeed, some fail (unknown table, bad index, bad body). */
export const writeWorkload: fc.Arbitrary<WriteRequest[]> = fc.array(
  fc.oneof(
    start.map((s) => ({ path: '/call/start', body: { start: s } })),
    end.map((e) => ({ path: '/call/end', body: { end: e } })),
    fc.array(fc.oneof(start.map((s) => ({ mode: 'start', req: { start: s } })), end.map((e) => ({ mode: 'end', req: { end: e } }))), { minLength: 1, maxLength: 4 }).map((batch) => ({ path: '/call/upsert_batch', body: { batch } })),
    fc.record({ project_id: project, call_id: callId, display_name: fc.constantFrom('renamed', '') }).map((b) => ({ path: '/call/update', body: b })),
    fc.record({ project_id: project, call_ids: fc.array(callId, { maxLength: 2 }) }).map((b) => ({ path: '/calls/delete', body: b })),
    fc.record({ project_id: project, object_id: fc.constantFrom('o1', 'o2'), val: fc.record({ x: fc.constantFrom(0, 1, 2) }) }).map((o) => ({ path: '/obj/create', body: { obj: o } })),
    fc.record({ project_id: project, rows: fc.array(fc.record({ a: small }), { maxLength: 3 }) }).map((t) => ({ path: '/table/create', body: { table: t } })),
    fc.record({ project_id: project, base_digest: fc.constant('0'.repeat(64)), updates: fc.constant([{ pop: { index: 0 } }]) }).map((b) => ({ path: '/table/update', body: b })),
    fc.record({ project_id: project, id: callId, note: fc.constantFrom('good', 'bad', '') }).map((f) => ({
      path: '/feedback/create',
      body: { project_id: f.project_id, weave_ref: `weave:///${f.project_id}/call/${f.id}`, feedback_type: 'wandb.note.1', payload: { note: f.note } },
    })),
    fc.record({ project_id: project, cost: fc.integer({ min: 1, max: 9 }) }).map((c) => ({
      path: '/cost/create',
      body: { project_id: c.project_id, costs: { 'gpt-4o': { prompt_token_cost: c.cost / 1e6, completion_token_cost: c.cost / 1e5 } } },
    })),
    fc.record({ projectId: project, file: fc.constantFrom('hello', 'world', '') }).map((f) => ({ path: '/file/create' as const, ...f })),
    fc.constant({ path: '/call/start', body: { start: { project_id: 'not-a-project' } } }),
  ),
  { minLength: 1, maxLength: 25 },
);

export const ROOT_AUTH = 'Basic ' + Buffer.from('root:pw').toString('base64');

/** Sends one write; resolves with the status and body text. */
export async function send(base: string, req: WriteRequest): Promise<{ status: number; text: string }> {
  let init: RequestInit;
  if ('file' in req) {
    const form = new FormData();
    form.set('project_id', req.projectId);
    form.set('file', new Blob([req.file]), 'f.txt');
    init = { method: 'POST', body: form, headers: { Authorization: ROOT_AUTH } };
  } else {
    // A string body is sent as it is (JSON that JSON.stringify cannot write: big integers, 1.0).
    init = { method: 'POST', body: typeof req.body === 'string' ? req.body : JSON.stringify(req.body), headers: { Authorization: ROOT_AUTH } };
  }
  const res = await fetch(base + req.path, init);
  return { status: res.status, text: await res.text() };
}

/** `tq serve --data dir` in-process on port 0, user root:pw with a grant on everything. */
export async function durableServer(dir: string, log: (m: string) => void = () => {}, compactAtBytes?: number) {
  const data = await openServedData(dir, 'svc_', log, compactAtBytes);
  const tq = createTqServer({ engine: data.engine, routes: (await import('../routes.ts')).allRoutes(), users: new Users([{ name: 'root', password: 'pw', projects: ['*'] }]), writes: data.writes });
  const { port } = await tq.listen('127.0.0.1', 0);
  let closed = false;
  return {
    url: `http://127.0.0.1:${port}`,
    engine: data.engine,
    data,
    /** Graceful stop; safe to call again (tests close in `finally`). */
    async close() {
      if (closed) return;
      closed = true;
      await tq.close();
      await data.close();
    },
  };
}
