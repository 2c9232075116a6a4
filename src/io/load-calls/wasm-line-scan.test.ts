import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { FIELD_COUNT } from '../../load/calls/line-scan.ts';
import { editedCallObject } from '../../load/calls/line-scan.testing.ts';
import { CallLinePrescan } from '../../load/calls/scanned-call.ts';
import { BlockScan } from './block-scan.ts';
import { WasmCallLinePrescan, wasmLineScanAvailable } from './wasm-line-scan.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const reference = new CallLinePrescan(1);
const wasm = new WasmCallLinePrescan(1);

/** What a scan left in slot 0 (the refs' spans only where they are read: exactly one ref-like string). */
function scanResult(p: CallLinePrescan, ok: boolean) {
  if (!ok) return { ok };
  const refs = [0, 1].map((k) => (p.refCount[k] === 1 ? [p.refUnsure[k], p.refFrom[k], p.refTo[k]] : [p.refCount[k]]));
  return { ok, kinds: [...p.kinds.subarray(0, FIELD_COUNT)], starts: [...p.starts.subarray(0, FIELD_COUNT)], ends: [...p.ends.subarray(0, FIELD_COUNT)], flags: p.flags[0], errorCount: p.errorCounts[0], refs };
}

/** What a prescan left in slot 0 (the verdict, datetimes, refs). */
function prescanResult(p: CallLinePrescan, ok: boolean) {
  return { ok, micros: ok ? [...p.micros.subarray(0, 3)] : [], inputRefs: p.inputRefs[0], outputRefs: p.outputRefs[0] };
}

/**
 * Scans `line` with both scanners, the line placed inside a block after `before` and followed
 * by `after` (the WebAssembly scan reads past a line's end, and must never take those bytes),
 * and asserts identical results, for the scan and for the whole prescan.
 */
function same(line: Uint8Array, before: Uint8Array = new Uint8Array(0), after: Uint8Array = new Uint8Array(0)): boolean {
  const block = Buffer.concat([before, line, after]);
  const start = before.length, end = start + line.length;
  wasm.setBlock(block, block.length);
  const expected = scanResult(reference, reference.scan(block, start, end, 0));
  const got = scanResult(wasm, wasm.scan(block, start, end, 0));
  assert.deepEqual(got, expected, Buffer.from(line).toString('latin1'));
  const expectedPrescan = prescanResult(reference, reference.prescan(block, start, end, 0));
  assert.deepEqual(prescanResult(wasm, wasm.prescan(block, start, end, 0)), expectedPrescan);
  return expected.ok;
}

const bytes = (s: string) => Buffer.from(s, 'utf8');
const fixtureLines = (): Buffer[] =>
  readdirSync(join(ROOT, 'fixtures'))
    .filter((n) => n.endsWith('.jsonl'))
    .flatMap((n) => readFileSync(join(ROOT, 'fixtures', n), 'utf8').split('\n').filter((l) => l !== '').map(bytes));

test('the WebAssembly scanner runs here (Node 20+ has WebAssembly SIMD), and block scans use it', () => {
  assert.equal(wasmLineScanAvailable(), true);
  assert.ok(new BlockScan().prescan instanceof WasmCallLinePrescan);
  // TQ_LINE_SCANNER=js keeps the JavaScript scanner (to compare the two in a bench).
  process.env.TQ_LINE_SCANNER = 'js';
  try {
    assert.equal(wasmLineScanAvailable(), false);
    const scan = new BlockScan();
    assert.equal(scan.prescan instanceof WasmCallLinePrescan, false);
    assert.ok(scan.prescan instanceof CallLinePrescan);
  } finally {
    delete process.env.TQ_LINE_SCANNER;
  }
});

