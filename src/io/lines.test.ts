import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { forEachLineOf } from './lines.ts';

async function linesOf(source: Parameters<typeof forEachLineOf>[0]): Promise<Array<[number, string]>> {
  const seen: Array<[number, string]> = [];
  await forEachLineOf(source, ({ buf, start, end, line }) => seen.push([line, buf.toString('utf8', start, end)]));
  return seen;
}

test('forEachLineOf splits a string: CRLF and LF endings, blank lines skipped but counted, no final newline', async () => {
  assert.deepEqual(await linesOf('{"a":1}\r\n\n  \t\n{"b":2}\n{"c":3}'), [
    [1, '{"a":1}'],
    [4, '{"b":2}'],
    [5, '{"c":3}'],
  ]);
  assert.deepEqual(await linesOf(''), []);
});

test('forEachLineOf reads bytes that are not a Buffer, and only the bytes of their view', async () => {
  const backing = new TextEncoder().encode('xx"é"\n"ü"yy');
  assert.deepEqual(await linesOf(backing.subarray(2, backing.length - 2)), [
    [1, '"é"'],
    [2, '"ü"'],
  ]);
});

test('forEachLineOf joins lines split across chunks of a stream, bytes or strings, a character split too', async () => {
  const bytes = Buffer.from('"héllo"\n"wörld"\n');
  const cut = bytes.indexOf(0xc3) + 1; // inside the two bytes of é
  const chunks = [bytes.subarray(0, cut), bytes.subarray(cut, cut + 3), bytes.subarray(cut + 3)];
  assert.deepEqual(await linesOf(Readable.from(chunks)), [
    [1, '"héllo"'],
    [2, '"wörld"'],
  ]);
  async function* text() {
    yield '{"a":';
    yield '1}\n{"b"';
    yield ':2}';
  }
  assert.deepEqual(await linesOf(text()), [
    [1, '{"a":1}'],
    [2, '{"b":2}'],
  ]);
  assert.deepEqual(await linesOf(['a\n', 'b']), [
    [1, 'a'],
    [2, 'b'],
  ]);
});
