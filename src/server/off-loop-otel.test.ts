/**
 * Issue 22 §4: `POST /otel/v1/traces` is a split route (src/otel/route.ts, export.ts). A body of
 * 1 MiB or more is inflated, decoded and converted in the worker, and only the grant checks, the
 * op objects and the stores run on the event loop: the answers must be the synchronous path's
 * byte for byte (protobuf and JSON, gzip and deflate, partial success, every refusal), the store
 * the same, and one max-size export must leave the event loop free for others.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { deflateSync, gzipSync } from 'node:zlib';
import { runRoute } from '../api/run-route.ts';
import type { Engine, RequestContext } from '../api/types.ts';
import { TqError } from '../core/errors.ts';
import { answers } from '../journal/journal.testing.ts';
import { otlpExport, protobufOf, type SpanSpec } from '../otel/otlp.testing.ts';
import { encodeOtlpJsonAsProtobuf } from '../otel/model.ts';
import { findRoute } from '../routes.ts';
import { Users } from './basic-auth.ts';
import { OffLoop, PreparedRefusal } from './off-loop.ts';
import { assertLoopFreeDuring, countingEngine, post } from './off-loop.testing.ts';
import { DEFAULT_MAX_BODY_BYTES, TAKE_TURNS_FROM_BYTES } from './server.ts';
import { startDemoServer } from './serving.testing.ts';

const PATH = '/otel/v1/traces';
const P = { 'wandb.entity': 'acme', 'wandb.project': 'otel' };

/** Spans of ~1 KB of incompressible text (so a gzipped body is still over 1 MiB), parents and errors among them. */
function spans(count: number, from = 0, extra: (i: number) => Partial<SpanSpec> = () => ({})): SpanSpec[] {
  return Array.from({ length: count }, (_, k) => {
    const i = from + k;
    return {
      id: (0x1000 + i).toString(16).padStart(16, '0'),
      name: ['Chat Step', 'tool/lookup', 'plain'][i % 3],
      ...(i % 4 === 1 ? { parent: (0x1000 + i - 1).toString(16).padStart(16, '0') } : {}),
      ...(i % 9 === 0 ? { status: { code: 2, message: `failed ${i}` } } : {}),
      attrs: { 'input.value': randomBytes(450).toString('hex'), 'gen_ai.usage.prompt_tokens': i, 'output.value': `{"n": ${i}, "f": 1.5}` },
      ...extra(i),
    };
  });
}

type Answer = { status: number; type: string; body: string };

/** What the synchronous path (the route run in this thread) answers, as the server would send it. */
function syncAnswer(engine: Engine, bytes: Uint8Array, headers: Record<string, string>, ctx: RequestContext): Answer {
  try {
    const r = runRoute(findRoute(PATH)!, engine, { kind: 'binary', bytes, headers }, ctx);
    if (r.kind === 'bytes') return { status: 200, type: r.contentType, body: Buffer.from(r.bytes).toString('base64') };
    assert.equal(r.kind, 'json');
    return { status: 200, type: 'application/json', body: r.kind === 'json' ? Buffer.from(r.text ?? JSON.stringify(r.body)).toString('base64') : '' };
  } catch (e) {
    if (!(e instanceof TqError)) throw e;
    return { status: e.status, type: 'application/json', body: Buffer.from(JSON.stringify(e.body())).toString('base64') };
  }
}

/** POST over node:http, the answer's bytes kept as they came. */
function postBytes(base: string, bytes: Uint8Array, headers: Record<string, string>, auth: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(base + PATH, { method: 'POST', agent: false, headers: { Authorization: auth, 'Content-Length': bytes.byteLength, ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, type: String(res.headers['content-type']), body: Buffer.concat(chunks).toString('base64') }));
    });
    req.on('error', reject);
    req.end(bytes);
  });
}

