/**
 * The longest event-loop gap one max-size request causes, per heavy write route (issue 22 §4):
 * the server runs in this process with a 5 ms timer recording every gap; a child process sends
 * one body of just under 32 MiB (the default --max-body-bytes) to each route in turn and
 * reports when each was sent and answered. For each route: the answer, the request's wall time,
 * the longest loop gap inside it, and the CPU time meanwhile of the whole process and of the
 * event loop's thread alone (a worker thread's is the difference; a loaded machine stretches
 * a gap's wall time, not its CPU time).
 * Not a test: run it by hand (from this tree, or another checkout of tq to compare).
 *
 *   node --import tsx bench/request-gap.ts [route …]
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { allRoutes, findRoute } from '../src/routes.ts';
import { runRoute } from '../src/api/run-route.ts';
import { createEngine } from '../src/engine.ts';
import { Users } from '../src/server/basic-auth.ts';
import { createTqServer } from '../src/server/server.ts';
import { encodeOtlpJsonAsProtobuf } from '../src/otel/model.ts';

const MAX = 32 * 1024 * 1024 - 4096;
const P = 'bench/gap';
const FILLER = 'x'.repeat(900);

function listBody(head: string, tail: string, item: (i: number) => string): string {
  const items: string[] = [];
  let size = head.length + tail.length;
  for (let i = 0; ; i++) {
    const text = item(i);
    if (size + text.length + 1 > MAX) break;
    items.push(text);
    size += text.length + 1;
  }
  return head + items.join(',') + tail;
}

const start = (i: number) => ({ project_id: P, id: `c${i}`, trace_id: `t${i % 100}`, op_name: 'op', started_at: '2026-01-01T00:00:00Z', attributes: {}, inputs: { i, text: FILLER } });

const engine = createEngine();
const ctx = { userId: 'api', authorize() {}, canRead: () => true };
const empty = runRoute(findRoute('/table/create')!, engine, { kind: 'text', text: `{"table":{"project_id":"${P}","rows":[]}}` }, ctx);
const baseDigest = (empty as { body: { digest: string } }).body.digest;

/** Each route's body and content type. */
const BODIES: Record<string, () => { body: Buffer; type: string }> = {
  '/table/create': () => json(listBody(`{"table":{"project_id":"${P}","rows":[`, ']}}', (i) => JSON.stringify({ i, text: FILLER }))),
  '/table/update': () => json(listBody(`{"project_id":"${P}","base_digest":"${baseDigest}","updates":[`, ']}', (i) => JSON.stringify({ append: { row: { i, text: FILLER } } }))),
  '/call/upsert_batch': () => json(listBody('{"batch":[', ']}', (i) => JSON.stringify({ mode: 'start', req: { start: start(i) } }))),
  '/v2/bench/gap/calls/complete': () => json(listBody('{"batch":[', ']}', (i) => JSON.stringify({ ...start(i), id: `k${i}`, ended_at: '2026-01-01T00:00:01Z', output: i, summary: {} }))),
  // One call whose inputs hold the whole body (the key `inputs` comes last in start()).
  '/call/start': () => json(listBody(`{"start":${JSON.stringify({ ...start(0), id: 'big', inputs: {} }).slice(0, -3)}{"list":[`, ']}}}', (i) => JSON.stringify({ i, text: FILLER }))),
  // One end whose output holds the whole body (no start: it waits for its start, stored whole).
  '/call/end': () => json(listBody(`{"end":{"project_id":"${P}","id":"big","ended_at":"2026-01-01T00:00:01Z","summary":{},"output":{"list":[`, ']}}}', (i) => JSON.stringify({ i, text: FILLER }))),
  '/obj/create': () => json(listBody(`{"obj":{"project_id":"${P}","object_id":"o","val":{"list":[`, ']}}}', (i) => JSON.stringify({ i, text: FILLER }))),
  '/feedback/batch/create': () => json(listBody('{"batch":[', ']}', (i) => JSON.stringify({ project_id: P, weave_ref: `weave:///${P}/call/c${i}`, feedback_type: 'note', payload: { note: FILLER } }))),
  '/file/create': () => {
    const boundary = 'benchboundary';
    const head = `--${boundary}\r\nContent-Disposition: form-data; name="project_id"\r\n\r\n${P}\r\n--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="f.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`;
    const tail = `\r\n--${boundary}--\r\n`;
    return { body: Buffer.concat([Buffer.from(head), Buffer.alloc(MAX - head.length - tail.length, 'y'), Buffer.from(tail)]), type: `multipart/form-data; boundary=${boundary}` };
  },
  '/otel/v1/traces': () => {
    const attr = (key: string, stringValue: string) => ({ key, value: { stringValue } });
    const spans = Array.from({ length: 30_000 }, (_, i) => ({
      traceId: '0af7651916cd43dd8448eb211c80319c',
      spanId: (i + 1).toString(16).padStart(16, '0'),
      name: 'op',
      kind: 1,
      startTimeUnixNano: '1714564800000000000',
      endTimeUnixNano: '1714564801000000000',
      attributes: [attr('input.value', FILLER)],
    }));
    const otlp = { resourceSpans: [{ resource: { attributes: [attr('wandb.entity', 'bench'), attr('wandb.project', 'gap')] }, scopeSpans: [{ scope: { name: 'bench' }, spans }] }] };
    return { body: Buffer.from(encodeOtlpJsonAsProtobuf(otlp)), type: 'application/x-protobuf' };
  },
};
const json = (text: string) => ({ body: Buffer.from(text), type: 'application/json' });

