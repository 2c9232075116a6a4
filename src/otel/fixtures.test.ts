/**
 * OTLP JSON lines fixtures (semantics.md#otel-fixtures): `otel-traces.jsonl[.gz]` in a fixtures
 * directory, or the file alone, goes through the endpoint's conversion; every bad line is
 * `file:line: problem`.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { createEngine } from '../engine.ts';
import { FixtureError } from '../core/errors.ts';
import { filesOf, loadFixtures, loadFixtureText } from '../io/load-fixtures.ts';
import { otlpExport } from './otlp.testing.ts';
import { tempDir } from '../io/temp-dir.testing.ts';
import { columnValues } from '../store/call-table.testing.ts';

const PROJECT = { 'wandb.entity': 'acme', 'wandb.project': 'fx' };
const line = (id: string, attrs: Record<string, string | number> = { 'input.value': 'x' }) => JSON.stringify(otlpExport([PROJECT, [{ id, attrs }]]));

function dirWith(files: Record<string, string | Buffer>): string {
  const dir = tempDir('tq-otel-fx-');
  for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, name), content);
  return dir;
}

const ids = (engine: ReturnType<typeof createEngine>) => {
  const t = engine.store.project('acme/fx')?.calls;
  return t ? columnValues(t, 'id') : [];
};

async function loadError(path: string): Promise<string> {
  try {
    await loadFixtures(createEngine(), path);
  } catch (e) {
    assert.ok(e instanceof FixtureError, String(e));
    return e.message;
  }
  assert.fail('expected a FixtureError');
}

describe('otel-traces.jsonl fixtures', () => {
  it('a directory holding the file, plain or gzip, next to calls.jsonl; or the file alone', async () => {
    const calls = '{"project_id":"acme/fx","id":"native","op_name":"op","trace_id":"t","started_at":"2024-01-01T00:00:00Z","attributes":{},"inputs":{}}\n';
    const plain = dirWith({ 'calls.jsonl': calls, 'otel-traces.jsonl': `${line('00000000000000a1')}\n\n${line('00000000000000a2')}\n` });
    const engine = createEngine();
    const report = await loadFixtures(engine, plain);
    assert.deepEqual(report.files.map((f) => [f.kind, f.records]), [['calls', 1], ['otel-traces', 2]]);
    assert.deepEqual(ids(engine), ['native', '00000000000000a1', '00000000000000a2']);

    const gz = dirWith({ 'otel-traces.jsonl.gz': gzipSync(`${line('00000000000000b1')}\n`) });
    const fromGz = createEngine();
    await loadFixtures(fromGz, gz);
    assert.deepEqual(ids(fromGz), ['00000000000000b1']);
    assert.deepEqual(filesOf(join(gz, 'otel-traces.jsonl.gz')), [{ file: join(gz, 'otel-traces.jsonl.gz'), kind: 'otel-traces' }]);

    const empty = await loadFixtures(createEngine(), dirWith({ 'otel-traces.jsonl': '' }));
    assert.deepEqual(empty.notices, [`${join(empty.source, 'otel-traces.jsonl')}: empty`]);
  });

  it('every bad line stops the load with file:line: problem', async () => {
    const cases: Array<[string, string]> = [
      ['{nope', 'invalid JSON: '],
      ['[1]', 'an OTLP/JSON trace export must be a JSON object'],
      ['{"resourceSpans":[{"scopeSpans":[{"spans":[{"spanId":"xyz"}]}]}]}', 'resourceSpans[0].scopeSpans[0].spans[0].spanId: must be 16 hex digits'],
      [JSON.stringify(otlpExport([{}, [{ id: '00000000000000c1' }]])), 'No project for resourceSpans[0]: set the resource attributes wandb.entity and wandb.project, or send a project_id header'],
      [line('00000000000000c2', { a: 1, 'a.b': 2 }), "Rejected span (name='op-c2' trace_id="],
    ];
    for (const [bad, problem] of cases) {
      const dir = dirWith({ 'otel-traces.jsonl': `${line('00000000000000c0')}\n${bad}\n` });
      const message = await loadError(dir);
      assert.ok(message.startsWith(`${join(dir, 'otel-traces.jsonl')}:2: ${problem}`), message);
    }
    const invalidUtf8 = dirWith({ 'otel-traces.jsonl': Buffer.concat([Buffer.from('{"a":"'), Buffer.from([0xff]), Buffer.from('"}\n')]) });
    assert.equal(await loadError(invalidUtf8), `${join(invalidUtf8, 'otel-traces.jsonl')}:1: invalid UTF-8 at byte offset 6`);
    const both = dirWith({ 'otel-traces.jsonl': '', 'otel-traces.jsonl.gz': gzipSync('') });
    assert.equal(await loadError(both), `${both}: both otel-traces.jsonl and otel-traces.jsonl.gz exist; keep one`);
    const truncated = dirWith({ 'otel-traces.jsonl.gz': gzipSync(`${line('00000000000000d1')}\n`).subarray(0, 30) });
    assert.match(await loadError(truncated), /otel-traces\.jsonl\.gz: gzip data is truncated\/corrupt/);
  });

  it('text that is not a file loads the same way, named in errors', async () => {
    const engine = createEngine();
    assert.equal(await loadFixtureText(engine, 'otel-traces', `${line('00000000000000e1')}\n`), 1);
    assert.deepEqual(ids(engine), ['00000000000000e1']);
    await assert.rejects(loadFixtureText(engine, 'otel-traces', 'x\n', 'traces'), { message: /^traces:1: invalid JSON/ });
  });
});
