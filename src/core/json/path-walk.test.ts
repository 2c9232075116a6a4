import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { MemberSpans, pathSteps, type PathStep } from './path-extract.ts';
import { pathWalkMemoryBytes, pathWalkWasmAvailable, RowMemberWalk, usePathWalkWasm } from './path-walk.ts';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const encoder = new TextEncoder();
const keyStep = (k: string): PathStep => pathSteps([k], () => false)![0];

/**
 * A table of rows stored as one arena would: each row's bytes between other bytes (what sits
 * around a part must not leak into it), some rows without the part (null).
 */
function table(bodies: ReadonlyArray<Uint8Array | null>, filler: number, gaps?: readonly number[]) {
  const chunks: Array<Uint8Array | null> = [];
  const spans: Array<[number, number]> = [];
  if (gaps !== undefined) {
    // One arena, the parts in row order, `gaps[r]` filler bytes before row r's (copied as runs).
    const at: number[] = [];
    let length = 0;
    bodies.forEach((body, r) => {
      length += gaps[r % gaps.length];
      at.push(length);
      length += body?.length ?? 0;
    });
    const arena = new Uint8Array(length + 5).fill(filler);
    bodies.forEach((body, r) => {
      if (body !== null) arena.set(body, at[r]);
      chunks.push(body === null ? null : arena);
      spans.push(body === null ? [-1, -1] : [at[r], at[r] + body.length]);
    });
  }
  else for (const body of bodies) {
    if (body === null) {
      chunks.push(null);
      spans.push([-1, -1]);
      continue;
    }
    const chunk = new Uint8Array(body.length + 7 + 5);
    chunk.fill(filler);
    chunk.set(body, 7);
    chunks.push(chunk);
    spans.push([7, 7 + body.length]);
  }
  let reads = 0;
  const partOf = (row: number, span: Int32Array): Uint8Array | null => {
    reads++;
    const chunk = chunks[row];
    if (chunk === null) return null;
    [span[0], span[1]] = spans[row];
    return chunk;
  };
  return { partOf, reads: () => reads, chunks, spans };
}

/**
 * What MemberSpans.walk gives for `row` (per key the bytes of its value, null when absent, or an
 * error's message), the reference. Values are compared by their bytes: the walk may hand back
 * its own copy of the row's bytes (spans into that), not the stored chunk.
 */
function expected(t: ReturnType<typeof table>, keys: readonly PathStep[], row: number): unknown {
  const chunk = t.chunks[row];
  if (chunk === null) return null;
  const m = new MemberSpans();
  keys.forEach((k) => m.add(k));
  try {
    m.walk(chunk, t.spans[row][0], t.spans[row][1]);
  } catch (e) {
    return (e as Error).message;
  }
  return keys.map((_, k) => spanBytes(chunk, m, k));
}

/** Key k's span, [-1, -1] when absent (`end` is left as it was then: callers read it only after a start). */
const spanOf = (m: MemberSpans, k: number) => (m.start[k] < 0 ? [-1, -1] : [m.start[k], m.end[k]]);
/** Key k's value as bytes (latin1, so every byte shows), null when absent. */
const spanBytes = (bytes: Uint8Array, m: MemberSpans, k: number) => (m.start[k] < 0 ? null : Buffer.from(bytes.subarray(m.start[k], m.end[k])).toString('latin1'));

function actual(walk: RowMemberWalk, keys: readonly PathStep[], row: number): unknown {
  let bytes: Uint8Array | null;
  try {
    bytes = walk.walk(row);
  } catch (e) {
    return (e as Error).message;
  }
  if (bytes === null) return null;
  return keys.map((_, k) => spanBytes(bytes, walk.members, k));
}

/** Every row asked in `order` gives what MemberSpans gives. */
function agree(bodies: ReadonlyArray<Uint8Array | null>, wanted: readonly string[], order: readonly number[], filler = 0x22, gaps?: readonly number[]): void {
  const t = table(bodies, filler, gaps);
  const keys = wanted.map(keyStep);
  const walk = new RowMemberWalk(t.partOf, () => bodies.length);
  keys.forEach((k) => walk.add(k));
  for (const row of order) assert.deepEqual(actual(walk, keys, row), expected(t, keys, row), `row ${row}: ${bodies[row] === null ? 'null' : Buffer.from(bodies[row]!).toString('latin1')}`);
}