/** Counts what the off-loop worker did with each job while `run` runs: prepared, refused, or unavailable (run on the loop). */
async function watchingWorker<T>(run: (outcomes: string[]) => Promise<T>): Promise<T> {
  const outcomes: string[] = [];
  const original = OffLoop.prototype.prepare;
  OffLoop.prototype.prepare = function (this: OffLoop, ...args: Parameters<OffLoop['prepare']>) {
    const job = original.apply(this, args);
    job.then(
      () => outcomes.push('prepared'),
      (e: unknown) => outcomes.push(e instanceof PreparedRefusal ? `refused ${e.status}` : 'unavailable'),
    );
    return job;
  };
  try {
    return await run(outcomes);
  } finally {
    OffLoop.prototype.prepare = original;
  }
}

test('a large OTLP export gets the synchronous answer, byte for byte, from the worker, and stores the same', async () => {
  const engine = countingEngine();
  const reference = countingEngine();
  const users = new Users([{ name: 'bob', password: 'b', projects: ['acme/*'] }]);
  const bob = `Basic ${Buffer.from('bob:b').toString('base64')}`;
  const bobCtx = users.authenticate(bob);
  const { srv, base } = await startDemoServer({ engine, users });
  const protobuf = { 'content-type': 'application/x-protobuf' };
  const json = { 'content-type': 'application/json' };
  const many = 1200;
  // The resource names the project, or the project_id header does.
  const ok = otlpExport([P, spans(many)]);
  const header = otlpExport([{ 'service.name': 's' }, spans(many, many)]);
  // Rejected spans (an attribute tree conflict): partial success, the others stored.
  const partial = otlpExport([P, spans(many, 2 * many, (i) => (i % 50 === 0 ? { attrs: { a: 1, 'a.b': 2 } } : {}))]);
  // A span name that cannot be an op ref (400, after the grant check as on the synchronous path).
  const badOp = (project: Record<string, string>) => otlpExport([project, spans(many, 4 * many, (i) => (i === 4 * many + 700 ? { name: 'redis:get' } : {}))]);
  // Inflates past 32 MiB: incompressible bytes (so the body is over 1 MiB) then zeros.
  const bomb = gzipSync(Buffer.concat([randomBytes(1_200_000), Buffer.alloc(33 * 1024 * 1024)]));
  const cases: Array<[Uint8Array, Record<string, string>]> = [
    [protobufOf(ok), protobuf],
    [protobufOf(ok), protobuf],
    [protobufOf(header), { ...protobuf, project_id: 'acme/header' }],
    [Buffer.from(JSON.stringify(otlpExport([P, spans(many, 5 * many)]))), json],
    [gzipSync(protobufOf(otlpExport([P, spans(3 * many, 6 * many)]))), { ...protobuf, 'content-encoding': 'gzip' }],
    [deflateSync(Buffer.from(JSON.stringify(otlpExport([P, spans(3 * many, 9 * many)])))), { ...json, 'content-encoding': 'deflate' }],
    [protobufOf(partial), protobuf],
    [Buffer.from(JSON.stringify(partial)), json],
    // 400: not protobuf; not JSON; no project; a malformed project id; a bad op name; not gzip.
    [Buffer.alloc(1_100_000, 0xff), protobuf],
    [Buffer.from(JSON.stringify(ok).slice(0, -2)), json],
    [protobufOf(header), protobuf],
    [protobufOf(header), { ...protobuf, project_id: 'acme/../x' }],
    [protobufOf(badOp(P)), protobuf],
    [protobufOf(ok), { ...protobuf, 'content-encoding': 'gzip' }],
    // 403: a project bob has no grant on, alone or beside one he has; before the bad op name.
    [protobufOf(otlpExport([P, spans(many, 10 * many)], [{ 'wandb.entity': 'other', 'wandb.project': 'x' }, spans(2, 12 * many)])), protobuf],
    [protobufOf(badOp({ 'wandb.entity': 'other', 'wandb.project': 'x' })), protobuf],
    // 413: the bomb; 415: another content type, another encoding.
    [bomb, { ...protobuf, 'content-encoding': 'gzip' }],
    [protobufOf(ok), { 'content-type': 'text/plain' }],
    [protobufOf(ok), { ...protobuf, 'content-encoding': 'br' }],
  ];
  try {
    const statuses = await watchingWorker(async (outcomes) => {
      const got: number[] = [];
      for (const [bytes, headers] of cases) {
        assert.ok(bytes.byteLength >= TAKE_TURNS_FROM_BYTES, `${bytes.byteLength} bytes: under the worker's threshold`);
        const answer = await postBytes(base, bytes, headers, bob);
        assert.deepEqual(answer, syncAnswer(reference, bytes, headers, bobCtx), JSON.stringify(headers));
        got.push(answer.status);
      }
      // Every body went through the worker: refused there (4xx of the body) or prepared.
      assert.deepEqual(outcomes, ['prepared', 'prepared', 'prepared', 'prepared', 'prepared', 'prepared', 'prepared', 'prepared', 'refused 400', 'refused 400', 'refused 400', 'prepared', 'prepared', 'refused 400', 'prepared', 'prepared', 'refused 413', 'refused 415', 'refused 415']);
      return got;
    });
    assert.deepEqual(statuses, [200, 200, 200, 200, 200, 200, 200, 200, 400, 400, 400, 400, 400, 400, 403, 403, 413, 415, 415]);
    assert.equal(answers(engine), answers(reference));
    const project = engine.store.project('acme/otel')!;
    assert.equal(project.calls.size, 9 * many - many / 50);
    assert.deepEqual([...project.objects.keys()].sort(), ['chat_step', 'plain', 'tool_lookup']);
    assert.equal(engine.store.project('other/x'), undefined);
  } finally {
    await srv.close();
  }
});

