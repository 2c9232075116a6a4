import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { CALL_LINE_FIELDS, CallLineScan, FIELD, FLAG, KIND } from './line-scan.ts';
import { editedCallObject } from './line-scan.testing.ts';

const scanner = new CallLineScan();
const scan = (text: string) => {
  const buf = Buffer.from(text, 'utf8');
  return { ok: scanner.scan(buf, 0, buf.length), buf };
};
const span = (buf: Buffer, field: keyof typeof FIELD) => buf.toString('utf8', scanner.starts[FIELD[field]], scanner.ends[FIELD[field]]);

test('reads the fields and the spans of the parts, whitespace and unknown keys around them', () => {
  const { ok, buf } = scan(' { "id" : "a\\"b" ,"x":[1,{"id":2}],\t"inputs":{ "q" : [ 1 , 2 ] } , "output":-1.5e+3,"summary":null,"svc_run_step":true } ');
  assert.ok(ok);
  assert.equal(scanner.kinds[FIELD.id], KIND.ESCAPED_STRING);
  assert.equal(span(buf, 'id'), '"a\\"b"');
  assert.equal(span(buf, 'inputs'), '{ "q" : [ 1 , 2 ] }');
  assert.equal(scanner.kinds[FIELD.inputs], KIND.OBJECT);
  assert.equal(span(buf, 'output'), '-1.5e+3');
  assert.equal(scanner.kinds[FIELD.output], KIND.NUMBER);
  assert.equal(scanner.kinds[FIELD.summary], KIND.NULL);
  assert.equal(scanner.kinds[FIELD.svc_run_step], KIND.TRUE);
  assert.equal(scanner.kinds[FIELD.trace_id], KIND.ABSENT);
});

test('flags parts holding strings that may be refs (escaped ones included), not keys', () => {
  assert.ok(scan('{"inputs":{"weave:///e/p/object/o:v":1},"output":["weave:///e/p/object/o:v"]}').ok);
  assert.equal(scanner.flags[0], FLAG.OUTPUT_REFS);
  assert.ok(scan('{"inputs":{"a":"weave-trace-internal:///p/call/x"},"output":"wandb-artifact:///x"}').ok);
  assert.equal(scanner.flags[0], FLAG.INPUTS_REFS | FLAG.OUTPUT_REFS);
  assert.ok(scan('{"inputs":{"a":"\\u0077eave:///e/p/object/o:v"},"output":{"a":"weird"}}').ok);
  assert.equal(scanner.flags[0], FLAG.INPUTS_REFS);
  assert.ok(scan('{"attributes":{"a":"weave:///e/p/object/o:v"},"summary":{"a":"weave:///e/p/object/o:v"}}').ok);
  assert.equal(scanner.flags[0], 0);
});

test('reads summary.status_counts.error as errorCount would: the last key wins, only numbers count', () => {
  const error = (summary: string) => (assert.ok(scan(`{"summary":${summary}}`).ok), scanner.errorCounts[0]);
  assert.equal(error('{"status_counts":{"success":1,"error":2}}'), 2);
  assert.equal(error('{"status_counts":{"error":2,"error":"x"}}'), NaN);
  assert.equal(error('{"status_counts":{"error":2},"status_counts":{"success":1}}'), NaN);
  assert.equal(error('{"status_counts":{"error":{"error":1}},"x":{"error":3}}'), NaN);
  assert.equal(error('{"a":{"status_counts":{"error":3}},"status_counts":[{"error":1}]}'), NaN);
  assert.equal(error('{"status_counts":{"error":-0.5e1}}'), -5);
  assert.equal(error('{"status_counts":{"x":[1,{"error":1}],"error":1e400}}'), Infinity);
});

test('answers false (slow path) for what it does not take', () => {
  for (const text of [
    '{"id":"a","id":"b"}', // a repeated field
    '{"i\\u0064":"a"}', // an escaped top-level key
    '{"summary":{"status_\\u0063ounts":{"error":1}}}', // an escaped key on the summary path
    '{"inputs":' + '['.repeat(300) + ']'.repeat(300) + '}', // deep nesting
  ]) {
    assert.equal(scan(text).ok, false, text);
    assert.doesNotThrow(() => JSON.parse(text));
  }
});

test('rejects invalid JSON', () => {
  for (const text of [
    '', '[]', '"x"', '{', '{"a"}', '{"a":}', '{"a":1,}', '{"a":1 "b":2}', '{,"a":1}', '{"a":[1,]}', '{"a":[,1]}', '{"a":{1:2}}',
    '{"a":{"b":1,}}', '{"a":01}', '{"a":1.}', '{"a":.5}', '{"a":1e}', '{"a":-}', '{"a":+1}', '{"a":tru}', '{"a":nul}', '{"a":"\x01"}',
    '{"a":"\\x"}', '{"a":"\\u12g4"}', '{"a":"\\u12"}', '{"a":"x}', '{"a":1}}', '{"a":1} x', '{"a":[1}', '{"a":{"b":1]}', '{"a":NaN}', "{'a':1}",
  ]) assert.equal(scan(text).ok, false, JSON.stringify(text));
});

/** JSON-significant characters, to make near-JSON strings. */
const jsonish = fc.string({ unit: fc.constantFrom(...'{}[]":,\\ \t0123456789-+.eEtrufalsn"ab\u0001\u00e9'.split('')), maxLength: 40 });
/** A JSON text of an object with call fields, then an edit that may break it. */
const callish = editedCallObject(fc.jsonValue({ maxDepth: 3 }), jsonish, 8);

test('property: whatever it accepts JSON.parse accepts, as an object whose fields are the spans it found', () => {
  fc.assert(
    fc.property(fc.oneof(jsonish.map((s) => '{' + s), callish), (text) => {
      const { ok, buf } = scan(text);
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        assert.equal(ok, false, 'accepted invalid JSON');
        return;
      }
      if (!ok) {
        // Refused valid JSON only for what the scanner leaves to the slow path.
        const fields = [...text.matchAll(/"((?:[^"\\]|\\.)*)"\s*:/g)];
        const reason = typeof parsed !== 'object' || parsed === null || Array.isArray(parsed) || text.includes('\\') || fields.length !== new Set(fields.map((m) => m[1])).size;
        assert.ok(reason, `refused ${text}`);
        return;
      }
      const obj = parsed as Record<string, unknown>;
      for (let f = 0; f < CALL_LINE_FIELDS.length; f++) {
        const name = CALL_LINE_FIELDS[f];
        if (scanner.kinds[f] === KIND.ABSENT) assert.equal(name in obj, false, name);
        else assert.deepEqual(JSON.parse(buf.toString('utf8', scanner.starts[f], scanner.ends[f])), obj[name], name);
      }
      const counts = (obj.summary as { status_counts?: { error?: unknown } } | null)?.status_counts;
      const expected = counts !== null && typeof counts === 'object' && typeof counts.error === 'number' ? counts.error : NaN;
      if (scanner.kinds[FIELD.summary] === KIND.OBJECT) assert.equal(scanner.errorCounts[0], expected);
    }),
    { numRuns: 3000 },
  );
});