const chosen = process.argv.slice(2).length > 0 ? process.argv.slice(2) : Object.keys(BODIES);
const dir = mkdtempSync(join(tmpdir(), 'tq-gap-'));
const files = chosen.map((path, i) => {
  const { body, type } = BODIES[path]();
  const file = join(dir, `${i}.body`);
  writeFileSync(file, body);
  return { path, file, type, bytes: body.length };
});

const srv = createTqServer({ engine, routes: allRoutes(), users: new Users([{ name: 'api', password: 'pw', projects: ['*'] }]) });
const { port } = await srv.listen('127.0.0.1', 0);

/**
 * CPU time of the event loop's thread alone (ms; Linux: /proc/self/task/PID/stat, 10 ms ticks),
 * which a loaded machine does not stretch the way it stretches a gap's wall time.
 */
const loopThreadCpuMs = () => {
  const fields = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
};
// Every gap over 20 ms, with its end time (epoch ms, comparable across processes) and the
// event-loop thread's CPU time inside it (the gap's own work, whatever the machine's load).
const gaps: Array<{ end: number; ms: number; cpu: number }> = [];
let last = performance.now();
let lastCpu = loopThreadCpuMs();
setInterval(() => {
  const now = performance.now();
  const cpu = loopThreadCpuMs();
  if (now - last > 20) gaps.push({ end: performance.timeOrigin + now, ms: now - last, cpu: cpu - lastCpu });
  last = now;
  lastCpu = cpu;
}, 5);
const cpuMarks: Array<{ at: number; cpu: number; loopCpu: number }> = [];
setInterval(() => cpuMarks.push({ at: performance.timeOrigin + performance.now(), cpu: (process.cpuUsage().user + process.cpuUsage().system) / 1000, loopCpu: loopThreadCpuMs() }), 100);

const CLIENT = `
const { request } = require('node:http');
const { readFileSync } = require('node:fs');
const [port, jobs] = [process.argv[1], JSON.parse(process.argv[2])];
const auth = 'Basic ' + Buffer.from('api:pw').toString('base64');
const send = (path, body, type) => new Promise((resolve) => {
  const req = request({ host: '127.0.0.1', port, method: body ? 'POST' : 'GET', path, agent: false, headers: body ? { Authorization: auth, 'Content-Type': type, 'Content-Length': body.length } : {} }, (res) => {
    let text = '';
    res.on('data', (d) => (text.length < 200 ? (text += d) : undefined));
    res.on('end', () => resolve(res.statusCode + ' ' + text.slice(0, 60)));
  });
  req.on('error', (e) => resolve('error ' + e.message));
  req.end(body);
});
(async () => {
  const out = [];
  for (const job of jobs) {
    const body = readFileSync(job.file);
    const sent = performance.timeOrigin + performance.now();
    const answer = await send(job.path, body, job.type);
    out.push({ path: job.path, sent, answered: performance.timeOrigin + performance.now(), answer });
    await new Promise((r) => setTimeout(r, 300));
  }
  process.stdout.write(JSON.stringify(out));
})();
`;
const child = spawn(process.execPath, ['-e', CLIENT, String(port), JSON.stringify(files)], { stdio: ['ignore', 'pipe', 'inherit'] });
let out = '';
child.stdout!.on('data', (d: Buffer) => (out += d));
await new Promise((r) => child.on('exit', r));
const results = JSON.parse(out) as Array<{ path: string; sent: number; answered: number; answer: string }>;
const markAt = (t: number) => cpuMarks.find((m) => m.at >= t) ?? cpuMarks[cpuMarks.length - 1];
for (const r of results) {
  const inside = gaps.filter((g) => g.end > r.sent && g.end - g.ms < r.answered);
  const longestGap = inside.reduce((a, g) => (g.ms > a.ms ? g : a), { end: 0, ms: 0, cpu: 0 });
  const longest = longestGap.ms;
  const mib = (files.find((f) => f.path === r.path)!.bytes / 2 ** 20).toFixed(1);
  console.log(
    `${r.path.padEnd(30)} ${mib} MiB  answer ${r.answer.slice(0, 24).padEnd(24)}  wall ${(r.answered - r.sent).toFixed(0).padStart(6)} ms  longest loop gap ${longest.toFixed(0).padStart(5)} ms (loop CPU in it ${longestGap.cpu} ms)  gaps>200ms ${inside.filter((g) => g.ms > 200).length}  cpu: process ${(markAt(r.answered).cpu - markAt(r.sent).cpu).toFixed(0)} ms, event-loop thread ${markAt(r.answered).loopCpu - markAt(r.sent).loopCpu} ms`,
  );
}
rmSync(dir, { recursive: true, force: true });
await srv.close();
process.exit(0);
