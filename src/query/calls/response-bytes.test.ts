/**
 * The byte renderer (rowWriter) against the former text renderer (response-text.testing.ts)
 * on generated calls: stored bodies written by hand (unicode, escapes, big integers, `1.0`,
 * whitespace, a `weave` key in the summary, empty objects, null and missing parts), both field
 * prefixes, and the request options that pick the renderer's paths.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { grantingContext } from '../../api/call-route.testing.ts';
import { runRoute } from '../../api/run-route.ts';
import type { FieldPrefix } from '../../api/types.ts';
import { createEngine } from '../../engine.ts';
import { parseCallRecord } from '../../load/calls/call-record.ts';
import { textCallsQueryLines } from './response-text.testing.ts';
import { callsStreamQueryRoute } from './route.ts';

const PROJECT = 'e/p';
const enc = new TextEncoder();
const dec = new TextDecoder();

/** A JSON string literal: plain, escaped by JSON.stringify, or with characters spelled `\uXXXX`. */
const stringText = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 8 }).map((s) => JSON.stringify(s)),
  fc.string({ unit: 'grapheme-ascii', maxLength: 8 }).map((s) => `"${[...s].map((c) => (c === '"' || c === '\\' ? `\\${c}` : c >= ' ' ? c : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)).join('')}"`),
  fc.constantFrom('"\\u00e9t\\u00E9"', '"a\\/b"', '"\\ud83d\\ude00"', '"é😀\u2028"', '"weave"', '"\\"weave\\""'),
);
const numberText = fc.constantFrom('0', '-1', '1.0', '12345678901234567890', '-0', '1e3', '2.5E-3', '0.1', '9007199254740993');
const ws = fc.constantFrom('', ' ', '\n\t ');

/** A JSON text of bounded depth, spelled in every way a fixture line may spell it. */
const jsonText: fc.Arbitrary<string> = fc.letrec<{ value: string }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom('null', 'true', 'false'),
    numberText,
    stringText,
    fc.tuple(fc.array(tie('value'), { maxLength: 3 }), ws).map(([items, s]) => `[${s}${items.join(`${s},${s}`)}${s}]`),
    fc.tuple(fc.array(fc.tuple(fc.oneof(stringText, fc.constantFrom('"weave"', '"status_counts"', '"inputs"')), tie('value')), { maxLength: 3 }), ws).map(
      ([members, s]) => `{${s}${members.map(([k, v]) => `${k}${s}:${s}${v}`).join(`${s},${s}`)}${s}}`,
    ),
  ),
})).value;

const objectText = fc.oneof(
  fc.constantFrom('{}', '{ }', 'null'),
  jsonText.filter((t) => t.startsWith('{')),
  fc.tuple(jsonText, jsonText).map(([a, b]) => `{"weave":${a},"status_counts":{"error":${b === 'null' ? 1 : 0}},"x":${b}}`),
  fc.tuple(jsonText).map(([a]) => `{"usage":{"m":{"requests":1,"prompt_tokens":10}},"status_counts":{"error":2,"success":1},"nested":{"weave":${a}}}`),
);

const datetimeText = fc
  .tuple(fc.integer({ min: 0, max: 2_000_000_000 }), fc.integer({ min: 0, max: 999_999 }), fc.boolean())
  .map(([s, us, micros]) => new Date(s * 1000).toISOString().replace('.000Z', micros ? `.${String(us).padStart(6, '0')}Z` : 'Z'));

const nullableString = fc.option(stringText, { nil: 'null' });

/** Stands for the previous line's id (none for the first line): see withEarlierIds. */
const EARLIER = '"@earlier@"';

/**
 * The lines with EARLIER replaced by the id of the line before (null in the first). The
 * replacement is a function, so that an id holding `$&` or `$'` is inserted as it is, not read
 * as a replacement pattern.
 */
const withEarlierIds = (lines: string[]) =>
  lines.map((l, i) => l.replaceAll(EARLIER, () => (i === 0 ? 'null' : JSON.stringify((JSON.parse(lines[i - 1]) as { id: string }).id))));

