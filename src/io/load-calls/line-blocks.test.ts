import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { forEachLineOf } from '../lines.ts';
import { forEachLineIn, LineBlocks } from './line-blocks.ts';

/** The lines as forEachLineIn gives them from LineBlocks fed `chunks`, as [line, text]. */
function viaBlocks(chunks: Buffer[], size: number, end: 'finish' | 'flush'): Array<[number, string]> {
  const out: Array<[number, string]> = [];
  let next = 1;
  const blocks = new LineBlocks(size, (block, length) => {
    assert.ok(end === 'finish' || block[length - 1] === 0x0a, 'a block ends after a newline');
    next = forEachLineIn(block, length, next, (s, e, line) => out.push([line, block.toString('latin1', s, e)]));
  });
  for (const c of chunks) blocks.push(c);
  if (end === 'finish') blocks.finish();
  else blocks.flushWholeLines();
  return out;
}

async function viaForEachLineOf(chunks: Buffer[]): Promise<Array<[number, string]>> {
  const out: Array<[number, string]> = [];
  await forEachLineOf(chunks, ({ buf, start, end, line }) => void out.push([line, buf.toString('latin1', start, end)]));
  return out;
}

test('property: blocks of whole lines give the lines forEachLineOf gives, whatever the chunks and block size', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.string({ unit: fc.constantFrom('a', 'b', ' ', '\t', '\r', '\n', '{', '"'), maxLength: 200 }),
      fc.array(fc.nat(), { maxLength: 10 }),
      fc.integer({ min: 1, max: 40 }),
      async (text, cuts, size) => {
        const bytes = Buffer.from(text, 'latin1');
        const at = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
        const chunks = [0, ...at].map((from, i) => bytes.subarray(from, i < at.length ? at[i] : bytes.length));
        assert.deepEqual(viaBlocks(chunks, size, 'finish'), await viaForEachLineOf(chunks));
        // Cut short (a read error): every line that ends in a newline, nothing after.
        const whole = text.slice(0, text.lastIndexOf('\n') + 1);
        assert.deepEqual(viaBlocks(chunks, size, 'flush'), await viaForEachLineOf([Buffer.from(whole, 'latin1')]));
      },
    ),
    { numRuns: 500 },
  );
});

test('a line longer than the block grows the block', () => {
  const long = 'x'.repeat(100);
  assert.deepEqual(viaBlocks([Buffer.from(`a\n${long}\nb`)], 8, 'finish'), [[1, 'a'], [2, long], [3, 'b']]);
});
