import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { FixtureError } from '../../core/errors.ts';
import { createEngine } from '../../engine.ts';
import { forEachLine, type LineRef } from '../lines.ts';
import { loadFixtures } from '../load-fixtures.ts';
import { FIELD_COUNT } from '../../load/calls/line-scan.ts';
import { GateScreen, SCREENED, type OneShotGateSpec } from '../../load/calls/one-shot-gate.ts';
import { CallLinePrescan } from '../../load/calls/scanned-call.ts';
import { forEachPrescannedLine } from './parallel.ts';
import { callsFingerprint } from './store-fingerprint.testing.ts';
import { tempDir } from '../temp-dir.testing.ts';

const REF = 'weave:///e/p/object/o:v1';
const call = (i: number, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    id: `c${i}`, project_id: i % 7 === 0 ? 'e/q' : 'e/p', op_name: `op${i % 3}`, trace_id: `t${i % 5}`, parent_id: i > 0 ? `c${i - 1}` : null,
    started_at: '2024-01-01T00:00:00.123456Z', ended_at: i % 2 ? '2024-01-01T00:00:01Z' : null,
    inputs: { x: i % 3 ? REF : 'w', n: i }, output: i % 4 ? { r: [REF] } : null, summary: { status_counts: { error: i % 2 } },
    [i % 5 ? 'svc_user_id' : 'wb_user_id']: 'u', display_name: i % 11 ? null : 'é\u2028"', ...extra,
  });

/** A calls file: many kinds of lines, CRLF and blank lines, a byte order mark, a last line without a newline. */
function callsText(n: number): string {
  const lines = ['\uFEFF' + call(0)];
  for (let i = 1; i < n; i++) {
    lines.push(i % 13 === 0 ? call(i).replace('{', '{ "id" : "dup", ') : call(i)); // a repeated key: the slow path
    if (i % 17 === 0) lines.push('   ');
  }
  return lines.join(i18nEnding(n));
}
const i18nEnding = (n: number) => (n % 2 ? '\r\n' : '\n');

function write(content: string | Buffer, name = 'calls.jsonl'): string {
  const d = tempDir('tq-parallel-');
  writeFileSync(join(d, name), content);
  return join(d, name);
}

async function load(path: string, parallel: boolean) {
  const engine = createEngine();
  try {
    const report = await loadFixtures(engine, path, undefined, { parallelMinBytes: parallel ? 0 : Infinity });
    return { engine, report, error: null };
  } catch (e) {
    assert.ok(e instanceof FixtureError, String(e));
    return { engine, report: null, error: e.message };
  }
}

test('a parallel load stores exactly what a sequential one does', async () => {
  for (const n of [1, 2, 300]) {
    const file = write(callsText(n));
    const seq = await load(file, false);
    const par = await load(file, true);
    assert.equal(seq.error, null);
    assert.deepEqual(par.report, seq.report);
    assert.deepEqual(callsFingerprint(par.engine), callsFingerprint(seq.engine));
  }
});

test('gzip: the same rows, and a truncated file the same message', async () => {
  const text = callsText(200);
  const gz = gzipSync(text);
  const file = write(gz, 'calls.jsonl.gz');
  assert.deepEqual(callsFingerprint((await load(file, true)).engine), callsFingerprint((await load(write(text), false)).engine));
  const cut = write(gz.subarray(0, gz.length - 200), 'calls.jsonl.gz');
  const seq = await load(cut, false), par = await load(cut, true);
  assert.match(seq.error ?? '', /gzip data is truncated\/corrupt/);
  assert.equal(par.error, seq.error);
});

test('a bad line is reported as file:line, the first one first, as a sequential load does', async () => {
  const lines = callsText(400).split('\n');
  for (const bad of [
    [5, '{"id": '], [250, call(250, { started_at: 'yesterday' })], [399, call(3)] /* a repeated id */,
  ] as const) {
    const edited = [...lines];
    edited[bad[0]] = bad[1];
    edited[bad[0] + 50] = '{nope';
    const file = write(edited.join('\n'));
    const seq = await load(file, false), par = await load(file, true);
    assert.match(seq.error ?? '', new RegExp(`:${bad[0] + 1}: `));
    assert.equal(par.error, seq.error);
  }
  const invalidUtf8 = write(Buffer.concat([Buffer.from(lines.slice(0, 30).join('\n') + '\n{"id":"'), Buffer.from([0xff]), Buffer.from('"}\n')]));
  assert.equal((await load(invalidUtf8, true)).error, (await load(invalidUtf8, false)).error);
});

