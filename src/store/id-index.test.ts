import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { IdHash, idHashSeed, IdIndex } from './id-index.ts';
import { CollidingIdHash } from './id-index.testing.ts';

const utf8 = (s: string) => Buffer.from(s, 'utf8');

test('IdHash: a string hashes as its UTF-8 bytes (ASCII, non-ASCII, lone surrogates), never to (0, 0)', () => {
  const fromString = new IdHash(), fromBytes = new IdHash();
  fc.assert(
    fc.property(fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)) }), fc.uuid()), (id) => {
      fromString.string(id);
      const bytes = utf8(id);
      // Somewhere inside a larger buffer, as a scanned line holds it.
      const line = Buffer.concat([utf8('{"id":"'), bytes, utf8('"}')]);
      fromBytes.bytes(line, 7, 7 + bytes.length);
      assert.deepEqual([fromString.a, fromString.b], [fromBytes.a, fromBytes.b]);
      assert.ok(fromString.a !== 0 || fromString.b !== 0);
    }),
    { numRuns: 500 },
  );
  // Different ids, different hashes (what keeps the probes short).
  const seen = new Set<string>();
  const h = new IdHash();
  for (let i = 0; i < 20000; i++) {
    h.string(`call-${i}`);
    seen.add(`${h.a},${h.b}`);
  }
  assert.equal(seen.size, 20000);
});

test('IdHash starts from a seed: the same seed, the same hash; another seed, another one (ids a client picks cannot be aimed at one probe run)', () => {
  const ids = ['call-1', '0192f0a4-7c3e-7d2a-9b1e-5f6a7b8c9d0e', 'é', ''];
  const hashOf = (h: IdHash, id: string) => (h.string(id), [h.a, h.b]);
  // The default is this thread's seed, the one a load's worker is given.
  for (const id of ids) assert.deepEqual(hashOf(new IdHash(), id), hashOf(new IdHash(idHashSeed()), id));
  const s1 = new IdHash([1, 2]), s1again = new IdHash([1, 2]), s2 = new IdHash([1, 3]), s3 = new IdHash([7, 2]);
  for (const id of ids) {
    assert.deepEqual(hashOf(s1, id), hashOf(s1again, id));
    assert.notDeepEqual(hashOf(s1, id), hashOf(s2, id));
    assert.notDeepEqual(hashOf(s1, id), hashOf(s3, id));
  }
  // The slot a probe starts from (the low bits of `a`) moves with the seed too.
  let moved = 0;
  for (let i = 0; i < 1000; i++) if ((hashOf(s1, `call-${i}`)[0] & 1023) !== (hashOf(s3, `call-${i}`)[0] & 1023)) moved++;
  assert.ok(moved > 990, `${moved} of 1000 start slots moved`);
});

type Op = { kind: 'set'; id: number; row: number } | { kind: 'get'; id: number } | { kind: 'hashed'; id: number; given: boolean };

/**
 * The index against a Map, through random sets (new ids and repeats), lookups of stored and
 * absent ids, and hashed lookups, under the real hash and two colliding ones (every id in one
 * bucket, or a few).
 */
test('IdIndex answers as a Map of id → row does, also when ids share a hash', () => {
  const ids = (n: number) => Array.from({ length: n }, (_, i) => (i % 3 === 0 ? `é${i}` : i % 3 === 1 ? `id-${i}` : `${i}`));
  const op: fc.Arbitrary<Op> = fc.oneof(
    fc.record({ kind: fc.constant('set' as const), id: fc.nat(400), row: fc.nat(5000) }),
    fc.record({ kind: fc.constant('get' as const), id: fc.nat(400) }),
    fc.record({ kind: fc.constant('hashed' as const), id: fc.nat(400), given: fc.boolean() }),
  );
  for (const makeHash of [() => new IdHash(), () => new CollidingIdHash(1), () => new CollidingIdHash(3)]) {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 3000 }), (ops) => {
        const names = ids(401);
        // The table's id column: row → id (set() stores the id at its row first, as a call table does).
        const column = new Map<number, string>();
        const hash = makeHash();
        const index = new IdIndex((row) => column.get(row)!, hash);
        const expected = new Map<string, number>();
        const scanner = makeHash();
        for (const o of ops) {
          const id = names[o.id];
          if (o.kind === 'set') {
            // Rows are unique per id in a call table: a row number is never reused for another id.
            const row = expected.get(id) ?? o.row + 10000 * o.id;
            column.set(row, id);
            index.set(id, row);
            expected.set(id, row);
          } else if (o.kind === 'get') {
            assert.equal(index.get(id), expected.get(id));
            assert.equal(index.has(id), expected.has(id));
          } else {
            // A scanning thread's hash of the bytes, or none ((0, 0)).
            const bytes = utf8(id);
            scanner.bytes(bytes, 0, bytes.length);
            const row = o.given ? index.rowOfHashed(id, scanner.a, scanner.b) : index.rowOfHashed(id, 0, 0);
            assert.equal(row, expected.get(id) ?? -1);
          }
          assert.equal(index.size, expected.size);
        }
        assert.deepEqual([...index], [...expected].sort((x, y) => x[1] - y[1]));
      }),
      { numRuns: 60 },
    );
  }
});

test('IdIndex grows past its first slots without losing an id (ids in one hash bucket included)', () => {
  for (const hash of [new IdHash(), new CollidingIdHash(5)]) {
    const n = hash instanceof CollidingIdHash ? 3000 : 100_000;
    const column: string[] = [];
    const index = new IdIndex((row) => column[row], hash);
    for (let row = 0; row < n; row++) {
      column.push(`c${row}`);
      assert.equal(index.get(`c${row}`), undefined);
      index.set(`c${row}`, row);
    }
    assert.equal(index.size, n);
    for (let row = 0; row < n; row++) assert.equal(index.get(`c${row}`), row);
    assert.equal(index.get(`c${n}`), undefined);
  }
});

