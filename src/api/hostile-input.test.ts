/**
 * Issue 11 §6: hostile input against every route, in-process (the same runRoute every front
 * end uses). Seeded, bounded: no 5xx, no crash, documented error shapes, and the engine
 * answers a normal query afterwards. The HTTP run is src/server/hostile-http.test.ts. The OTLP
 * endpoint's raw bytes get a property of their own (decoder, headers, attribute values).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { TqError } from '../core/errors.ts';
import { createEngine } from '../engine.ts';
import { Users } from '../server/basic-auth.ts';
import { assertAnswer, hostileBodyText, nestedText, ROUTE_KEYS } from './hostile.testing.ts';
import { MAX_ISSUES } from '../core/echo.ts';
import { allRoutes } from '../routes.ts';
import { runRoute } from './run-route.ts';
import type { Engine, RequestBody, RequestContext, Route } from './types.ts';
import { deflateSync, gzipSync } from 'node:zlib';
import { encodeOtlpJsonAsProtobuf } from '../otel/model.ts';

const users = new Users([{ name: 'u', password: 'p', projects: ['e/*'] }]);
const ctx: RequestContext = users.authenticate('Basic ' + Buffer.from('u:p').toString('base64'));

/** Runs a route as a front end would, consuming a stream in full; returns status and body. */
function answer(engine: Engine, route: Route, body: RequestBody): { status: number; body: unknown } {
  try {
    const result = runRoute(route, engine, body, ctx);
    if (result.kind === 'json') return { status: 200, body: JSON.parse(result.text ?? JSON.stringify(result.body)) };
    if (result.kind === 'bytes') return { status: 200, body: new TextDecoder().decode(result.bytes) };
    return { status: 200, body: [...result.lines].map((line) => JSON.parse(line) as unknown) };
  } catch (e) {
    if (e instanceof TqError) return { status: e.status, body: JSON.parse(JSON.stringify(e.body())) };
    throw e;
  }
}

function seeded(): Engine {
  const engine = createEngine();
  const start = { project_id: 'e/seed', id: 'seed-call', op_name: 'op', trace_id: 't', started_at: '2024-01-01T00:00:00Z', attributes: {}, inputs: { q: 1 } };
  assert.equal(answer(engine, allRoutes().find((r) => r.path === '/call/start')!, { kind: 'value', value: { start } }).status, 200);
  return engine;
}

function assertStillServing(engine: Engine): void {
  const r = answer(engine, allRoutes().find((r) => r.path === '/calls/stream_query')!, { kind: 'text', text: '{"project_id":"e/seed"}' });
  assert.equal(r.status, 200);
  assert.deepEqual((r.body as Array<{ id: string }>).map((c) => c.id), ['seed-call']);
}

/** Every route but /test/reset, whose whole job is to forget the seed (tested in src/write/test-control.test.ts). */
const hostileTargets = () => allRoutes().filter((r) => r.path !== '/test/reset');

test('every route, depths 1,000 / 5,000 / 100,000 / 1,000,000, at the top and in a field: 4xx, never a crash', () => {
  const engine = seeded();
  for (const route of hostileTargets()) {
    for (const depth of [1000, 5000, 100_000, 1_000_000]) {
      for (const kind of ['array', 'object'] as const) {
        const top = answer(engine, route, { kind: 'text', text: nestedText(depth, kind) });
        const field = answer(engine, route, { kind: 'text', text: `{"project_id":"e/p","query":${nestedText(depth - 1, kind)}}` });
        for (const [where, r] of [['top', top], ['field', field]] as const) {
          const context = `${route.path} depth ${depth} ${kind} ${where}`;
          assertAnswer(r.status, r.body, context);
          if (depth > 1000 && route.body === 'json') {
            assert.equal(r.status, 400, context);
            assert.match((r.body as { reason: string }).reason, /^Request body is nested more than 1000 levels deep/, context);
          }
        }
      }
    }
  }
  assertStillServing(engine);
});

/** A JSON list of `n` copies of `item`, built as bytes (millions of items without a JS array). */
const listText = (n: number, item: string) => '[' + (item + ',').repeat(n - 1) + item + ']';