/** As the bench (bench/request-gap.ts): 1 KB spans up to just under the body limit. */
function maxSizeExport(): Buffer {
  const filler = 'x'.repeat(900);
  const perSpan = 1000;
  const count = Math.floor((DEFAULT_MAX_BODY_BYTES - 64 * 1024) / perSpan);
  const otlp = {
    resourceSpans: [
      {
        resource: { attributes: [{ key: 'wandb.entity', value: { stringValue: 'acme' } }, { key: 'wandb.project', value: { stringValue: 'big' } }] },
        scopeSpans: [
          {
            spans: Array.from({ length: count }, (_, i) => ({
              traceId: '0af7651916cd43dd8448eb211c80319c',
              spanId: (i + 1).toString(16).padStart(16, '0'),
              name: 'op',
              startTimeUnixNano: '1714564800000000000',
              endTimeUnixNano: '1714564801000000000',
              attributes: [{ key: 'input.value', value: { stringValue: filler } }],
            })),
          },
        ],
      },
    ],
  };
  return Buffer.from(encodeOtlpJsonAsProtobuf(otlp));
}

test('/otel/v1/traces: one max-size export leaves the event loop free for others', async () => {
  const body = maxSizeExport();
  assert.ok(body.length > DEFAULT_MAX_BODY_BYTES * 0.8 && body.length <= DEFAULT_MAX_BODY_BYTES, String(body.length));
  const { srv, base } = await startDemoServer({ engine: countingEngine() });
  try {
    // Warm the worker so that the measured request is the work itself.
    const warm = protobufOf(otlpExport([{ 'wandb.entity': 'acme', 'wandb.project': 'warm' }, spans(1200)]));
    assert.equal((await post(base, PATH, Buffer.from(warm), undefined, undefined, { 'Content-Type': 'application/x-protobuf' })).status, 200);
    await assertLoopFreeDuring(base, PATH, body, { 'Content-Type': 'application/x-protobuf' });
  } finally {
    await srv.close();
  }
});
