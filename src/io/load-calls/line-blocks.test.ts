import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { forEachLineOf } from '../lines.ts';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { forEachLineIn, LineBlocks, readLineBlocks } from './line-blocks.ts';

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

/** A FileHandle over `bytes` whose reads return at most `step` bytes, and fail at `failAt` (if any). */
function fakeHandle(bytes: Buffer, step: number, failAt = Infinity): FileHandle {
  let at = 0;
  return {
    read: async (buffer: Buffer, offset: number, length: number) => {
      await Promise.resolve();
      if (at >= failAt) throw Object.assign(new Error('EIO: i/o error, read'), { code: 'EIO' });
      const n = Math.min(length, step, bytes.length - at, failAt - at);
      bytes.copy(buffer, offset, at, at + n);
      at += n;
      return { bytesRead: n, buffer };
    },
  } as unknown as FileHandle;
}

/** The lines as forEachLineIn gives them from readLineBlocks over `handle`, the bytes read, and a read error's message. */
async function readLines(handle: FileHandle, size: number): Promise<{ lines: Array<[number, string]>; read: number; error: string | null }> {
  const lines: Array<[number, string]> = [];
  let read = 0, error: string | null = null, next = 1, ended = false;
  try {
    await readLineBlocks(handle, size, async (block, length) => {
      await Promise.resolve();
      assert.ok(!ended, 'only the last block may end without a newline');
      ended = block[length - 1] !== 0x0a;
      next = forEachLineIn(block, length, next, (s, e, line) => lines.push([line, block.toString('latin1', s, e)]));
    }, (n) => (read += n));
  } catch (e) {
    error = (e as Error).message;
  }
  return { lines, read, error };
}

test('property: readLineBlocks gives the lines forEachLineOf gives, whatever the read and block sizes; after a read error, the whole lines read before it', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.string({ unit: fc.constantFrom('a', 'b', ' ', '\r', '\n', '\n', '"'), maxLength: 300 }),
      fc.integer({ min: 1, max: 40 }),
      fc.integer({ min: 1, max: 64 }),
      fc.option(fc.nat(), { nil: undefined }),
      async (text, size, step, failAt) => {
        const bytes = Buffer.from(text, 'latin1');
        assert.deepEqual(await readLines(fakeHandle(bytes, step), size), { lines: await viaForEachLineOf([bytes]), read: bytes.length, error: null });
        if (failAt === undefined || bytes.length === 0) return;
        const cut = failAt % bytes.length;
        const before = bytes.subarray(0, cut === 0 ? 0 : bytes.lastIndexOf(0x0a, cut - 1) + 1);
        assert.deepEqual(await readLines(fakeHandle(bytes, step, cut), size), { lines: await viaForEachLineOf([before]), read: cut, error: 'EIO: i/o error, read' });
      },
    ),
    { numRuns: 500 },
  );
});

test('readLineBlocks over a real file: the blocks of 1 MB of lines, long ones growing the block', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tq-line-blocks-'));
  try {
    const lines = Array.from({ length: 3000 }, (_, i) => (i % 500 === 7 ? 'L'.repeat(70_000) : `{"n":${i},"pad":"${'p'.repeat(i % 600)}"}`));
    const bytes = Buffer.from(lines.join('\n') + '\n', 'latin1');
    writeFileSync(join(dir, 'f'), bytes);
    const handle = await open(join(dir, 'f'), 'r');
    try {
      const got = await readLines(handle, 64 << 10);
      assert.deepEqual(got, { lines: lines.map((text, i) => [i + 1, text]), read: bytes.length, error: null });
    } finally {
      await handle.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
