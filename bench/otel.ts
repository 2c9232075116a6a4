/**
 * OpenTelemetry ingest throughput (docs/otel.md, a benchmark, not a test): spans/s through
 * `POST /otel/v1/traces` (OTLP protobuf over HTTP) and from an `otel-traces.jsonl` fixture file,
 * each as a ratio to tq's own `/call/upsert_batch` carrying the same calls (the starts and ends
 * the conversion produced, as JSON). The three stores are checked to answer the same calls.
 *
 *   node --import tsx bench/otel.ts [--spans 100000] [--batch 500] [--concurrency 4] [--runs 3]
 *
 * Spans: traces of five (an OpenInference agent root, two GenAI chat children with usage, a
 * tool, an error span), about 1 KB of attributes each, as an instrumented LLM app sends them.
 * Server and client share one process (as in bench/durability.ts), so HTTP figures are lower
 * bounds for a separate client.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { allRoutes } from '../src/routes.ts';
import { createEngine } from '../src/engine.ts';
import type { Engine } from '../src/api/types.ts';
import { formatMicros } from '../src/core/datetime.ts';
import { stringifyExact } from '../src/core/json/exact.ts';
import { loadFixtures } from '../src/io/load-fixtures.ts';
import { Users } from '../src/server/basic-auth.ts';
import { createTqServer, type TqServer } from '../src/server/server.ts';
import { planExport } from '../src/otel/export.ts';
import { opNamesOf, storeOpObjects } from '../src/otel/op-objects.ts';
import { encodeOtlpJsonAsProtobuf, fromOtlpJson } from '../src/otel/model.ts';
import { median } from './stats.ts';

const { values } = parseArgs({
  options: { spans: { type: 'string', default: '100000' }, batch: { type: 'string', default: '500' }, concurrency: { type: 'string', default: '4' }, runs: { type: 'string', default: '3' } },
});
const SPANS = Number(values.spans);
const BATCH = Number(values.batch);
const CONCURRENCY = Number(values.concurrency);
const RUNS = Number(values.runs);
const PROJECT = 'bench/otel';
const AUTH = 'Basic ' + Buffer.from('bench:pw').toString('base64');

const s = (key: string, v: string) => ({ key, value: { stringValue: v } });
const i = (key: string, v: number) => ({ key, value: { intValue: String(v) } });
const d = (key: string, v: number) => ({ key, value: { doubleValue: v } });
const hex = (n: number, width: number) => n.toString(16).padStart(width, '0');
const T0 = 1714564800000000000n;

/** Span `n` of the data set (five per trace). */
function span(n: number) {
  const t = Math.floor(n / 5), k = n % 5;
  const root = hex(t * 5 + 1, 16);
  const start = T0 + BigInt(n) * 1_000_000n;
  const base = { traceId: hex(t + 1, 32), spanId: hex(n + 1, 16), kind: 1, startTimeUnixNano: String(start), endTimeUnixNano: String(start + 850_000_000n + BigInt(k) * 1_000_000n) };
  const question = `What is the status of order ${t}? Please include the shipping carrier and the expected delivery date.`;
  if (k === 0) {
    return { ...base, name: 'agent.run', attributes: [s('openinference.span.kind', 'AGENT'), s('input.value', JSON.stringify({ question, user: `u${t % 97}` })), s('output.value', `Order ${t} ships tomorrow with DHL.`), s('wandb.thread_id', `thread-${t % 50}`), { key: 'wandb.is_turn', value: { boolValue: true } }] };
  }
  if (k === 1 || k === 2) {
    return {
      ...base,
      parentSpanId: root,
      name: 'chat gpt-4o',
      attributes: [
        s('gen_ai.system', 'openai'), s('gen_ai.request.model', 'gpt-4o'), d('gen_ai.request.temperature', 0.2), s('gen_ai.response.model', 'gpt-4o-2024-08-06'),
        s('gen_ai.prompt.0.role', 'system'), s('gen_ai.prompt.0.content', 'You are a helpful support agent for an online shop.'),
        s('gen_ai.prompt.1.role', 'user'), s('gen_ai.prompt.1.content', question),
        s('gen_ai.completion.0.role', 'assistant'), s('gen_ai.completion.0.content', `Order ${t} is packed and ships tomorrow.`),
        i('gen_ai.usage.prompt_tokens', 120 + (t % 40)), i('gen_ai.usage.completion_tokens', 30 + (t % 7)),
      ],
    };
  }
  if (k === 3) return { ...base, parentSpanId: root, name: 'tool.lookup_order', attributes: [s('openinference.span.kind', 'TOOL'), s('input.value', JSON.stringify({ order_id: t })), s('output.value', JSON.stringify({ status: 'packed', carrier: 'DHL' }))] };
  return { ...base, parentSpanId: root, name: 'tool.notify', attributes: [s('openinference.span.kind', 'TOOL'), s('input.value', JSON.stringify({ order_id: t }))], status: { code: 2, message: 'notification service timed out' } };
}

/** The data set as OTLP/JSON exports of BATCH spans. */
function exports(): unknown[] {
  const out: unknown[] = [];
  for (let first = 0; first < SPANS; first += BATCH) {
    const spans = Array.from({ length: Math.min(BATCH, SPANS - first) }, (_, j) => span(first + j));
    out.push({ resourceSpans: [{ resource: { attributes: [s('service.name', 'support-bot'), s('wandb.entity', 'bench'), s('wandb.project', 'otel')] }, scopeSpans: [{ scope: { name: 'bench' }, spans }] }] });
  }
  return out;
}