test('the committed line-scan.wasm is what wasm/line-scan.ts compiles to', { timeout: 120_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'tq-wasm-'));
  try {
    const out = join(dir, 'line-scan.wasm');
    const r = spawnSync(process.execPath, [join(ROOT, 'scripts', 'build-wasm.mjs'), 'line-scan', out], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    assert.ok(readFileSync(out).equals(readFileSync(join(ROOT, 'src', 'io', 'load-calls', 'line-scan.wasm'))), 'rebuild: node scripts/build-wasm.mjs line-scan');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('differential: every line of every fixture file, and every prefix of the calls fixture lines (truncated lines)', () => {
  const lines = fixtureLines();
  assert.ok(lines.length > 100);
  let taken = 0;
  for (const line of lines) if (same(line, bytes('{"x":1}\n'), bytes('\n{"id":"next"}'))) taken++;
  assert.ok(taken > 100, `${taken} lines taken`);
  const calls = readFileSync(join(ROOT, 'fixtures', 'calls.jsonl'), 'utf8').split('\n').filter((l) => l !== '').slice(0, 12).map(bytes);
  for (const line of calls) for (let n = 0; n < line.length; n++) assert.equal(same(line.subarray(0, n), undefined, line.subarray(n)), false);
});

test('differential: every object and array in the conformance cases, as a line', () => {
  const cases = JSON.parse(readFileSync(join(ROOT, 'spec-tests', 'cases.json'), 'utf8')) as unknown;
  let count = 0;
  const walk = (v: unknown): void => {
    if (typeof v !== 'object' || v === null) return;
    same(bytes(JSON.stringify(v)), bytes(' '), bytes('"}]'));
    count++;
    for (const child of Object.values(v)) walk(child);
  };
  walk(cases);
  assert.ok(count > 1000, `${count} values`);
});

test('differential: hostile lines (escapes at every offset of a 16-byte run, control characters, surrogates, nesting at the bound, numbers, invalid UTF-8)', () => {
  const lines: string[] = [];
  for (let pad = 0; pad < 40; pad++) {
    const run = 'x'.repeat(pad);
    for (const tail of ['\\"', '\\\\', '\\u0041', '\\ud83d\\ude00', '\\ud800', '\u0001', '\u001f', '\u007f', 'é', '😀', '\\x', '\\u12g4', '\\u12']) {
      lines.push(`{"id":"${run}${tail}${run}","inputs":{"a":"${run}${tail}"},"output":"weave:///e/p/object/o:${run}${tail}"}`);
      lines.push(`{"summary":{"status_counts":{"error":${pad}},"k${run}${tail}":1}}`);
    }
    lines.push(`{"id":"${run}`); // ends inside a string, at every offset of a vector
    lines.push(`{"id":"${run}"`);
  }
  for (const depth of [1, 198, 199, 200, 201, 300]) {
    lines.push(`{"inputs":${'['.repeat(depth)}${']'.repeat(depth)}}`, `{"summary":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}`, `{"inputs":${'['.repeat(depth)}}`);
  }
  for (const n of ['0', '-0', '1.5', '-1.5e+3', '1E-2', '1e400', '01', '1.', '.5', '-', '+1', '1e', '1e+', '0x1', 'NaN', 'Infinity', 'tru', 'nulll', 'false', 'true', 'null']) {
    lines.push(`{"svc_run_step":${n}}`, `{"summary":{"status_counts":{"error":${n}}}}`, `{"inputs":[${n}]}`);
  }
  for (const ref of ['weave:///e/p/object/o:v', 'weave-trace-internal:///p/call/x', 'wandb-artifact:///a', 'w', 'weave:', '\\u0077eave:///e/p/object/o:v']) {
    lines.push(`{"inputs":{"a":"${ref}","a":"${ref}"},"output":{"b":{"c":"${ref}"},"b":1}}`, `{"inputs":{"a\\u0062":{"c":"${ref}"}},"output":["${ref}","${ref}"]}`);
  }
  let checked = 0;
  for (const line of lines) {
    same(bytes(line));
    checked++;
  }
  // Invalid UTF-8 inside strings and keys: the scan takes the bytes, the prescan refuses the line.
  for (const bad of [[0xff], [0xc3], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xe2, 0x82]]) {
    assert.equal(same(Buffer.concat([bytes('{"id":"a'), Buffer.from(bad), bytes('b","inputs":{}}')])), true);
    checked++;
  }
  assert.equal(checked, lines.length + 5);
});

/** JSON-significant characters, to make near-JSON text. */
const jsonish = fc.string({ unit: fc.constantFrom(...'{}[]":,\\ \t0123456789-+.eEtrufalsnw/u"ab\u0001\u00e9'.split('')), maxLength: 60 });
const callish = editedCallObject(fc.oneof(fc.jsonValue({ maxDepth: 4 }), fc.constantFrom('weave:///e/p/object/o:v', { status_counts: { error: 2 } })), jsonish, 10);

test('property: random and edited lines, and random bytes, scan alike in both scanners', () => {
  fc.assert(
    fc.property(fc.oneof(callish.map(bytes), jsonish.map((s) => bytes('{' + s)), fc.uint8Array({ maxLength: 80 })), fc.uint8Array({ maxLength: 20 }), (line, after) => {
      same(line, undefined, after);
    }),
    { numRuns: 4000 },
  );
});

test('a block scan gives the same prescan through either scanner, and a line of another buffer is scanned by the JavaScript scanner', () => {
  const block = Buffer.from(readFileSync(join(ROOT, 'fixtures', 'calls.jsonl')));
  const viaWasm = new BlockScan();
  viaWasm.scan(block, block.length, 1);
  const viaJs = new BlockScan();
  Object.defineProperty(viaJs, 'prescan', { value: new CallLinePrescan(4096) });
  viaJs.scan(block, block.length, 1);
  assert.ok(viaWasm.count > 100);
  assert.deepEqual(viaWasm.copies(), viaJs.copies());
  // A buffer the scanner was not given: the scan is the reference's (same results, no stale block).
  const other = bytes('{"id":"x","inputs":{"a":"weave:///e/p/object/o:v"}}');
  assert.equal(wasm.scan(other, 0, other.length, 0), true);
  assert.equal(wasm.kinds[0], 1);
});

test('a block holding invalid UTF-8 is checked line by line: only the bad line is refused, as the JavaScript scan refuses it', () => {
  const good = readFileSync(join(ROOT, 'fixtures', 'calls.jsonl')).subarray(0, 20_000);
  const cut = good.lastIndexOf(0x0a) + 1;
  const block = Buffer.concat([good.subarray(0, cut), bytes('{"id":"a'), Buffer.from([0xc3, 0x28]), bytes('","project_id":"e/p"}\n'), good.subarray(0, cut)]);
  const viaWasm = new BlockScan();
  viaWasm.scan(block, block.length, 1);
  const viaJs = new BlockScan();
  Object.defineProperty(viaJs, 'prescan', { value: new CallLinePrescan(4096) });
  viaJs.scan(block, block.length, 1);
  assert.deepEqual(viaWasm.copies(), viaJs.copies());
  const ok = [...viaWasm.copies().prescan.ok];
  const bad = (ok.length - 1) / 2;
  assert.equal(ok[bad], 0);
  assert.deepEqual([...ok.slice(0, bad), ...ok.slice(bad + 1)], new Array(ok.length - 1).fill(1));
});
