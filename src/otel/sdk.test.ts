/**
 * The real OpenTelemetry JS SDK as the client (semantics.md#otel-endpoint,
 * semantics.md#otel-fixtures): BasicTracerProvider + the OTLP/HTTP protobuf exporter send nested
 * spans with OpenInference and GenAI attributes and an error span to tq serve; the calls read
 * back as production's conversion makes them. The same spans, written as an OTLP JSON lines
 * file by the SDK's own JSON serializer (what a Collector file exporter holds), give the same
 * calls through `tq calls --fixtures` (bar the user, which only an HTTP export has). A gzipped
 * batch over 1 MiB takes the server's off-loop path (src/server/off-loop.ts) and is stored whole.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { context, SpanStatusCode, trace } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { randomBytes } from 'node:crypto';
import { createEngine } from '../engine.ts';
import { allRoutes } from '../routes.ts';
import { Users } from '../server/basic-auth.ts';
import { OffLoop } from '../server/off-loop.ts';
import { createTqServer, TAKE_TURNS_FROM_BYTES, type TqServer } from '../server/server.ts';

const TQ = fileURLToPath(new URL('../../bin/tq', import.meta.url));
const PROJECT = 'acme/sdk';
/** The placeholder op's digest (src/otel/op-objects.test.ts derives it). */
const PLACEHOLDER_OP_DIGEST = 'XNI9iHYwcffKfuDa2rGjQoIxUOw7cnWmLEiNufRD8RY';

let srv: TqServer;
let base = '';
const dir = mkdtempSync(join(tmpdir(), 'tq-otel-sdk-'));