/** The same calls as `/call/upsert_batch` bodies (what the conversion produced, as a Weave client would send them). */
function upsertBodies(otlp: unknown[]): string[] {
  // The op refs the export stores (semantics.md#otel-op-objects), decided on a scratch engine.
  const scratch = createEngine();
  return otlp.map((e) => {
    const plan = planExport(fromOtlpJson(e), undefined);
    const { plan: ops, callNames } = opNamesOf(plan.calls);
    const refs = storeOpObjects(scratch, ops, 'bench');
    for (const [i, { start }] of plan.calls.entries()) start.op_name = refs.get(start.project_id)!.get(callNames[i])!;
    const batch = plan.calls.flatMap(({ start, end }) => [
      {
        mode: 'start',
        req: {
          start: {
            project_id: start.project_id, id: start.id, op_name: start.op_name, display_name: start.display_name, trace_id: start.trace_id, parent_id: start.parent_id,
            thread_id: start.thread_id, turn_id: start.turn_id, started_at: formatMicros(start.started_at), attributes: start.attributes, inputs: start.inputs,
            svc_user_id: 'bench', svc_run_id: start.run_id, svc_run_step: start.run_step,
          },
        },
      },
      { mode: 'end', req: { end: { project_id: end.project_id, id: end.id, ended_at: formatMicros(end.ended_at), exception: end.exception, output: end.output, summary: end.summary, svc_run_step_end: end.run_step_end } } },
    ]);
    return stringifyExact({ batch });
  });
}

/** One server for the whole run (engines are swapped in), so no client reuses a socket of a closed one. */
async function server(engine: Engine) {
  const srv = createTqServer({ engine, routes: allRoutes(), users: new Users([{ name: 'bench', password: 'pw', projects: ['*'] }]) });
  const { port } = await srv.listen('127.0.0.1', 0);
  return { srv, url: `http://127.0.0.1:${port}` };
}

/** Posts every body (CONCURRENCY at a time); seconds taken. */
async function postAll(url: string, path: string, bodies: Array<Uint8Array | string>, contentType: string): Promise<number> {
  const started = performance.now();
  let next = 0;
  const worker = async () => {
    while (next < bodies.length) {
      const body = bodies[next++];
      const send = () => fetch(url + path, { method: 'POST', headers: { Authorization: AUTH, 'Content-Type': contentType }, body });
      // A keep-alive socket the loaded server closed as the client reused it: sent again (both
      // routes are upserts, so a repeat stores the same calls).
      const res = await send().catch(send);
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`${path}: ${res.status}`);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return (performance.now() - started) / 1000;
}

async function answer(srv: TqServer, url: string, engine: Engine): Promise<string> {
  srv.swapEngine(engine);
  const res = await fetch(url + '/calls/stream_query', { method: 'POST', headers: { Authorization: AUTH }, body: JSON.stringify({ project_id: PROJECT }) });
  return res.text();
}

async function main() {
  const otlp = exports();
  const protobuf = otlp.map((e) => encodeOtlpJsonAsProtobuf(e));
  const upserts = upsertBodies(otlp);
  const dir = mkdtempSync(join(tmpdir(), 'tq-bench-otel-'));
  writeFileSync(join(dir, 'otel-traces.jsonl'), otlp.map((e) => JSON.stringify(e)).join('\n') + '\n');

  const rates = { otlpHttp: [] as number[], upsertHttp: [] as number[], otlpFile: [] as number[] };
  const answers = new Set<string>();
  const { srv, url } = await server(createEngine());
  for (let run = 0; run < RUNS; run++) {
    // Interleaved, a fresh engine each time, so every side writes into an empty store.
    const a = createEngine();
    srv.swapEngine(a);
    rates.otlpHttp.push(SPANS / (await postAll(url, '/otel/v1/traces', protobuf, 'application/x-protobuf')));
    const b = createEngine();
    srv.swapEngine(b);
    rates.upsertHttp.push(SPANS / (await postAll(url, '/call/upsert_batch', upserts, 'application/json')));
    const c = createEngine();
    const started = performance.now();
    await loadFixtures(c, dir);
    rates.otlpFile.push(SPANS / ((performance.now() - started) / 1000));
    if (run === 0) for (const e of [a, b, c]) answers.add((await answer(srv, url, e)).replace(/"svc_user_id":(null|"bench")/g, '"svc_user_id":_'));
  }
  await srv.close();
  rmSync(dir, { recursive: true, force: true });
  if (answers.size !== 1) throw new Error('the three ingests do not answer the same calls');

  const m = { otlpHttp: median(rates.otlpHttp), upsertHttp: median(rates.upsertHttp), otlpFile: median(rates.otlpFile) };
  const bodyBytes = { protobuf: protobuf.reduce((n, b) => n + b.length, 0), upsert: upserts.reduce((n, b) => n + Buffer.byteLength(b), 0) };
  console.log(`otel ingest, ${SPANS} spans in exports of ${BATCH}, ${CONCURRENCY} concurrent clients, median of ${RUNS} (same calls checked on all three):`);
  console.log(`  POST /otel/v1/traces (protobuf, ${(bodyBytes.protobuf / SPANS).toFixed(0)} B/span): ${Math.round(m.otlpHttp)} spans/s`);
  console.log(`  POST /call/upsert_batch (JSON, ${(bodyBytes.upsert / SPANS).toFixed(0)} B/call):     ${Math.round(m.upsertHttp)} calls/s`);
  console.log(`  otel-traces.jsonl fixture load:                 ${Math.round(m.otlpFile)} spans/s`);
  console.log(`  ratios to upsert_batch: HTTP ${(m.otlpHttp / m.upsertHttp).toFixed(2)}x, file ${(m.otlpFile / m.upsertHttp).toFixed(2)}x`);
}

await main();