const names = ['a', 'b', 'model', 'max_tokens', 'é', '😀', '', 'k"q', 'x\\y', 'a'.repeat(20)];
const ws = fc.constantFrom('', ' ', '\n  ', '\t');
/** Strings around the 16-byte steps, with escapes at any place. */
const stringText = fc.oneof(
  fc.string({ maxLength: 40 }).map((s) => JSON.stringify(s)),
  fc.tuple(fc.integer({ min: 0, max: 40 }), fc.constantFrom('\\"', '\\\\', '\\n', '\\u0041', '{', '}', '[', ']', ',', ':')).map(([n, esc]) => '"' + 'x'.repeat(n) + esc + 'y'.repeat(n % 17) + '"'),
);
const scalar = fc.oneof(stringText, fc.constantFrom('0', '-1.5e3', 'true', 'false', 'null', '12345678901234567890'));
const { value } = fc.letrec<{ value: string }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    scalar,
    fc.array(fc.tuple(ws, tie('value'), ws), { maxLength: 4 }).map((items) => '[' + items.map(([a, v, b]) => a + v + b).join(',') + ']'),
    fc
      .array(fc.tuple(ws, fc.constantFrom(...names), fc.boolean(), ws, tie('value')), { maxLength: 6 })
      .map((members) => '{' + members.map(([a, k, esc, b, v]) => a + (esc ? '"\\u' + (k.charCodeAt(0) || 0x41).toString(16).padStart(4, '0') + JSON.stringify(k.slice(1)).slice(1) : JSON.stringify(k)) + b + ':' + v).join(',') + '}'),
  ),
}));
/** A part: a JSON value (objects mostly), or its prefix (a truncated body), or any bytes. */
const part = fc.oneof(
  { weight: 6, arbitrary: value.map((v) => encoder.encode(v)) },
  { weight: 2, arbitrary: fc.tuple(value, fc.nat()).map(([v, n]) => encoder.encode(v).subarray(0, n % (encoder.encode(v).length + 1))) },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 60 }).map((b) => (b.length > 0 ? Uint8Array.of(0x7b, ...b) : b)) },
  { weight: 1, arbitrary: fc.constant(null) },
);

test('the runtime has WebAssembly SIMD: first uses walk there', () => {
  assert.equal(pathWalkWasmAvailable(), true);
});

test('differential: the batched WebAssembly walk gives what MemberSpans.walk gives, rows asked in order, again, or anywhere', () => {
  const wanted = fc.uniqueArray(fc.constantFrom(...names), { minLength: 1, maxLength: 4 });
  fc.assert(
    fc.property(fc.array(part, { minLength: 1, maxLength: 40 }), wanted, fc.array(fc.nat(), { maxLength: 60 }), fc.constantFrom(0x22, 0x7d, 0x2c, 0x3a, 0x5c, 0x20), fc.array(fc.constantFrom(0, 1, 15, 16, 17, 300, 5000), { minLength: 1, maxLength: 5 }), (bodies, keys, jumps, filler, gaps) => {
      const n = bodies.length;
      const inOrder = Array.from({ length: n }, (_, r) => r);
      for (const layout of [undefined, gaps]) {
        agree(bodies, keys, inOrder, filler, layout);
        agree(bodies, keys, inOrder.flatMap((r) => [r, r]), filler, layout);
        agree(bodies, keys, jumps.map((j) => j % n), filler, layout);
      }
    }),
    { numRuns: 1500 },
  );
});

test('differential over many rows: batches of every size, strings and containers across the 16-byte steps', () => {
  fc.assert(
    fc.property(fc.array(part, { minLength: 200, maxLength: 3000 }), fc.uniqueArray(fc.constantFrom(...names), { minLength: 1, maxLength: 3 }), (bodies, keys) => {
      agree(bodies, keys, Array.from({ length: bodies.length }, (_, r) => r));
      agree(bodies, keys, Array.from({ length: bodies.length }, (_, r) => r), 0x7b, [0, 3, 16]);
    }),
    { numRuns: 20 },
  );
});

test('two walks asked in turn (two body parts read row by row): each row\'s values are its own, whichever batch the module holds', () => {
  fc.assert(
    fc.property(
      fc.array(fc.tuple(part, part), { minLength: 1, maxLength: 300 }),
      fc.uniqueArray(fc.constantFrom(...names), { minLength: 1, maxLength: 3 }),
      fc.array(fc.tuple(fc.boolean(), fc.nat()), { maxLength: 400 }),
      (pairs, wanted, asks) => {
        const keys = wanted.map(keyStep);
        const sides = [0, 1].map((s) => {
          const t = table(pairs.map((p) => p[s]), 0x22, s === 0 ? [0, 7] : [5000, 1]);
          const walk = new RowMemberWalk(t.partOf, () => pairs.length);
          keys.forEach((k) => walk.add(k));
          return { t, walk };
        });
        const check = (side: number, row: number) => {
          const { t, walk } = sides[side];
          assert.deepEqual(actual(walk, keys, row), expected(t, keys, row), `side ${side} row ${row}`);
        };
        // In turn, row by row (each side's batch replaces the other's in the module), then in any order.
        for (let r = 0; r < pairs.length; r++) {
          check(0, r);
          check(1, r);
          check(0, r);
        }
        for (const [side, r] of asks) check(side ? 1 : 0, r % pairs.length);
      },
    ),
    { numRuns: 300 },
  );
});