/** One calls.jsonl line, parts present, null or missing, keys in any order. */
const callLine = (prefix: FieldPrefix, i: number) =>
  fc
    .record({
      id: fc.oneof(fc.uuid().map((u) => JSON.stringify(u)), stringText.filter((s) => s !== '""')),
      op_name: fc.oneof(stringText.filter((s) => s !== '""'), fc.constantFrom('"weave:///e/p/op/chat:abc"', '"weave:///e/p/object/x:1"', '"plain_op"')),
      display_name: nullableString,
      started_at: datetimeText,
      ended_at: fc.option(datetimeText, { nil: null }),
      exception: nullableString,
      attributes: fc.option(objectText, { nil: undefined }),
      inputs: fc.option(objectText, { nil: undefined }),
      output: fc.option(jsonText, { nil: undefined }),
      summary: fc.option(objectText, { nil: undefined }),
      user: nullableString,
      run: nullableString,
      step: fc.constantFrom('null', '0', '7', '12345678901'),
      stepEnd: fc.option(fc.constantFrom('null', '0', '8', '12345678902'), { nil: undefined }),
      // An earlier call's id (a loaded parent), a call never loaded, or none.
      parent: fc.constantFrom('null', 'earlier', '"p"', '"p\\u00e9\\n"'),
      thread: fc.constantFrom('null', '"th"', '""', '"th\\"2"'),
      // Its own id (a turn call), an earlier call's, another, or none.
      turn: fc.constantFrom('null', 'self', 'earlier', '"turn-x"'),
      // Bodies of 64 KiB and more have no remembered part spans: they are scanned on every read.
      big: fc.constantFrom(0, 0, 0, 65_520, 65_536, 70_000),
      reversed: fc.boolean(),
    })
    .map((c) => {
      const ended = c.ended_at === null ? 'null' : JSON.stringify(c.ended_at < c.started_at ? c.started_at : c.ended_at);
      const id = `${c.id.slice(0, -1)}#${i}"`;
      const relation = (v: string) => (v === 'self' ? id : v === 'earlier' ? EARLIER : v);
      const output = c.big === 0 ? c.output : `{"pad":"${'x'.repeat(c.big)}","v":${c.output ?? 'null'}}`;
      const members: string[] = [
        `"id":${id}`,
        `"project_id":"${PROJECT}"`,
        `"op_name":${c.op_name}`,
        `"display_name":${c.display_name}`,
        `"trace_id":"t${i % 3}"`,
        `"parent_id":${relation(c.parent)}`,
        `"thread_id":${c.thread}`,
        `"turn_id":${relation(c.turn)}`,
        `"started_at":"${c.started_at}"`,
        `"ended_at":${ended}`,
        `"exception":${c.exception}`,
        `"${prefix}user_id":${c.user}`,
        `"${prefix}run_id":${c.run}`,
        `"${prefix}run_step":${c.step}`,
      ];
      if (c.stepEnd !== undefined) members.push(`"${prefix}run_step_end":${c.stepEnd}`);
      for (const part of ['attributes', 'inputs', 'summary'] as const) if (c[part] !== undefined) members.push(`"${part}":${c[part]}`);
      if (output !== undefined) members.push(`"output":${output}`);
      if (c.reversed) members.reverse();
      return `{${members.join(',')}}`;
    });

const requestOptions = fc.record(
  {
    columns: fc.subarray(['id', 'attributes', 'inputs', 'output', 'summary', 'ended_at', 'exception', 'display_name', 'parent_id', 'thread_id', 'turn_id', 'user_id', 'run_id', 'run_step', 'run_step_end', 'inputs.x']),
    include_costs: fc.boolean(),
    include_feedback: fc.boolean(),
    include_storage_size: fc.boolean(),
    include_total_storage_size: fc.boolean(),
    expand_columns: fc.constantFrom(['inputs.x'], ['output']),
    sort_by: fc.constantFrom([{ field: 'started_at', direction: 'desc' }], [{ field: 'id', direction: 'asc' }]),
  },
  { requiredKeys: [] },
);

for (const prefix of ['svc_', 'wb_'] as FieldPrefix[]) {
  test(`generated calls (${prefix}): the byte renderer writes the text renderer's lines exactly`, () => {
    fc.assert(
      fc.property(fc.array(fc.nat(), { minLength: 1, maxLength: 6 }).chain((seeds) => fc.tuple(...seeds.map((_, i) => callLine(prefix, i)))), fc.array(requestOptions, { minLength: 1, maxLength: 3 }), (lines, requests) => {
        const engine = createEngine(undefined, { fieldPrefix: prefix });
        for (const line of withEarlierIds(lines)) {
          const { projectId, record } = parseCallRecord(JSON.parse(line), prefix);
          const bytes = enc.encode(line);
          engine.store.projectForWrite(projectId).calls.load(record, bytes, 0, bytes.length);
        }
        // A budget, so that the repeated answer below is copied from the kept lines.
        engine.store.project(PROJECT)!.calls.renderedLinesBudget = 1024 * 1024;
        const ctx = grantingContext();
        for (const options of requests) {
          const body = { project_id: PROJECT, ...options, columns: options.columns?.map((c) => (c.endsWith('_id') && !c.includes('.') && c.startsWith('u') ? prefix + c : c.startsWith('run') ? prefix + c : c)) };
          const text = JSON.stringify(body);
          const expected = textCallsQueryLines(engine, text, (p) => ctx.canRead(p)).map((l) => `${l}\n`).join('');
          const result = runRoute(callsStreamQueryRoute, engine, { kind: 'text', text }, ctx);
          assert.ok(result.kind === 'stream');
          assert.equal([...result.chunks].map((c) => dec.decode(c)).join(''), expected, text);
          // Again, twice: the second run reads the remembered part spans and keeps the lines, the
          // third copies the kept lines.
          for (let i = 0; i < 2; i++) {
            const again = runRoute(callsStreamQueryRoute, engine, { kind: 'text', text }, ctx);
            assert.ok(again.kind === 'stream');
            assert.equal([...again.chunks].map((c) => dec.decode(c)).join(''), expected, text);
          }
        }
        assert.equal(engine.store.project(PROJECT)!.calls.size, lines.length);
      }),
      { numRuns: 150 },
    );
  });
}
