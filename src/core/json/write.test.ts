import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LosslessNumber, LosslessObject, type LosslessValue } from './value.ts';
import { parseLossless } from './parse.ts';
import { dumpCompact } from './write.ts';
import { pyDumps } from './pyjson.ts';

/** `[[[...1...]]]` nested `depth` times, as a lossless value and as the text it must write. */
function nested(depth: number): { value: LosslessValue; text: string } {
  let value: LosslessValue = new LosslessNumber('1.0');
  for (let i = 0; i < depth; i++) value = i % 2 === 0 ? [value] : new LosslessObject([['k', value]]);
  const open = Array.from({ length: depth }, (_, i) => (depth - 1 - i) % 2 === 0 ? '[' : '{"k":').join('');
  const close = Array.from({ length: depth }, (_, i) => (i % 2 === 0 ? ']' : '}')).join('');
  return { value, text: open + '1.0' + close };
}

test('writeJson: shallow and deep values write the same text on both sides of the recursion bound', () => {
  for (const depth of [0, 1, 63, 64, 65, 66, 200, 100_000]) {
    const { value, text } = nested(depth);
    assert.equal(dumpCompact(value), text, `depth ${depth}`);
  }
  // A deep part inside a wide value: the whole value is written again by the iterative writer.
  const wide = new LosslessObject([['a', [new LosslessNumber('1'), 'x']], ['deep', nested(70).value], ['z', null]]);
  assert.equal(pyDumps(wide), `{"a": [1, "x"], "deep": ${pyDumps(nested(70).value)}, "z": null}`);
  assert.equal(dumpCompact(parseLossless('{"b":[1,{"c":true}],"a":"\\u00e9"}')), '{"b":[1,{"c":true}],"a":"é"}');
});

test('writeJson: a cycle is a TypeError, however deep it starts', () => {
  const list: LosslessValue[] = [];
  list.push(list);
  assert.throws(() => dumpCompact(list), { name: 'TypeError', message: 'Circular reference detected' });
  const entries: Array<[string, LosslessValue]> = [];
  const obj = new LosslessObject(entries);
  entries.push(['self', [nested(80).value, obj]]);
  assert.throws(() => dumpCompact(obj), { name: 'TypeError', message: 'Circular reference detected' });
});

test('writeJson: a value that is not a lossless one is a TypeError at any depth', () => {
  assert.throws(() => dumpCompact([1 as unknown as LosslessValue]), { name: 'TypeError', message: 'not a lossless JSON value: [object Number]' });
  let deep: LosslessValue = [{ x: 1 } as unknown as LosslessValue];
  for (let i = 0; i < 100; i++) deep = [deep];
  assert.throws(() => dumpCompact(deep), { name: 'TypeError', message: 'not a lossless JSON value: [object Object]' });
});
