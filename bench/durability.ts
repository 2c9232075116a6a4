/**
 * What durability costs (docs/durability.md):
 *  1. acknowledged writes/s (`/call/start`, ~300-byte bodies) with 1 and 8 concurrent writers,
 *     in memory and with --data (journal + group-commit fsync); the client shares the server's
 *     process, so these are lower bounds;
 *  2. restart time for N journaled calls (a journal of N `/call/start` records replayed), and
 *     the same data after `tq dump` compaction (loaded as fixtures).
 *
 *   node --import tsx bench/durability.ts [--calls 1000000] [--seconds 3] [--dir /tmp/tq-bench-durability]
 */
import { mkdirSync, rmSync, statSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { allRoutes, findRoute } from '../src/routes.ts';
import { openServedData } from '../src/cli/serve-data.ts';
import { createEngine } from '../src/engine.ts';
import { runRecorded } from '../src/journal/apply.ts';
import { compactInPlace } from '../src/journal/compact.ts';
import { openDataDir, segmentName } from '../src/journal/data-dir.ts';
import { encodeRecord } from '../src/journal/record.ts';
import { Users } from '../src/server/basic-auth.ts';
import { createTqServer } from '../src/server/server.ts';

const { values } = parseArgs({ options: { calls: { type: 'string', default: '1000000' }, seconds: { type: 'string', default: '3' }, dir: { type: 'string', default: '/tmp/tq-bench-durability' } } });
const CALLS = Number(values.calls);
const SECONDS = Number(values.seconds);
const ROOT = values.dir!;
const AUTH = 'Basic ' + Buffer.from('bench:pw').toString('base64');

const startBody = (id: string, i: number) =>
  JSON.stringify({
    start: {
      project_id: 'bench/durability',
      id,
      trace_id: `trace-${i >> 4}`,
      op_name: 'weave:///bench/durability/op/chat_turn:Xb3y',
      started_at: '2024-05-01T12:00:00Z',
      attributes: { weave: { client_version: '0.11.1' } },
      inputs: { question: `question number ${i}`, n: i },
    },
  });

async function writesPerSecond(writers: number, durable: boolean, seconds = SECONDS): Promise<{ perSecond: number; fsyncs: number | null }> {
  const dir = join(ROOT, `writes-${writers}-${durable}`);
  rmSync(dir, { recursive: true, force: true });
  const data = durable ? await openServedData(dir, 'svc_', () => {}) : null;
  const engine = data?.engine ?? createEngine();
  const tq = createTqServer({ engine, routes: allRoutes(), users: new Users([{ name: 'bench', password: 'pw', projects: ['*'] }]), writes: data?.writes });
  const { port } = await tq.listen('127.0.0.1', 0);
  const url = `http://127.0.0.1:${port}/call/start`;
  const deadline = performance.now() + seconds * 1000;
  let acked = 0;
  const agent = new Agent({ keepAlive: true, maxSockets: writers });
  const post = (body: string) =>
    new Promise<number>((resolve, reject) => {
      const req = request(url, { method: 'POST', agent, headers: { Authorization: AUTH, 'Content-Length': Buffer.byteLength(body) } }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.on('error', reject);
      req.end(body);
    });
  const writer = async (w: number) => {
    for (let i = 0; performance.now() < deadline; i++) {
      const status = await post(startBody(`w${w}-${i}`, i));
      if (status !== 200) throw new Error(`write answered ${status}`);
      acked++;
    }
  };
  const t0 = performance.now();
  await Promise.all(Array.from({ length: writers }, (_, w) => writer(w)));
  const elapsed = (performance.now() - t0) / 1000;
  const fsyncs = data ? data.writes.fsyncs : null;
  agent.destroy();
  await tq.close();
  await data?.close();
  return { perSecond: Math.round(acked / elapsed), fsyncs: fsyncs === null ? null : Math.round(fsyncs / elapsed) };
}

/** A journal of `n` call starts, written as the server writes them (records, not HTTP). */
async function writeJournal(dir: string, n: number): Promise<number> {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const route = findRoute('/call/start')!;
  const scratch = createEngine();
  const ctx = { userId: 'bench', authorize() {}, canRead: () => true };
  const file = join(dir, segmentName(1));
  const handle = await open(file, 'w');
  let chunk: string[] = [];
  for (let i = 0; i < n; i++) {
    chunk.push(encodeRecord(runRecorded(route, scratch, { kind: 'text', text: startBody(`call-${i}`, i) }, ctx).record));
    if (chunk.length === 10_000) {
      await handle.write(chunk.join('\n') + '\n');
      chunk = [];
      // The scratch engine only produces records; keep its memory flat.
      scratch.store.projects.clear();
    }
  }
  if (chunk.length > 0) await handle.write(chunk.join('\n') + '\n');
  await handle.close();
  return statSync(file).size;
}

async function restart(dir: string): Promise<{ ms: number; calls: number; replayed: number }> {
  const t0 = performance.now();
  const opened = await openDataDir(dir, { fieldPrefix: 'svc_', writable: true, say: () => {} });
  const ms = performance.now() - t0;
  opened.release();
  return { ms: Math.round(ms), calls: opened.engine.store.counts().calls, replayed: opened.replayed };
}

console.log(`# acknowledged /call/start writes per second (${SECONDS} s each, client in the same process)`);
console.log('| writers | in memory | --data | --data fsyncs/s |');
console.log('|---:|---:|---:|---:|');
await writesPerSecond(8, false, 1); // warm-up (JIT), not reported
for (const writers of [1, 8]) {
  const mem = await writesPerSecond(writers, false);
  const durable = await writesPerSecond(writers, true);
  console.log(`| ${writers} | ${mem.perSecond} | ${durable.perSecond} | ${durable.fsyncs} |`);
}

const dir = join(ROOT, 'restart');
const bytes = await writeJournal(dir, CALLS);
const replay = await restart(dir);
console.log(`\n# restart with ${CALLS} journaled calls (${(bytes / 1e6).toFixed(0)} MB journal)`);
console.log(`replay: ${replay.ms} ms (${replay.replayed} records, ${replay.calls} calls, ${Math.round(replay.replayed / (replay.ms / 1000))} records/s)`);
{
  const opened = await openDataDir(dir, { fieldPrefix: 'svc_', writable: true, say: () => {} });
  const t0 = performance.now();
  await compactInPlace(opened.engine, dir, opened.active.seq);
  console.log(`tq dump (compaction, with its reload check): ${Math.round(performance.now() - t0)} ms`);
  opened.release();
}
const compacted = await restart(dir);
console.log(`restart after compaction (fixtures): ${compacted.ms} ms (${compacted.calls} calls)`);
rmSync(ROOT, { recursive: true, force: true });