test('adversarial rows: repeated and escaped keys, deep nesting, a part over the batch size, a truncated member, brackets in strings', () => {
  const deep = '['.repeat(20000) + ']'.repeat(20000);
  const big = '{"a":"' + 'z'.repeat(3 << 20) + '","b":2,"a":[1]}';
  const rows = [
    '{"a":1,"b":2,"a":3}',
    '{"\\u0061":1,"b":{"a":9}}',
    '{"a":1,"\\u0061":2}',
    `{"a":${deep},"b":"]}\\"{["}`,
    big,
    '{"a":',
    '{"a"',
    '{"a":1,"b":',
    '{"a":"\\',
    '{"a":"x\\"}',
    '{"a":{"b":[1,{"c":"}"}]},"a":null}',
    '  {\t"a"\n:\r"v" }  ',
    '{"a":1}garbage',
    '[{"a":1}]',
    '"{\\"a\\":1}"',
    '{"\\x":1}', // an invalid escape in a key: the JavaScript walk's error, alike
    '',
    '{',
  ];
  const bodies = rows.map((r) => encoder.encode(r));
  for (const filler of [0x22, 0x7b, 0x3a, 0x2c]) {
    agree(bodies, ['a', 'b'], bodies.map((_, r) => r), filler);
    agree(bodies, ['a', 'b'], bodies.map((_, r) => bodies.length - 1 - r), filler);
    agree(bodies, ['a', 'b'], bodies.map((_, r) => r), filler, [0, 1, 17]);
  }
});

test('a part longer than a batch is walked in JavaScript, not copied: the module\'s memory stays within two batches', () => {
  const long = encoder.encode('{"a":"' + 'z'.repeat(5 << 20) + '","b":[1,{"a":2}],"a":3}');
  const bodies = [encoder.encode('{"a":1}'), long, encoder.encode('{"b":2}'), long, encoder.encode('{"a":4,"a":5}')];
  for (const gaps of [undefined, [0, 9]]) agree(bodies, ['a', 'b'], [0, 1, 2, 3, 4], 0x22, gaps);
  const t = table([long], 0x20);
  const walk = new RowMemberWalk(t.partOf, () => 1);
  walk.add(keyStep('a'));
  walk.walk(0);
  assert.deepEqual(spanOf(walk.members, 0), [7 + long.length - 2, 7 + long.length - 1]);
  assert.ok(pathWalkMemoryBytes() <= (3 << 20) + 81920, `${pathWalkMemoryBytes()} bytes`);
});

test('more than 8 keys, or keys longer than the module holds: walked in JavaScript, alike', () => {
  const keys = Array.from({ length: 10 }, (_, k) => `k${k}`);
  const bodies = Array.from({ length: 300 }, (_, r) => encoder.encode(JSON.stringify(Object.fromEntries(keys.map((k, i) => [k, r * i])))));
  agree(bodies, keys, bodies.map((_, r) => r));
  const long = 'q'.repeat(1000);
  agree([encoder.encode(`{"${long}":1,"a":2}`)], [long, 'a'], [0]);
});

test('a sequential scan reads each row once; rows asked far apart read little more than those rows', () => {
  const bodies = Array.from({ length: 20000 }, (_, r) => encoder.encode(`{"model":"m${r % 7}","n":${r}}`));
  const keys = [keyStep('n')];
  let t = table(bodies, 0x20);
  let walk = new RowMemberWalk(t.partOf, () => bodies.length);
  walk.add(keys[0]);
  for (let r = 0; r < bodies.length; r++) assert.deepEqual(actual(walk, keys, r), expected(t, keys, r));
  assert.equal(t.reads(), bodies.length);

  t = table(bodies, 0x20);
  walk = new RowMemberWalk(t.partOf, () => bodies.length);
  walk.add(keys[0]);
  const asked = Array.from({ length: 200 }, (_, i) => i * 97);
  for (const r of asked) assert.deepEqual(actual(walk, keys, r), expected(t, keys, r));
  // The first batch (64 rows) and a shrinking one or two after it, then one row per ask.
  assert.ok(t.reads() <= asked.length + 64 + 16, `${t.reads()} reads`);
});

test('usePathWalkWasm(false): every row walked by MemberSpans, the same spans', () => {
  usePathWalkWasm(false);
  try {
    assert.equal(pathWalkWasmAvailable(), false);
    const bodies = Array.from({ length: 100 }, (_, r) => encoder.encode(`{"a":${r},"a":"${r}"}`));
    agree(bodies, ['a'], bodies.map((_, r) => r));
  } finally {
    usePathWalkWasm(true);
  }
});

test('the committed path-walk-wasm.ts is what wasm/path-walk.ts compiles to', { timeout: 120_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'tq-path-walk-'));
  try {
    const out = join(dir, 'path-walk-wasm.ts');
    const r = spawnSync(process.execPath, [join(ROOT, 'scripts', 'build-wasm.mjs'), 'path-walk', out], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(readFileSync(out, 'utf8'), readFileSync(join(ROOT, 'src', 'core', 'json', 'path-walk-wasm.ts'), 'utf8'), 'rebuild: node scripts/build-wasm.mjs path-walk');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
