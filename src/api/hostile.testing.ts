/**
 * Test support for the hostile-input property tests (issue 11 §6): generators of bodies a
 * careless or hostile client sends (arbitrary JSON, deep nesting, huge strings, hostile keys
 * and project ids, broken text), and the check every answer must pass: no 5xx, and an error
 * body of the documented shape.
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { REASON_MAX_CHARS } from '../core/errors.ts';

/** Keys the routes know, so generated bodies get past the first checks often enough. */
export const ROUTE_KEYS = [
  'project_id', 'query', 'filter', 'sort_by', 'limit', 'offset', 'columns', 'expand_columns', 'include_costs', 'include_feedback',
  'digest', 'digests', 'row_digests', 'base_digest', 'updates', 'rows', 'object_id', 'val', 'call_id', 'call_ids', 'display_name',
  'weave_ref', 'feedback_type', 'payload', 'costs', 'thread_ids', 'id', 'trace_id', 'op_name', 'started_at', 'ended_at', 'inputs',
  'output', 'summary', 'attributes', 'parent_id', 'metadata_only', 'expected_digest', 'mode', 'req',
] as const;

const HOSTILE_KEYS = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'prototype', '', '\u0000', '\u200b', '😀', 'k'.repeat(3000), '$expr', '$getField'];

const PROJECT_IDS = ['e/p', 'e/other', 'b/x', '*', 'e/p/x', 'e/../b/x', '../x', 'e/', '/p', 'e/p\u0000', 'e/p\u200b', ' e/p', 'e/p'.repeat(400)];

const STRINGS = [
  'weave:///b/x/object/secret:latest',
  `weave:///e/p/object/o:${'a'.repeat(64)}`,
  `weave:///e/p/table/${'0'.repeat(64)}`,
  'weave:///e/p/call/c1',
  '2024-01-01T00:00:00Z',
  '\ud800',
  'x'.repeat(70_000),
  // Refs whose percent-escapes do not decode (issue 22 §1): they must stay strings, never a 500.
  'weave:///e/p/object/o%:v',
  'weave:///e/p/op/%E0%A4%A:v/attr/%zz/key/%',
  `weave:///e/p/object/${'%'.repeat(50_000)}:v`,
  // Long strings everywhere a value goes (echoed whole in a 404 before issue 22 §4).
  'e/p'.repeat(400_000),
];

const key = fc.oneof(fc.constantFrom(...ROUTE_KEYS), fc.constantFrom(...HOSTILE_KEYS), fc.string({ maxLength: 8 }));
const str = fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom(...STRINGS), fc.constantFrom(...PROJECT_IDS));
const leaf = fc.oneof(str, fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.constantFrom(-0, 1e308, 2 ** 53 + 1, -1));
const { value } = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small', maxDepth: 4 }, leaf, fc.array(tie('value'), { maxLength: 4 }), fc.dictionary(key, tie('value'), { maxKeys: 4 })),
}));

/** A JSON text nested `depth` levels, with arrays or single-key objects. */
export function nestedText(depth: number, kind: 'array' | 'object' = 'array'): string {
  return kind === 'array' ? '['.repeat(depth) + ']'.repeat(depth) : '{"a":'.repeat(depth - 1) + '{}' + '}'.repeat(depth - 1);
}

const withProject = (fields: Record<string, unknown>, project: string) => ({ project_id: project, ...fields });

/** A body text, from plausible to hostile. */
export const hostileBodyText: fc.Arbitrary<string> = fc.oneof(
  // An object with known and hostile keys, and a project id that may be malformed.
  fc.tuple(fc.dictionary(key, value, { maxKeys: 6 }), fc.constantFrom(...PROJECT_IDS)).map(([o, p]) => JSON.stringify(withProject(o, p))),
  // The envelopes of the write routes, filled with anything.
  fc.tuple(fc.constantFrom('start', 'end', 'obj', 'table', 'req'), fc.dictionary(key, value, { maxKeys: 6 }), fc.constantFrom(...PROJECT_IDS)).map(
    ([envelope, o, p]) => JSON.stringify({ [envelope]: withProject(o, p), batch: [{ mode: 'start', req: { start: withProject(o, p) } }] }),
  ),
  // Any JSON at all.
  value.map((v) => JSON.stringify(v) ?? 'null'),
  // Deep nesting around the bound, at the top or in a field.
  fc.tuple(fc.integer({ min: 995, max: 1005 }), fc.constantFrom<'array' | 'object'>('array', 'object'), fc.boolean()).map(([depth, kind, top]) =>
    top ? nestedText(depth, kind) : `{"project_id":"e/p","query":${nestedText(depth - 1, kind)}}`,
  ),
  // A huge string value or key.
  fc.integer({ min: 1, max: 300_000 }).map((n) => `{"project_id":"e/p","${'k'.repeat(n % 3 === 0 ? n : 1)}":"${'v'.repeat(n)}"}`),
  // Text that is not JSON, or JSON cut short.
  fc.string({ maxLength: 40 }),
  fc.tuple(fc.dictionary(key, value, { maxKeys: 4 }), fc.nat()).map(([o, n]) => {
    const text = JSON.stringify(withProject(o, 'e/p'));
    return text.slice(0, n % text.length);
  }),
);

/** The most an error body may weigh, whatever the input (src/core/echo.ts: the detail budget plus one issue). */
const MAX_ERROR_BODY_CHARS = 2_200_000;

/** Asserts an answer is not a 5xx and that an error body has its documented shape. */
export function assertAnswer(status: number, body: unknown, context: string): void {
  assert.ok(status < 500, `${context}: status ${status} ${JSON.stringify(body)?.slice(0, 300)}`);
  if (status < 400) return;
  assert.ok(body !== null && typeof body === 'object' && !Array.isArray(body), `${context}: error body is not an object`);
  const text = JSON.stringify(body);
  assert.ok(text.length <= MAX_ERROR_BODY_CHARS, `${context}: error body of ${text.length} characters`);
  if (status === 422) {
    const detail = (body as { detail?: unknown }).detail;
    assert.ok(Array.isArray(detail) && detail.length > 0, `${context}: 422 without detail`);
    for (const d of detail as Array<Record<string, unknown>>) {
      assert.equal(typeof d.type, 'string', context);
      assert.equal(typeof d.msg, 'string', context);
      assert.ok(Array.isArray(d.loc) && d.loc.every((p) => typeof p === 'string' || typeof p === 'number'), context);
    }
  } else {
    assert.deepEqual(Object.keys(body as object), ['reason'], context);
    const reason = (body as { reason: unknown }).reason;
    assert.equal(typeof reason, 'string', context);
    // Every echo in a reason is bounded (src/core/errors.ts REASON_MAX_CHARS, plus the `…`).
    assert.ok((reason as string).length <= REASON_MAX_CHARS + 1, `${context}: reason of ${(reason as string).length} characters`);
  }
}
