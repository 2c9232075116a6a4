/**
 * POST /otel/v1/traces over HTTP (semantics.md#otel-endpoint, semantics.md#otel-project,
 * semantics.md#otel-partial-success): content types and encodings, the auth and grant matrix,
 * bodies that are not OTLP, and that a refused export writes nothing.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { deflateSync, gzipSync } from 'node:zlib';
import { createEngine } from '../engine.ts';
import type { Engine } from '../api/types.ts';
import { allRoutes } from '../routes.ts';
import { Users } from '../server/basic-auth.ts';
import { createTqServer, type TqServer } from '../server/server.ts';
import { ExportTraceServiceResponse } from './otlp-proto.ts';
import { otlpExport, protobufOf } from './otlp.testing.ts';

const basic = (user: string, password: string) => 'Basic ' + Buffer.from(`${user}:${password}`).toString('base64');
const API = basic('api', 'pw');
const BOB = basic('bob', 'bob-pw');

let srv: TqServer;
let base = '';
let engine: Engine;

before(async () => {
  engine = createEngine();
  srv = createTqServer({
    engine,
    routes: allRoutes(),
    users: new Users([
      { name: 'api', password: 'pw', projects: ['*'] },
      { name: 'bob', password: 'bob-pw', projects: ['acme/*'] },
    ]),
  });
  base = `http://127.0.0.1:${(await srv.listen('127.0.0.1', 0)).port}`;
});
after(() => srv.close());

function post(body: Uint8Array | string, headers: Record<string, string>) {
  return fetch(`${base}/otel/v1/traces`, { method: 'POST', headers, body });
}

const protobuf = (headers: Record<string, string> = {}) => ({ Authorization: API, 'Content-Type': 'application/x-protobuf', ...headers });

async function callIds(project: string): Promise<string[]> {
  const res = await fetch(`${base}/calls/stream_query`, { method: 'POST', headers: { Authorization: API }, body: JSON.stringify({ project_id: project, columns: ['id'] }) });
  assert.equal(res.status, 200);
  return (await res.text()).split('\n').filter(Boolean).map((l) => (JSON.parse(l) as { id: string }).id);
}

const oneSpan = (id: string) => otlpExport([{}, [{ id }]]);

async function expectError(res: Response, status: number, reason: string | RegExp) {
  const text = await res.text();
  assert.equal(res.status, status, text);
  const body = JSON.parse(text) as { reason: string };
  assert.deepEqual(Object.keys(body), ['reason']);
  if (typeof reason === 'string') assert.equal(body.reason, reason);
  else assert.match(body.reason, reason);
}

describe('POST /otel/v1/traces', () => {
  it('protobuf in, an empty ExportTraceServiceResponse out, calls stored', async () => {
    const res = await post(protobufOf(oneSpan('00000000000000a1')), protobuf({ project_id: 'acme/one' }));
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/x-protobuf');
    const bytes = new Uint8Array(await res.arrayBuffer());
    assert.equal(bytes.length, 0);
    assert.deepEqual(ExportTraceServiceResponse.toObject(ExportTraceServiceResponse.decode(bytes)), {});
    assert.deepEqual(await callIds('acme/one'), ['00000000000000a1']);
  });

  it('the project comes from the resource attributes, else the project_id header', async () => {
    const body = otlpExport([{ 'wandb.entity': 'acme', 'wandb.project': 'attrs' }, [{ id: '00000000000000b1' }]], [{ 'service.name': 's' }, [{ id: '00000000000000b2' }]]);
    assert.equal((await post(protobufOf(body), protobuf({ project_id: 'acme/header' }))).status, 200);
    assert.deepEqual(await callIds('acme/attrs'), ['00000000000000b1']);
    assert.deepEqual(await callIds('acme/header'), ['00000000000000b2']);
    await expectError(
      await post(protobufOf(oneSpan('00000000000000b3')), protobuf()),
      400,
      'No project for resourceSpans[0]: set the resource attributes wandb.entity and wandb.project, or send a project_id header',
    );
    await expectError(await post(protobufOf(oneSpan('00000000000000b4')), protobuf({ project_id: 'acme/../x' })), 400, /^Invalid project_id 'acme\/\.\.\/x'/);
  });

  it('auth: Basic, or the wandb-api-key header; a grant on every project written, else nothing is written', async () => {
    const body = protobufOf(oneSpan('00000000000000c1'));
    assert.equal((await post(body, { 'Content-Type': 'application/x-protobuf', 'wandb-api-key': 'pw', project_id: 'acme/key' })).status, 200);
    assert.deepEqual(await callIds('acme/key'), ['00000000000000c1']);
    const noCreds = await post(body, { 'Content-Type': 'application/x-protobuf', project_id: 'acme/none' });
    assert.equal(noCreds.headers.get('www-authenticate'), 'Basic realm="tq"');
    await expectError(noCreds, 401, /./);
    await expectError(await post(body, { 'Content-Type': 'application/x-protobuf', 'wandb-api-key': 'wrong', project_id: 'acme/none' }), 401, /./);
    assert.deepEqual(await callIds('acme/none'), []);

    assert.equal((await post(body, protobuf({ Authorization: BOB, project_id: 'acme/bob' }))).status, 200);
    await expectError(await post(body, protobuf({ Authorization: BOB, project_id: 'other/bob' })), 403, "User 'bob' has no access to project 'other/bob'");
    // One resource bob may write and one he may not: the whole export is refused.
    const mixed = otlpExport([{ 'wandb.entity': 'acme', 'wandb.project': 'mixed' }, [{ id: '00000000000000c2' }]], [{ 'wandb.entity': 'other', 'wandb.project': 'mixed' }, [{ id: '00000000000000c3' }]]);
    await expectError(await post(protobufOf(mixed), protobuf({ Authorization: BOB })), 403, "User 'bob' has no access to project 'other/mixed'");
    assert.deepEqual(await callIds('acme/mixed'), []);
    assert.deepEqual(await callIds('other/bob'), []);
  });

  it('gzip and deflate bodies; a bad or unknown encoding and a bomb are refused with nothing written', async () => {
    const bytes = protobufOf(oneSpan('00000000000000d1'));
    assert.equal((await post(gzipSync(bytes), protobuf({ 'Content-Encoding': 'gzip', project_id: 'acme/gz' }))).status, 200);
    assert.equal((await post(deflateSync(protobufOf(oneSpan('00000000000000d2'))), protobuf({ 'Content-Encoding': 'deflate', project_id: 'acme/gz' }))).status, 200);
    assert.deepEqual(await callIds('acme/gz'), ['00000000000000d1', '00000000000000d2']);
    await expectError(await post(bytes, protobuf({ 'Content-Encoding': 'gzip', project_id: 'acme/gz2' })), 400, /^Body is not valid gzip data: /);
    await expectError(await post(bytes, protobuf({ 'Content-Encoding': 'br', project_id: 'acme/gz2' })), 415, "Unsupported Content-Encoding 'br': send gzip, deflate or identity");
    // 40 MiB of zeros compress to ~40 KiB: refused after 32 MiB of output.
    const bomb = gzipSync(Buffer.alloc(40 * 1024 * 1024));
    assert.ok(bomb.length < 100_000);
    await expectError(await post(bomb, protobuf({ 'Content-Encoding': 'gzip', project_id: 'acme/gz2' })), 413, 'Body decompresses to more than 33554432 bytes');
    assert.deepEqual(await callIds('acme/gz2'), []);
  });

  it('content types: protobuf, OTLP/JSON (a tq extension, answered as JSON), anything else 415', async () => {
    const json = JSON.stringify(oneSpan('00000000000000e1'));
    const res = await post(json, { Authorization: API, 'Content-Type': 'application/json; charset=utf-8', project_id: 'acme/json' });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/json');
    assert.deepEqual(await res.json(), { partial_success: null });
    assert.deepEqual(await callIds('acme/json'), ['00000000000000e1']);
    await expectError(await post(json, { Authorization: API, 'Content-Type': 'text/plain', project_id: 'acme/json2' }), 415, "Unsupported Content-Type 'text/plain': send application/x-protobuf (or application/json, a tq extension)");
    await expectError(await post(new Uint8Array([1]), { Authorization: API, project_id: 'acme/json2' }), 415, /^Unsupported Content-Type '\(none\)'/);
    assert.equal((await fetch(`${base}/otel/v1/traces`, { headers: { Authorization: API } })).status, 405);
  });

  it('bodies that are not OTLP: 400 with the problem and where it is', async () => {
    await expectError(await post(new Uint8Array([0xff, 0xff, 0xff, 0xff]), protobuf({ project_id: 'acme/bad' })), 400, /^Invalid OTLP trace export: not an OTLP ExportTraceServiceRequest \(protobuf\): /);
    await expectError(await post('{"resourceSpans": 3}', { Authorization: API, 'Content-Type': 'application/json', project_id: 'acme/bad' }), 400, 'Invalid OTLP trace export: resourceSpans: must be a list');
    const badId = otlpExport([{}, [{ id: 'zz' }]]);
    await expectError(await post(JSON.stringify(badId), { Authorization: API, 'Content-Type': 'application/json', project_id: 'acme/bad' }), 400, 'Invalid OTLP trace export: resourceSpans[0].scopeSpans[0].spans[0].spanId: must be 16 hex digits');
    await expectError(await post('{"resourceSpans": [', { Authorization: API, 'Content-Type': 'application/json', project_id: 'acme/bad' }), 400, /^Invalid OTLP trace export: not JSON: /);
    assert.deepEqual(await callIds('acme/bad'), []);
  });

  it('partial success: rejected spans are counted and named, the others stored (JSON form)', async () => {
    const body = otlpExport([{}, [{ id: '00000000000000f1', name: 'bad', attrs: { a: 1, 'a.b': 2 } }, { id: '00000000000000f2' }]]);
    const res = await post(JSON.stringify(body), { Authorization: API, 'Content-Type': 'application/json', project_id: 'acme/partial' });
    assert.deepEqual(await res.json(), {
      partial_success: {
        rejected_spans: 1,
        error_message:
          "Rejected span (name='bad' trace_id='0af7651916cd43dd8448eb211c80319c' span_id='00000000000000f1'): Invalid attribute structure: cannot set subkey 'b' under parent key 'a' because it is already a int. Attributes must form a valid tree structure.",
      },
    });
    assert.deepEqual(await callIds('acme/partial'), ['00000000000000f2']);
  });

  it('at most 20 rejection messages, then "; ..."', async () => {
    const spans = Array.from({ length: 21 }, (_, i) => ({ id: (0x100 + i).toString(16).padStart(16, '0'), name: `s${i}`, attrs: { a: 1, 'a.b': 2 } }));
    const res = await post(protobufOf(otlpExport([{}, spans])), protobuf({ project_id: 'acme/many' }));
    const decoded = ExportTraceServiceResponse.toObject(ExportTraceServiceResponse.decode(new Uint8Array(await res.arrayBuffer())), { longs: Number }) as { partialSuccess: { rejectedSpans: number; errorMessage: string } };
    assert.equal(decoded.partialSuccess.rejectedSpans, 21);
    assert.equal(decoded.partialSuccess.errorMessage.split('; ').length, 21);
    assert.ok(decoded.partialSuccess.errorMessage.endsWith('; ...'));
    assert.ok(!decoded.partialSuccess.errorMessage.includes("name='s20'"));
  });
});