test('lines reach the caller as forEachLine gives them, across blocks of any size', async () => {
  const file = write(callsText(60) + '\n\n' + 'x'.repeat(5000) + '\n');
  const expected: Array<[number, string]> = [];
  await forEachLine(file, ({ buf, start, end, line }: LineRef) => void expected.push([line, buf.toString('latin1', start, end)]));
  for (const blockSize of [64, 1000, 1 << 20]) {
    const got: Array<[number, string]> = [];
    await forEachPrescannedLine(file, ({ buf, start, end, line }) => void got.push([line, buf.toString('latin1', start, end)]), undefined, blockSize);
    assert.deepEqual(got, expected);
  }
});

/** Per line: its number, bytes and prescan, as forEachPrescannedLine gives them. */
async function prescans(file: string, blockSize: number, handOverAt: number): Promise<unknown[]> {
  const out: unknown[] = [];
  await forEachPrescannedLine(file, ({ buf, start, end, line }, p, slot) => {
    // What a consumer reads: nothing past the verdict of a refused line, no span of an absent field.
    if (p.ok[slot] !== 1) return void out.push([line, buf.toString('latin1', start, end), 'refused']);
    const kinds = Array.from(p.kinds.subarray(slot * FIELD_COUNT, (slot + 1) * FIELD_COUNT));
    const spans = kinds.map((kind, f) => (kind === 0 ? null : [p.starts[slot * FIELD_COUNT + f] - start, p.ends[slot * FIELD_COUNT + f] - start]));
    out.push([
      line, buf.toString('latin1', start, end), p.flags[slot], p.errorCounts[slot], Array.from(p.micros.subarray(3 * slot, 3 * slot + 3)),
      kinds, spans, p.inputRefs[slot], p.outputRefs[slot],
    ]);
  }, undefined, blockSize, handOverAt);
  return out;
}

test('blocks the main thread scans itself (handed over) give the prescans the worker gives', async () => {
  const file = write(callsText(300) + '\n{"id": \n' + call(301, { inputs: { a: REF, b: [REF] } }) + '\n');
  const byWorker = await prescans(file, 2048, -1);
  assert.ok(byWorker.length > 300);
  for (const handOverAt of [0, 1, 100]) assert.deepEqual(await prescans(file, 2048, handOverAt), byWorker);
});

test('a one-shot gate\'s verdicts, id hashes and refs are the same whichever thread scanned the block, and a single-line screen\'s', async () => {
  const file = write(callsText(300) + '\n' + call(301, { deleted_at: '2024-02-01T00:00:00Z' }) + '\n' + call(302, { id: 'c\\u0033\\u00302' }) + '\n');
  const spec: OneShotGateSpec = { projectId: 'e/p', opExact: new Set(['op1']), opPrefixes: [], rootsOnly: false, topK: null };
  // The reference: each line prescanned alone and judged by a GateScreen on this thread.
  const expected: unknown[] = [];
  const screen = new GateScreen(spec);
  const p = new CallLinePrescan();
  await forEachLine(file, ({ buf, start, end, line }: LineRef) => {
    const from = line === 1 ? start + 3 : start; // the byte order mark
    p.prescan(buf, from, end, 0);
    const verdict = screen.screen(p, 0, buf);
    expected.push(verdict === SCREENED.SLOW ? [line, verdict] : [line, verdict, screen.idHash.a, screen.idHash.b, ...(verdict === SCREENED.CANDIDATE ? [p.inputRefs[0], p.outputRefs[0]] : [])]);
  });
  const counts = [0, 0, 0, 0];
  for (const [, verdict] of expected as Array<[number, number]>) counts[verdict]++;
  assert.ok(counts.every((n) => n > 0), `every verdict is met: ${counts.join(', ')}`);
  for (const handOverAt of [-1, 100]) {
    const got: unknown[] = [];
    await forEachPrescannedLine(file, ({ line }, q, slot) => {
      const s = q.screened!;
      const verdict = s.verdicts[slot];
      got.push(verdict === SCREENED.SLOW ? [line, verdict] : [line, verdict, q.idHashes![2 * slot], q.idHashes![2 * slot + 1], ...(verdict === SCREENED.CANDIDATE ? [q.inputRefs[slot], q.outputRefs[slot]] : [])]);
    }, undefined, 2048, handOverAt, spec);
    assert.deepEqual(got, expected, `handOverAt ${handOverAt}`);
  }
});

test('an exception from the caller stops the reading', async () => {
  const file = write(callsText(100));
  let seen = 0;
  await assert.rejects(
    forEachPrescannedLine(file, () => {
      if (++seen === 3) throw new Error('stop');
    }, undefined, 256),
    /stop/,
  );
  assert.equal(seen, 3);
});
