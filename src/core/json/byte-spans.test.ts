import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { topLevelValueByteSpans } from './byte-spans.ts';
import { topLevelValueSpans } from './spans.testing.ts';

const enc = new TextEncoder();
const dec = new TextDecoder();

/** The values' texts, found in the bytes of `text` placed at an offset inside a larger buffer. */
const values = (text: string, keys: string[]) => {
  const body = enc.encode(text);
  const b = new Uint8Array(body.length + 7).fill(0x7b); // stray braces around: the range must bound the scan
  b.set(body, 3);
  const out = new Int32Array(keys.length * 2);
  topLevelValueByteSpans(b, 3, 3 + body.length, keys.map((k) => enc.encode(k)), out);
  return keys.map((_, k) => (out[2 * k] < 0 ? undefined : dec.decode(body.subarray(out[2 * k], out[2 * k + 1]))));
};

test('finds top-level values of any type, skipping nested keys of the same name', () => {
  const text = '{"a":{"inputs":1,"b":[1,{"x":"}"}]},"inputs":{"q":"a,b\\"}"},"output":null,"n":-1.5e3,"s":"x"}';
  assert.deepEqual(values(text, ['inputs', 'output', 'n', 's', 'missing']), ['{"q":"a,b\\"}"}', 'null', '-1.5e3', '"x"', undefined]);
});

test('whitespace around values is trimmed, inside kept; the last of repeated keys wins', () => {
  const text = '{ "inputs" : { "a": 1 } ,\t"output": [1, 2] , "inputs": "again" }';
  assert.deepEqual(values(text, ['inputs', 'output']), ['"again"', '[1, 2]']);
});

test('escaped keys are decoded before matching; a backslash before a quote ends nothing', () => {
  assert.deepEqual(values('{"in\\u0070uts":true}', ['inputs']), ['true']);
  assert.deepEqual(values('{"a\\\\":"x\\\\","inputs":"\\"}"}', ['inputs', 'a\\']), ['"\\"}"', '"x\\\\"']);
});

test('multi-byte UTF-8 inside keys and values, spans in bytes', () => {
  assert.deepEqual(values('{"ké":"é😀","inputs":{"😀":"\u2028"}}', ['inputs', 'ké']), ['{"😀":"\u2028"}', '"é😀"']);
});

test('an empty object has no spans', () => {
  assert.deepEqual(values('{}', ['a']), [undefined]);
  assert.deepEqual(values(' { } ', ['a']), [undefined]);
});

test('agrees with the text scanner on generated objects', () => {
  const keys = ['attributes', 'inputs', 'output', 'summary'];
  const key = fc.oneof(fc.constantFrom(...keys), fc.string(), fc.string({ unit: 'binary', maxLength: 4 }));
  const object = fc.array(fc.tuple(key, fc.jsonValue({ maxDepth: 3 })), { maxLength: 6 });
  fc.assert(
    fc.property(object, fc.boolean(), (pairs, spaced) => {
      // Written by hand so repeated keys stay repeated (JSON.stringify of an object would merge them).
      const sep = spaced ? ' , ' : ',';
      const text = `{${pairs.map(([k, v]) => `${JSON.stringify(k)}${spaced ? ' : ' : ':'}${JSON.stringify(v, null, spaced ? 1 : 0)}`).join(sep)}}`;
      const s = topLevelValueSpans(text, keys);
      const expected = keys.map((_, k) => (s[2 * k] < 0 ? undefined : text.slice(s[2 * k], s[2 * k + 1])));
      assert.deepEqual(values(text, keys), expected);
    }),
    { numRuns: 300 },
  );
});
