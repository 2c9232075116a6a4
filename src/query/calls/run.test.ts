import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createEngine } from '../../engine.ts';
import { parseCallRecord } from '../../load/calls/call-record.ts';
import { callsStreamQueryRoute } from './route.ts';

const ctx = { userId: 't', authorize() {}, canRead: () => true };

function engineWithX(x: unknown) {
  const engine = createEngine();
  const rec = { id: 'a', project_id: 'e/p', op_name: 'op', trace_id: 't', started_at: '2024-01-01T00:00:00Z', inputs: { x } };
  const { projectId, record } = parseCallRecord(rec, 'svc_');
  const bytes = Buffer.from(JSON.stringify(rec));
  engine.store.projectForWrite(projectId).calls.load(record, bytes, 0, bytes.length);
  return engine;
}

const idsFor = (text: string, x: unknown) => {
  const result = callsStreamQueryRoute.run(engineWithX(x), { kind: 'text', text }, ctx);
  assert.equal(result.kind, 'stream');
  return [...(result as { lines: Iterable<string> }).lines].map((l) => (JSON.parse(l) as { id: string }).id);
};

test('semantics.md#calls-expr-compare: a float literal written 5.0 casts the field to double, an int literal 5 to int', () => {
  const body = (lit: string) => `{"project_id":"e/p","query":{"$expr":{"$gt":[{"$getField":"inputs.x"},{"$literal":${lit}}]}}}`;
  // toFloat64OrNull('5.5') = 5.5 > 5.0; toInt64OrNull('5.5') is NULL, so the int form drops the row.
  assert.deepEqual(idsFor(body('5.0'), '5.5'), ['a']);
  assert.deepEqual(idsFor(body('5'), '5.5'), []);
});

test('a request body that is not JSON is a 422 json_invalid at Python\'s position', () => {
  assert.throws(
    () => callsStreamQueryRoute.run(engineWithX(1), { kind: 'text', text: '{"project_id": "e/p",}' }, ctx),
    (e: { status: number; body(): unknown }) => {
      assert.equal(e.status, 422);
      assert.deepEqual(e.body(), {
        detail: [{ type: 'json_invalid', loc: ['body', 21], msg: 'JSON decode error', input: {}, ctx: { error: 'Expecting property name enclosed in double quotes' } }],
      });
      return true;
    },
  );
});

test('an $in on id naming one id twice returns that call once (the index lookup de-duplicates)', () => {
  const query = '"query":{"$expr":{"$in":[{"$getField":"id"},[{"$literal":"a"},{"$literal":"a"}]]}}';
  assert.deepEqual(idsFor(`{"project_id":"e/p",${query}}`, 1), ['a']);
  // Sorted by a JSON field: the rows are collected and sorted, not walked in start order.
  assert.deepEqual(idsFor(`{"project_id":"e/p",${query},"sort_by":[{"field":"inputs.x","direction":"asc"}]}`, 1), ['a']);
});
