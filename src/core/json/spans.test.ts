import { test } from 'node:test';
import assert from 'node:assert/strict';
import { topLevelValueSpans } from './spans.testing.ts';

const values = (text: string, keys: string[]) => {
  const s = topLevelValueSpans(text, keys);
  return keys.map((_, k) => (s[2 * k] < 0 ? undefined : text.slice(s[2 * k], s[2 * k + 1])));
};

test('finds top-level values of any type, skipping nested keys of the same name', () => {
  const text = '{"a":{"inputs":1,"b":[1,{"x":"}"}]},"inputs":{"q":"a,b\\"}"},"output":null,"n":-1.5e3,"s":"x"}';
  assert.deepEqual(values(text, ['inputs', 'output', 'n', 's', 'missing']), ['{"q":"a,b\\"}"}', 'null', '-1.5e3', '"x"', undefined]);
});

test('whitespace around values is trimmed, inside kept; the last of repeated keys wins', () => {
  const text = '{ "inputs" : { "a": 1 } ,\t"output": [1, 2] , "inputs": "again" }';
  assert.deepEqual(values(text, ['inputs', 'output']), ['"again"', '[1, 2]']);
});

test('escaped keys are decoded before matching', () => {
  assert.deepEqual(values('{"in\\u0070uts":true}', ['inputs']), ['true']);
});

test('an empty object has no spans', () => {
  assert.deepEqual(values('{}', ['a']), [undefined]);
  assert.deepEqual(values(' { } ', ['a']), [undefined]);
});
