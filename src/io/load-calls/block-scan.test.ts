import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FixtureError } from '../../core/errors.ts';
import { createEngine } from '../../engine.ts';
import { loadFixtures } from '../load-fixtures.ts';
import { IdHash } from '../../store/id-index.ts';
import { SCREENED, type OneShotGateSpec } from '../../load/calls/one-shot-gate.ts';
import { forEachPrescannedLine } from './parallel.ts';
import { callsFingerprint } from './store-fingerprint.testing.ts';
import { tempDir } from '../temp-dir.testing.ts';

/** Ids of every kind a file may hold: ASCII, non-ASCII, escaped (decoded by the scan's caller), one repeated for the parent lookups. */
const ID_KINDS = (i: number) => [`c${i}`, `é-${i}-\u2028`, `c\\u00e9${i}`, `𝄞${i}`][i % 4];
const line = (i: number, id = ID_KINDS(i)) =>
  `{"id":"${id}","project_id":"e/p","op_name":"op","trace_id":"t${i % 3}","parent_id":${i > 0 ? `"${ID_KINDS(i - 1)}"` : 'null'},` +
  `"turn_id":${i > 1 ? `"${ID_KINDS(i - 2)}"` : 'null'},"started_at":"2024-01-01T00:00:00Z","inputs":{"n":${i}},"output":null,"summary":{}}`;

function write(content: string): string {
  const d = tempDir('tq-block-scan-');
  writeFileSync(join(d, 'calls.jsonl'), content);
  return join(d, 'calls.jsonl');
}

test('the scanning thread hashes each plain id as the store hashes its string; an escaped id is left to the store (0, 0), except under a one-shot gate, whose screen hashes it decoded', async () => {
  const file = write(Array.from({ length: 200 }, (_, i) => line(i)).join('\n') + '\n');
  const h = new IdHash();
  let lines = 0;
  // Under a gate the screen's hash of a line it passes is reused: it must be the same.
  const gate: OneShotGateSpec = { projectId: 'e/p', opExact: null, opPrefixes: [], rootsOnly: false, topK: null };
  for (const gateSpec of [null, gate]) {
    for (const handOverAt of [-1, 100]) {
      await forEachPrescannedLine(file, ({ buf, start, end }, p, slot) => {
        lines++;
        const id = (JSON.parse(buf.toString('utf8', start, end)) as { id: string }).id;
        const text = buf.toString('utf8', start, end);
        const escaped = text.slice(7, text.indexOf('"', 7)).includes('\\');
        h.string(id);
        // Under the gate every line here passes its screen, which hashes escaped ids too (decoded).
        assert.equal(p.screened?.verdicts[slot] === SCREENED.SLOW, false);
        assert.deepEqual([p.idHashes![2 * slot], p.idHashes![2 * slot + 1]], escaped && gateSpec === null ? [0, 0] : [h.a, h.b], id);
      }, undefined, 1024, handOverAt, gateSpec);
    }
  }
  assert.equal(lines, 800);
});

async function load(path: string, parallel: boolean) {
  const engine = createEngine();
  try {
    await loadFixtures(engine, path, undefined, { parallelMinBytes: parallel ? 0 : Infinity });
    return { engine, error: null };
  } catch (e) {
    assert.ok(e instanceof FixtureError, String(e));
    return { engine, error: e.message };
  }
}

test('ids of every kind load in parallel as sequentially: rows, parent and turn ids, lookups, and a repeated id named alike', async () => {
  const lines = Array.from({ length: 300 }, (_, i) => line(i));
  const file = write(lines.join('\n'));
  const seq = await load(file, false), par = await load(file, true);
  assert.equal(seq.error, null);
  assert.deepEqual(callsFingerprint(par.engine), callsFingerprint(seq.engine));
  const calls = par.engine.store.project('e/p')!.calls;
  assert.equal(calls.size, 300);
  for (let i = 0; i < 300; i++) assert.equal(calls.rowOf(JSON.parse(`"${ID_KINDS(i)}"`) as string), i);
  assert.equal(calls.parentId(5), calls.id(4)); // the parent's own string
  // A repeated id, of each kind: the same message, on the same line.
  for (const repeated of [40, 41, 42, 43]) {
    const dup = write([...lines, line(repeated)].join('\n'));
    const s = await load(dup, false), p = await load(dup, true);
    assert.match(s.error ?? '', /:301: duplicate call id /);
    assert.equal(p.error, s.error);
  }
});