before(async () => {
  srv = createTqServer({ engine: createEngine(), routes: allRoutes(), users: new Users([{ name: 'api', password: 'sdk-key', projects: ['acme/*'] }]) });
  base = `http://127.0.0.1:${(await srv.listen('127.0.0.1', 0)).port}`;
});
after(async () => {
  await srv.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Call {
  id: string;
  trace_id: string;
  parent_id: string | null;
  op_name: string;
  display_name: string | null;
  thread_id: string | null;
  turn_id: string | null;
  inputs: unknown;
  output: unknown;
  attributes: unknown;
  exception: string | null;
  summary: { usage?: Record<string, Record<string, number | null>>; weave: { status: string; latency_ms: number } };
  svc_user_id: string | null;
  started_at: string;
  ended_at: string;
}

async function queryCalls(): Promise<Call[]> {
  const res = await fetch(`${base}/calls/stream_query`, {
    method: 'POST',
    headers: { Authorization: 'Basic ' + Buffer.from('api:sdk-key').toString('base64') },
    body: JSON.stringify({ project_id: PROJECT }),
  });
  assert.equal(res.status, 200);
  return (await res.text()).split('\n').filter(Boolean).map((l) => JSON.parse(l) as Call);
}

/** The exporter's `CompressionAlgorithm.GZIP` (its enum lives in a package tq does not depend on directly). */
const GZIP = 'gzip' as NonNullable<NonNullable<ConstructorParameters<typeof OTLPTraceExporter>[0]>['compression']>;

describe('the OpenTelemetry JS SDK exporting to tq serve', () => {
  it('nested GenAI/OpenInference spans and an error span become production\'s calls; an OTLP JSON file of the same spans answers the same', async () => {
    const memory = new InMemorySpanExporter();
    // The exporter as Weave's docs configure it: the wandb-api-key header, project in the resource.
    const exporter = new OTLPTraceExporter({ url: `${base}/otel/v1/traces`, headers: { 'wandb-api-key': 'sdk-key' } });
    const provider = new BasicTracerProvider({
      resource: resourceFromAttributes({ 'service.name': 'agent', 'wandb.entity': 'acme', 'wandb.project': 'sdk' }),
      spanProcessors: [new SimpleSpanProcessor(exporter), new SimpleSpanProcessor(memory)],
    });
    const tracer = provider.getTracer('tq-test');

    const root = tracer.startSpan('agent.run', {
      attributes: {
        'openinference.span.kind': 'AGENT',
        'input.value': JSON.stringify({ question: 'Weather in Paris?' }),
        'output.value': 'Sunny, 24 °C',
        'wandb.thread_id': 'conversation-1',
        'wandb.is_turn': true,
        'wandb.display_name': 'Turn 1',
      },
    });
    const inRoot = trace.setSpan(context.active(), root);
    const chat = tracer.startSpan(
      'chat gpt-4o',
      {
        attributes: {
          'gen_ai.system': 'openai',
          'gen_ai.request.model': 'gpt-4o',
          'gen_ai.request.temperature': 0.2,
          'gen_ai.response.model': 'gpt-4o-2024-08-06',
          'gen_ai.prompt.0.role': 'user',
          'gen_ai.prompt.0.content': 'Weather in Paris?',
          'gen_ai.completion.0.role': 'assistant',
          'gen_ai.completion.0.content': 'Let me look.',
          'gen_ai.usage.prompt_tokens': 25,
          'gen_ai.usage.completion_tokens': 7,
        },
      },
      inRoot,
    );
    chat.end();
    const tool = tracer.startSpan('tool.weather', { attributes: { 'openinference.span.kind': 'TOOL', 'input.value': 'Paris' } }, inRoot);
    tool.recordException(new Error('weather service down'));
    tool.setStatus({ code: SpanStatusCode.ERROR, message: 'weather service down' });
    tool.end();
    root.end();
    await provider.forceFlush();
    // Taken before shutdown, which empties the in-memory exporter.
    const finished = memory.getFinishedSpans();
    await provider.shutdown();

    const ids = { root: root.spanContext().spanId, chat: chat.spanContext().spanId, tool: tool.spanContext().spanId };
    const traceId = root.spanContext().traceId;
    const calls = await queryCalls();
    const byId = new Map(calls.map((c) => [c.id, c]));
    assert.deepEqual(new Set(byId.keys()), new Set(Object.values(ids)));
    for (const c of calls) assert.equal(c.trace_id, traceId);

    const r = byId.get(ids.root)!;
    assert.deepEqual(
      { parent: r.parent_id, op: r.op_name, display: r.display_name, thread: r.thread_id, turn: r.turn_id, inputs: r.inputs, output: r.output, attributes: r.attributes, user: r.svc_user_id, status: r.summary.weave.status },
      { parent: null, op: `weave:///${PROJECT}/op/agent.run:${PLACEHOLDER_OP_DIGEST}`, display: 'Turn 1', thread: 'conversation-1', turn: ids.root, inputs: { 'input.value': { question: 'Weather in Paris?' } }, output: { 'output.value': 'Sunny, 24 °C' }, attributes: { kind: 'AGENT' }, user: 'api', status: 'success' },
    );
    const c = byId.get(ids.chat)!;
    assert.equal(c.parent_id, ids.root);
    assert.deepEqual(c.attributes, { system: 'openai', model: 'gpt-4o-2024-08-06', model_parameters: { model: 'gpt-4o', temperature: 0.2 } });
    assert.deepEqual(c.inputs, { 'gen_ai.prompt': [{ role: 'user', content: 'Weather in Paris?' }] });
    assert.deepEqual(c.output, { 'gen_ai.completion': [{ role: 'assistant', content: 'Let me look.' }] });
    assert.deepEqual(c.summary.usage, { 'gpt-4o-2024-08-06': { input_tokens: null, output_tokens: null, completion_tokens: 7, prompt_tokens: 25, total_tokens: 32, requests: null } });
    const t = byId.get(ids.tool)!;
    assert.deepEqual({ parent: t.parent_id, exception: t.exception, status: t.summary.weave.status, attributes: t.attributes }, { parent: ids.root, exception: 'weather service down', status: 'error', attributes: { kind: 'TOOL' } });

    // The same spans as an OTLP JSON lines file, one export per line (as a Collector writes them).
    const lines = finished.map((s) => new TextDecoder().decode(JsonTraceSerializer.serializeRequest([s])));
    writeFileSync(join(dir, 'otel-traces.jsonl'), lines.join('\n') + '\n');
    const { stdout } = await promisify(execFile)(process.execPath, [TQ, 'calls', '--fixtures', dir, '--project', PROJECT], { env: { ...process.env, NO_COLOR: '1' } });
    const fromFile = stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Call);
    assert.deepEqual(fromFile.map((f) => f.svc_user_id), [null, null, null]);
    const withoutUser = (list: Call[]) => list.map(({ svc_user_id: _, ...rest }) => rest);
    assert.deepEqual(withoutUser(fromFile), withoutUser(calls));
  });

  it('a gzipped batch of over 1 MiB is converted off the event loop (src/server/off-loop.ts) and stored whole', async () => {
    const sizes: number[] = [];
    const original = OffLoop.prototype.prepare;
    OffLoop.prototype.prepare = function (this: OffLoop, ...args: Parameters<OffLoop['prepare']>) {
      sizes.push(args[1].byteLength);
      return original.apply(this, args);
    };
    try {
      const exporter = new OTLPTraceExporter({ url: `${base}/otel/v1/traces`, headers: { 'wandb-api-key': 'sdk-key' }, compression: GZIP });
      const provider = new BasicTracerProvider({
        resource: resourceFromAttributes({ 'wandb.entity': 'acme', 'wandb.project': 'sdk-big' }),
        spanProcessors: [new BatchSpanProcessor(exporter, { maxExportBatchSize: 2000, maxQueueSize: 4000, scheduledDelayMillis: 60_000 })],
      });
      const tracer = provider.getTracer('tq-test');
      // Incompressible inputs, so that the gzipped body stays over the worker's threshold.
      for (let i = 0; i < 2000; i++) tracer.startSpan(`step ${i % 3}`, { attributes: { 'input.value': randomBytes(750).toString('base64') } }).end();
      await provider.forceFlush();
      await provider.shutdown();
    } finally {
      OffLoop.prototype.prepare = original;
    }
    assert.equal(sizes.length, 1);
    assert.ok(sizes[0] >= TAKE_TURNS_FROM_BYTES, `${sizes[0]} bytes`);
    const res = await fetch(`${base}/calls/stream_query`, {
      method: 'POST',
      headers: { Authorization: 'Basic ' + Buffer.from('api:sdk-key').toString('base64') },
      body: JSON.stringify({ project_id: 'acme/sdk-big', columns: ['op_name', 'svc_user_id'] }),
    });
    const calls = (await res.text()).split('\n').filter(Boolean).map((l) => JSON.parse(l) as { op_name: string; svc_user_id: string });
    assert.equal(calls.length, 2000);
    assert.deepEqual(new Set(calls.map((c) => c.op_name)), new Set([0, 1, 2].map((i) => `weave:///acme/sdk-big/op/step_${i}:${PLACEHOLDER_OP_DIGEST}`)));
    assert.deepEqual(new Set(calls.map((c) => c.svc_user_id)), new Set(['api']));
  });
});