test('issue 22 §2: lists of millions of bad items in the list fields of the list-taking routes are 4xx in bounded time and memory', () => {
  const engine = seeded();
  // As bytes: 2,000,000 numbers (4 MB) and 2,000,000 short strings (8 MB).
  const lists = [listText(2_000_000, '1'), listText(2_000_000, '"x"')];
  const bodies: Array<[string, (list: string) => string]> = [
    ['/call/upsert_batch', (l) => `{"batch":${l}}`],
    ['/feedback/batch/create', (l) => `{"batch":${l}}`],
    ['/table/update', (l) => `{"project_id":"e/p","base_digest":"x","updates":${l}}`],
    ['/table/create', (l) => `{"table":{"project_id":"e/p","rows":${l}}}`],
    ['/table/create_from_digests', (l) => `{"project_id":"e/p","row_digests":${l}}`],
    ['/calls/delete', (l) => `{"project_id":"e/p","call_ids":${l}}`],
    ['/refs/read_batch', (l) => `{"refs":${l}}`],
    ['/calls/stream_query', (l) => `{"project_id":"e/p","query":{"$expr":{"$in":[{"$getField":"id"},{"$literal":${l}}]}}}`],
  ];
  let worst = 0;
  for (const [path, body] of bodies) {
    const route = allRoutes().find((r) => r.path === path)!;
    for (const list of lists) {
      const t0 = Date.now();
      const r = answer(engine, route, { kind: 'text', text: body(list) });
      worst = Math.max(worst, Date.now() - t0);
      assertAnswer(r.status, r.body, `${path} ${body(list).slice(0, 80)}`);
      if (r.status === 422) assert.ok((r.body as { detail: unknown[] }).detail.length <= MAX_ISSUES, path);
    }
  }
  // Before issue 22 one such body grew the issue list without bound and took V8 down. (The
  // bound is loose: this machine may be shared; a body takes about 1 s alone.)
  assert.ok(worst < 30_000, `slowest body took ${worst} ms`);
  assert.ok(process.memoryUsage().heapUsed < 2 ** 30, `heap ${process.memoryUsage().heapUsed} bytes`);
  assertStillServing(engine);
});

test('property: hostile bodies against every route in-process (seeded)', () => {
  const engine = seeded();
  const routes = hostileTargets();
  const multipart = fc.record({
    fields: fc.dictionary(fc.constantFrom('project_id', 'file', 'x', '__proto__'), fc.constantFrom('e/p', 'e/p/x', 'b/x', '', '\u0000')),
    file: fc.option(fc.uint8Array({ maxLength: 64 })),
  });
  fc.assert(
    fc.property(fc.nat({ max: routes.length - 1 }), hostileBodyText, multipart, fc.boolean(), (i, text, form, asForm) => {
      const route = routes[i];
      const body: RequestBody =
        asForm && route.body === 'multipart'
          ? { kind: 'multipart', fields: new Map(Object.entries(form.fields)), files: form.file ? new Map([['file', form.file]]) : new Map() }
          : { kind: 'text', text };
      const r = answer(engine, route, body);
      assertAnswer(r.status, r.body, `${route.path} ${text.slice(0, 200)}`);
    }),
    { seed: 11, numRuns: 1000 },
  );
  assertStillServing(engine);
});

test('values nested right up to the bound are stored, digested, expanded and rendered by every writer', () => {
  const engine = seeded();
  const route = (path: string) => allRoutes().find((r) => r.path === path)!;
  const send = (path: string, text: string) => {
    const r = answer(engine, route(path), { kind: 'text', text });
    assert.equal(r.status, 200, `${path}: ${JSON.stringify(r.body).slice(0, 300)}`);
    return r.body as Record<string, unknown>;
  };
  // Envelope levels + value levels = 1000 exactly.
  const obj = send('/obj/create', `{"obj":{"project_id":"e/p","object_id":"deep","val":{"v":${nestedText(997)}}}}`);
  const table = send('/table/create', `{"table":{"project_id":"e/p","rows":[{"v":${nestedText(996)}}]}}`);
  const ref = `weave:///e/p/object/deep:${obj.digest as string}`;
  send('/call/start', `{"start":{"project_id":"e/p","id":"deep","op_name":"op","trace_id":"t","started_at":"2024-01-01T00:00:00Z","attributes":{},"inputs":{"x":"${ref}","y":${nestedText(997)}}}}`);
  send('/feedback/create', `{"project_id":"e/p","weave_ref":"weave:///e/p/call/deep","feedback_type":"x","payload":{"v":${nestedText(998)}}}`);
  const [line] = answer(engine, route('/calls/stream_query'), {
    kind: 'text',
    text: '{"project_id":"e/p","expand_columns":["inputs.x"],"include_feedback":true,"sort_by":[{"field":"inputs.y","direction":"asc"}]}',
  }).body as Array<{ inputs: { x: { v: unknown } } }>;
  // Expansion nests the object below the call: deeper than any body, and still rendered.
  assert.equal(JSON.stringify(line.inputs.x.v), nestedText(997));
  const rows = send('/table/query', `{"project_id":"e/p","digest":"${table.digest as string}"}`) as { rows: Array<{ val: { v: unknown } }> };
  assert.equal(JSON.stringify(rows.rows[0].val.v), nestedText(996));
  const read = send('/obj/read', `{"project_id":"e/p","object_id":"deep","digest":"${obj.digest as string}"}`) as { obj: { val: { v: unknown } } };
  assert.equal(JSON.stringify(read.obj.val.v), nestedText(997));
});

