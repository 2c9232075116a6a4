import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FixtureError } from '../../core/errors.ts';
import { createEngine } from '../../engine.ts';
import { loadFixtures } from '../load-fixtures.ts';
import { SAME, SAME_WIDTH } from '../../load/calls/same-values.ts';
import { forEachPrescannedLine } from './parallel.ts';
import { callsFingerprint } from './store-fingerprint.testing.ts';
import { tempDir } from '../temp-dir.testing.ts';

/** A small seeded generator (the same file on every run). */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s ^ (s >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0;
    return (s >>> 8) / (1 << 24);
  };
}

/**
 * A value as written in a line (its JSON text) and, when it is a plain non-empty string (the
 * only values the scanning thread matches), its bytes as text. Long values share their last 16
 * bytes and length, so that they share the scanning thread's hash and only their bytes tell them apart.
 */
type Written = { json: string; plain: string | null };
const plain = (s: string): Written => ({ json: JSON.stringify(s), plain: s === '' ? null : s });
const escaped = (s: string): Written => ({ json: `"${[...s].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('')}"`, plain: null });
const TAIL = '-0123456789abcdef';
const OPS = [plain('op/a'), plain('op/b'), plain(`weave:///e/p/op/x${TAIL}`), plain(`weave:///e/p/op/y${TAIL}`), plain('é-op\u2028'), escaped('op/a')];
const TRACES = [plain(`t1${TAIL}`), plain(`t2${TAIL}`), plain('t3'), escaped('t3'), plain('𝄞')];
const USERS = [plain('u1'), plain('u2'), plain(''), escaped('u1'), { json: 'null', plain: null }];

/** A calls file of `n` random lines, with what each line's fields are as Written (null: an unreadable line). */
function randomCalls(seed: number, n: number): { text: string; fields: Array<Record<string, Written | null> | null> } {
  const r = random(seed);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)];
  const ids: Written[] = [];
  const lines: string[] = [];
  const fields: Array<Record<string, Written | null> | null> = [];
  for (let i = 0; i < n; i++) {
    if (r() < 0.03) {
      lines.push('{"id": ');
      fields.push(null);
      continue;
    }
    // Unique ids (a repeated one fails the load), some non-ASCII, some escaped, some sharing a tail.
    const id = r() < 0.15 ? escaped(`e${i}`) : plain(r() < 0.2 ? `é${i}` : r() < 0.5 ? `c${i}${TAIL}` : `c${i}`);
    const relation = (): Written | null => {
      const x = r();
      if (x < 0.2 || ids.length === 0) return null;
      if (x < 0.75) return ids[Math.max(0, ids.length - 1 - Math.floor(r() * 6))]; // a recent line's id, as it was written
      if (x < 0.85) return ids[Math.floor(r() * ids.length)];
      if (x < 0.9) return id; // the line itself
      return plain(`missing${Math.floor(r() * 3)}`);
    };
    const parent = relation(), turn = r() < 0.3 ? relation() : null;
    const op = pick(OPS), trace = r() < 0.7 && i > 0 ? (fields[i - 1]?.trace ?? pick(TRACES)) : pick(TRACES), user = pick(USERS);
    const userKey = r() < 0.5 ? 'svc_user_id' : 'wb_user_id';
    const both = r() < 0.03; // both spellings: the slow path refuses the line (a load fails on it)
    lines.push(
      `{"id":${id.json},"project_id":"${r() < 0.8 ? 'e/p' : 'e/q'}","op_name":${op.json},"trace_id":${trace.json},` +
        `"parent_id":${parent?.json ?? 'null'},${turn === null ? '' : `"turn_id":${turn.json},`}"${userKey}":${user.json},` +
        `${both ? `"${userKey === 'svc_user_id' ? 'wb_user_id' : 'svc_user_id'}":"u9",` : ''}"started_at":"2024-01-01T00:00:0${i % 10}Z","inputs":{"i":${i}},"output":null,"summary":{}}`,
    );
    ids.push(id);
    fields.push({ id, op, trace, user: both ? null : user, parent, turn });
  }
  return { text: lines.join('\n') + '\n', fields };
}

function write(content: string): string {
  const d = tempDir('tq-same-values-');
  writeFileSync(join(d, 'calls.jsonl'), content);
  return join(d, 'calls.jsonl');
}

test('the scanning thread names, per line, the first earlier line of its block with the same op name, trace, user id, or whose id is the parent or turn id (plain strings only)', async () => {
  for (const seed of [1, 2]) {
    const { text, fields } = randomCalls(seed, 400);
    const file = write(text);
    for (const blockSize of [512, 1 << 20]) {
      for (const handOverAt of [-1, 100]) {
        // Per block (its buffer), the fields of the lines given so far, by slot.
        let block: Buffer | null = null;
        let earlier: Array<Record<string, Written | null> | null> = [];
        let lines = 0;
        await forEachPrescannedLine(file, ({ buf, line }, p, slot) => {
          if (buf !== block) {
            block = buf;
            earlier = [];
          }
          lines++;
          const f = fields[line - 1];
          const first = (key: string, of: (e: Record<string, Written | null>) => Written | null) => {
            const value = f?.[key]?.plain ?? null;
            if (value === null) return -1;
            return earlier.findIndex((e) => e !== null && of(e)?.plain === value);
          };
          const expected = [first('op', (e) => e.op), first('trace', (e) => e.trace), first('user', (e) => e.user), first('parent', (e) => e.id), first('turn', (e) => e.id)];
          const got = Array.from(p.sameAs!.subarray(SAME_WIDTH * slot, SAME_WIDTH * (slot + 1)));
          assert.deepEqual(got, expected, `seed ${seed}, block size ${blockSize}, line ${line}`);
          assert.equal(earlier.length, slot);
          earlier.push(f);
        }, undefined, blockSize, handOverAt);
        assert.equal(lines, 400);
      }
    }
  }
  assert.deepEqual(Object.values(SAME), [0, 1, 2, 3, 4]);
});

async function load(path: string, parallel: { blockSize: number; handOverAt: number } | null) {
  const engine = createEngine();
  try {
    await loadFixtures(engine, path, undefined, parallel === null ? { parallelMinBytes: Infinity } : { parallelMinBytes: 0, parallelBlocks: parallel });
    return { engine, error: null };
  } catch (e) {
    assert.ok(e instanceof FixtureError, String(e));
    return { engine, error: e.message };
  }
}

test('random files load in parallel, through strings reused within a block, as they load sequentially', async () => {
  for (const seed of [11, 12]) {
    const { text } = randomCalls(seed, 500);
    // Unreadable lines and both user spellings fail a load: the file is loaded without them, and with them (the same message).
    const readable = text.split('\n').filter((l) => l !== '{"id": ' && !l.includes('"u9"')).join('\n');
    const file = write(readable), broken = write(text);
    const seq = await load(file, null);
    assert.equal(seq.error, null);
    const expected = callsFingerprint(seq.engine);
    assert.ok(expected.length > 400);
    for (const blockSize of [700, 4096, 1 << 20]) {
      for (const handOverAt of [-1, 100]) {
        const par = await load(file, { blockSize, handOverAt });
        assert.equal(par.error, null);
        assert.deepEqual(callsFingerprint(par.engine), expected, `seed ${seed}, block size ${blockSize}, handOverAt ${handOverAt}`);
      }
    }
    assert.equal((await load(broken, { blockSize: 700, handOverAt: -1 })).error, (await load(broken, null)).error);
  }
});
