import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { OneShotGate, OneShotGateGaveUp, oneShotGateSpec, SCREENED } from './one-shot-gate.ts';
import type { CallLinePrescan } from './scanned-call.ts';

/** What a gate said of each line, where it gave up, and the lines its top-k kept. */
function run(gate: OneShotGate, hashes: Array<[number, number]>, lengths: number[], started: Float64Array): { stored: boolean[]; gaveUpAt: number; kept: number[] } {
  // screened() reads only started_at (micros) from a candidate's prescan.
  const prescan = { micros: new Float64Array(3 * hashes.length) } as unknown as CallLinePrescan;
  for (let i = 0; i < hashes.length; i++) prescan.micros[3 * i] = started[i];
  const bytes = Buffer.alloc(2000, 0x61);
  const stored: boolean[] = [];
  try {
    for (let i = 0; i < hashes.length; i++) {
      const verdict = i % 3 === 0 ? SCREENED.LEFT_OUT : SCREENED.CANDIDATE;
      stored.push(gate.screened(verdict, hashes[i][0], hashes[i][1], prescan, i, bytes, 0, lengths[i], i + 1));
    }
  } catch (e) {
    if (!(e instanceof OneShotGateGaveUp)) throw e;
    return { stored, gaveUpAt: stored.length, kept: gate.keptLines().map((k) => k.line) };
  }
  return { stored, gaveUpAt: -1, kept: gate.keptLines().map((k) => k.line) };
}

test('property: an id set sized from the file (any estimate, right or wrong) finds the same duplicates and keeps the same rows as one that only doubles', () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 4000, max: 12_000 }),
      fc.option(fc.nat(), { nil: undefined }),
      fc.nat(),
      fc.constantFrom(0, 1, 1000, 1_000_000, 50_000_000, 4e9),
      fc.integer({ min: 1, max: 3000 }),
      fc.boolean(),
      (count, duplicateOf, duplicateAt, fileBytes, lineBytes, topK) => {
        const rand = fc.sample(fc.tuple(fc.integer(), fc.integer()), { numRuns: count, seed: count });
        const hashes = rand.map(([a, b]) => [a, b === 0 && a === 0 ? 1 : b] as [number, number]);
        if (duplicateOf !== undefined) {
          const from = duplicateOf % count, to = duplicateAt % count;
          if (from !== to) hashes[Math.max(from, to)] = [...hashes[Math.min(from, to)]] as [number, number];
        }
        const lengths = hashes.map((_, i) => 1 + ((lineBytes * (i + 7)) % 2000));
        const started = Float64Array.from(hashes, (_, i) => (i * 7919) % 1000);
        const spec = oneShotGateSpec(topK ? { project_id: 'p/q', limit: 5 } : { project_id: 'p/q' })!;
        const doubling = run(new OneShotGate(spec), hashes, lengths, started);
        const sizedGate = new OneShotGate(spec);
        if (fileBytes > 0) sizedGate.expectFileBytes(fileBytes);
        assert.deepEqual(run(sizedGate, hashes, lengths, started), doubling);
        // Both gates found every duplicate: the hash set is exact for distinct hashes.
        const seen = new Set<string>();
        let firstRepeat = -1;
        for (let i = 0; i < hashes.length && firstRepeat < 0; i++) {
          const key = hashes[i].join();
          if (seen.has(key)) firstRepeat = i;
          seen.add(key);
        }
        assert.equal(doubling.gaveUpAt, firstRepeat < 0 ? -1 : firstRepeat);
      },
    ),
    { numRuns: 40 },
  );
});