test('property: hostile OTLP exports (bytes, headers, attribute values): 4xx or 2xx, never a crash, nothing written on a 4xx', () => {
  const engine = seeded();
  const route = allRoutes().find((r) => r.path === '/otel/v1/traces')!;
  const stored = () => engine.store.project('e/otel')?.calls.size ?? 0;
  const anyValue: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
    v: fc.oneof(
      { depthSize: 'small', maxDepth: 4 },
      fc.record({ stringValue: fc.oneof(fc.string({ maxLength: 20 }), fc.constantFrom('{"a":', '[1,2]', '{"__proto__":{"x":1}}', '[' .repeat(1200) + ']'.repeat(1200), 'x'.repeat(70_000))) }),
      fc.record({ intValue: fc.constantFrom('0', '-9223372036854775808', '9223372036854775807', '12') }),
      fc.record({ doubleValue: fc.oneof(fc.double(), fc.constantFrom('NaN', 'Infinity', '-Infinity')) }),
      fc.record({ boolValue: fc.boolean() }),
      fc.record({ bytesValue: fc.constantFrom('', 'AP8=', '####') }),
      fc.constant({}),
      fc.record({ arrayValue: fc.record({ values: fc.array(tie('v'), { maxLength: 3 }) }) }),
      fc.record({ kvlistValue: fc.record({ values: fc.array(fc.record({ key: fc.string({ maxLength: 6 }), value: tie('v') }), { maxLength: 3 }) }) }),
    ),
  })).v;
  const attrKey = fc.oneof(fc.constantFrom('a', 'a.b', 'a.b.c', 'input.value', 'gen_ai.prompt.0.role', 'gen_ai.usage.prompt_tokens', 'wandb.thread_id', 'wandb.is_turn', '__proto__', '__proto__.x', 'constructor.prototype', '', '.', 'a..b', 'output', 'langfuse.startTime'), fc.string({ maxLength: 8 }));
  const span = fc.record({
    traceId: fc.constantFrom('0af7651916cd43dd8448eb211c80319c', '', 'zz', '0AF7651916CD43DD8448EB211C80319C'),
    spanId: fc.constantFrom('b7ad6b7169203331', '', '00f067aa0ba902b7', 'xyz'),
    parentSpanId: fc.constantFrom(undefined, '', 'b7ad6b7169203331'),
    name: fc.oneof(fc.string({ maxLength: 10 }), fc.constant('n'.repeat(300))),
    startTimeUnixNano: fc.constantFrom('0', '1714564800000000000', '18446744073709551615', '-1', 'x'),
    endTimeUnixNano: fc.constantFrom('0', '1714564801000000000', '18446744073709551615'),
    status: fc.record({ code: fc.constantFrom(0, 1, 2, 7), message: fc.string({ maxLength: 8 }) }),
    attributes: fc.array(fc.record({ key: attrKey, value: anyValue }), { maxLength: 6 }),
  });
  const exportValue = fc.record({
    resourceSpans: fc.array(fc.record({ resource: fc.record({ attributes: fc.constantFrom([], [{ key: 'wandb.entity', value: { stringValue: 'e' } }, { key: 'wandb.project', value: { stringValue: 'otel' } }]) }), scopeSpans: fc.array(fc.record({ spans: fc.array(span, { maxLength: 3 }) }), { maxLength: 2 }) }), { maxLength: 2 }),
  });
  const bytes = fc.oneof(
    fc.uint8Array({ maxLength: 64 }),
    exportValue.map((v) => JSON.stringify(v)).map((t) => new TextEncoder().encode(t)),
    fc.tuple(exportValue, fc.nat(), fc.nat({ max: 255 })).map(([v, at, b]) => {
      // A valid protobuf encoding with one byte changed, or cut short.
      let encoded: Uint8Array;
      try {
        encoded = encodeOtlpJsonAsProtobuf(v);
      } catch {
        return new Uint8Array([b]);
      }
      const copy = new Uint8Array(encoded);
      if (copy.length > 0) copy[at % copy.length] = b;
      return b % 2 === 0 ? copy : copy.subarray(0, at % (copy.length + 1));
    }),
    fc.constantFrom(gzipSync(Buffer.alloc(34 * 1024 * 1024)), gzipSync('x'), deflateSync('{"resourceSpans":[]}'), new Uint8Array([0x1f, 0x8b, 0x08])),
  );
  const headers = fc.record({
    'content-type': fc.constantFrom('application/x-protobuf', 'application/json', 'application/protobuf', 'text/plain', '', 'application/x-protobuf; charset=x', 'APPLICATION/JSON'),
    'content-encoding': fc.constantFrom('', 'identity', 'gzip', 'deflate', 'br', 'gzip, gzip'),
    project_id: fc.constantFrom('e/otel', 'b/x', 'e/../x', '', 'e/otel/x'),
  });
  fc.assert(
    fc.property(bytes, headers, (body, hs) => {
      const before = stored();
      const r = answer(engine, route, { kind: 'binary', bytes: body, headers: Object.fromEntries(Object.entries(hs).filter(([, v]) => v !== '')) });
      assertAnswer(r.status, r.body, `otel ${JSON.stringify(hs)} ${Buffer.from(body.subarray(0, 80)).toString('hex')}`);
      if (r.status >= 400) assert.equal(stored(), before, 'a refused export wrote nothing');
    }),
    { seed: 27, numRuns: 400 },
  );
  assertStillServing(engine);
});
