import assert from 'node:assert/strict';
import { test } from 'node:test';
import { JsonLineWriter } from '../core/json/line-writer.ts';
import { byteStream, countNewlines, decodeLines, lineStream, rowChunks } from './line-stream.ts';

const enc = new TextEncoder();
const dec = new TextDecoder();

test('lineStream: string lines become chunks of whole newline-terminated lines, also lines larger than a chunk', () => {
  const lines = ['{"a":1}', JSON.stringify({ big: 'é'.repeat(300) }), '{"b":"😀"}', '{}'];
  const result = lineStream(lines, new JsonLineWriter(64));
  const chunks = [...result.chunks];
  assert.ok(chunks.length >= 2, `${chunks.length} chunks`);
  for (const c of chunks) assert.equal(c[c.length - 1], 0x0a);
  assert.equal(chunks.map((c) => dec.decode(c)).join(''), lines.map((l) => `${l}\n`).join(''));
  assert.deepEqual([...lineStream(lines).lines], lines);
  assert.deepEqual([...lineStream([]).chunks], []);
});

test('rowChunks is lazy and closes its source when the consumer stops', () => {
  let written = 0;
  let closed = false;
  const rows = (function* () {
    try {
      for (let i = 0; i < 1000; i++) yield i;
    } finally {
      closed = true;
    }
  })();
  const it = rowChunks(rows, (i, w) => (written++, w.num(i)), new JsonLineWriter(8))[Symbol.iterator]();
  assert.equal(dec.decode(it.next().value as Uint8Array), '0\n1\n2\n3\n');
  assert.equal(written, 4);
  it.return!();
  assert.equal(closed, true);
});

test('decodeLines joins a line split across chunks; countNewlines counts lines', () => {
  const parts = ['{"a":"x', 'y"}\n{"b":', '2}\n', '{"c":3}'].map((p) => enc.encode(p));
  assert.deepEqual([...decodeLines(parts)], ['{"a":"xy"}', '{"b":2}', '{"c":3}']);
  assert.deepEqual([...byteStream(parts).lines], ['{"a":"xy"}', '{"b":2}', '{"c":3}']);
  assert.equal(countNewlines(enc.encode('a\nb\n\n')), 3);
  assert.equal(countNewlines(enc.encode('')), 0);
});

test('countNewlines and decodeLines read only the bytes of a view (its offset and length), not the rest of its buffer', () => {
  // Newlines before and after the view, inside one ArrayBuffer, as a writer's taken chunk is.
  const whole = enc.encode('\n\n{"a":1}\n{"b":2}\n\n\n');
  const view = whole.subarray(2, 18);
  assert.equal(new TextDecoder().decode(view), '{"a":1}\n{"b":2}\n');
  assert.equal(countNewlines(view), 2);
  assert.deepEqual([...decodeLines([view])], ['{"a":1}', '{"b":2}']);
  assert.equal(countNewlines(whole.subarray(2, 9)), 0);
  assert.deepEqual([...decodeLines([whole.subarray(2, 9), whole.subarray(9, 18)])], ['{"a":1}', '{"b":2}']);
});
