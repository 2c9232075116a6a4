/**
 * Op objects for OTLP spans (semantics.md#otel-op-objects).
 *
 * The placeholder digests were computed with Python from production's definitions:
 *   bytes_digest(PLACEHOLDER_OP_SOURCE.encode())                         → PLACEHOLDER_FILE
 *   str_digest(json.dumps(build_op_val(PLACEHOLDER_FILE), sort_keys=True)) → PLACEHOLDER_OP
 * (`bytes_digest`: SHA-256, URL-safe base64, `-`→`X`, `_`→`Y`, no padding.)
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createEngine } from '../engine.ts';
import { runPath } from '../run-path.ts';
import type { StreamResult } from '../api/types.ts';
import { fullAccessContext } from '../api/context.ts';
import { filesOf, loadFixtureFiles } from '../io/load-fixtures.ts';
import { filesForKinds } from '../load/fixture-kinds.ts';
import { safeObjectName } from './op-objects.ts';
import { otlpExport } from './otlp.testing.ts';
import { tempDir } from '../io/temp-dir.testing.ts';

const PLACEHOLDER_FILE = 'RZUe6YW6bibaEmKo0QXy3XAt0yd6hMMo9hj9KXgaXrY';
const PLACEHOLDER_OP = 'XNI9iHYwcffKfuDa2rGjQoIxUOw7cnWmLEiNufRD8RY';
const PROJECT = { 'wandb.entity': 'acme', 'wandb.project': 'ops' };
const ctx = fullAccessContext('alice');

function exportSpans(engine: ReturnType<typeof createEngine>, spans: Array<{ id: string; name: string }>) {
  return runPath(engine, '/otel/v1/traces', otlpExport([PROJECT, spans]), ctx);
}

/** The op_name of every call of the project, as /calls/stream_query answers them. */
const opNames = (engine: ReturnType<typeof createEngine>): string[] => {
  const result = runPath(engine, '/calls/stream_query', { project_id: 'acme/ops', columns: ['op_name'], sort_by: [{ field: 'id', direction: 'asc' }] }, ctx);
  assert.equal(result.kind, 'stream');
  return [...(result as StreamResult).lines].map((l) => (JSON.parse(l) as { op_name: string }).op_name);
};

describe('OTLP op objects', () => {
  it("safe names: production's make_safe_name", () => {
    assert.equal(safeObjectName('My Agent/Run <v2>'), 'my_agent_run_v2');
    assert.equal(safeObjectName('openai.chat'), 'openai.chat');
    assert.equal(safeObjectName('a b  c'), 'a_b__c');
    assert.equal(safeObjectName('ÉCOLE'), 'école');
  });

  it('a new name gets a placeholder op and the source file; the same name again reuses it', () => {
    const engine = createEngine();
    exportSpans(engine, [{ id: '00000000000000a1', name: 'Chat Step' }]);
    const project = engine.store.project('acme/ops')!;
    assert.deepEqual([...project.files.keys()], [PLACEHOLDER_FILE]);
    const [op] = project.objects.get('chat_step')!;
    assert.deepEqual({ digest: op.digest, kind: op.kind, val: op.val }, { digest: PLACEHOLDER_OP, kind: 'op', val: { _type: 'CustomWeaveType', weave_type: { type: 'Op' }, files: { 'obj.py': PLACEHOLDER_FILE } } });

    exportSpans(engine, [{ id: '00000000000000a2', name: 'chat step' }]);
    assert.equal(project.objects.get('chat_step')!.length, 1);
    const ref = `weave:///acme/ops/op/chat_step:${PLACEHOLDER_OP}`;
    assert.deepEqual(opNames(engine), [ref, ref]);
  });

  it("an existing op's latest version is the ref; no source file is written when one name had an op", () => {
    const engine = createEngine();
    const val = { _type: 'CustomWeaveType', weave_type: { type: 'Op' }, load_op: 'NO_LOAD_OP' };
    const { body } = runPath(engine, '/obj/create', { obj: { project_id: 'acme/ops', object_id: 'chat', val } }, ctx) as { body: { digest: string } };
    exportSpans(engine, [
      { id: '00000000000000b1', name: 'Chat' },
      { id: '00000000000000b2', name: 'fresh' },
    ]);
    assert.deepEqual(opNames(engine), [`weave:///acme/ops/op/chat:${body.digest}`, `weave:///acme/ops/op/fresh:${PLACEHOLDER_OP}`]);
    assert.equal(engine.store.project('acme/ops')!.files.size, 0);
  });

  it('a name that cannot be an op ref refuses the whole export and stores nothing', () => {
    const engine = createEngine();
    assert.throws(
      () => exportSpans(engine, [
        { id: '00000000000000c1', name: 'fine' },
        { id: '00000000000000c2', name: 'redis:get' },
      ]),
      { status: 400, message: "name cannot contain ':'" },
    );
    assert.equal(engine.store.project('acme/ops'), undefined);
  });

  it('a name another class holds refuses the whole export before any op object of any project is written', () => {
    const engine = createEngine();
    // `taken`: an op of class Model, then a non-op latest version (so no live op is its latest).
    runPath(engine, '/obj/create', { obj: { project_id: 'acme/b', object_id: 'taken', val: { _type: 'CustomWeaveType', weave_type: { type: 'Op' }, _class_name: 'M', _bases: ['Model', 'Object', 'BaseModel'] } } }, ctx);
    runPath(engine, '/obj/create', { obj: { project_id: 'acme/b', object_id: 'taken', val: { a: 1 } } }, ctx);
    const before = JSON.stringify([...engine.store.project('acme/b')!.objects]);
    assert.throws(
      () => runPath(engine, '/otel/v1/traces', otlpExport([{ 'wandb.entity': 'acme', 'wandb.project': 'a' }, [{ id: '00000000000000e1', name: 'fresh' }]], [{ 'wandb.entity': 'acme', 'wandb.project': 'b' }, [{ id: '00000000000000e2', name: 'Taken' }]]), ctx),
      { status: 400, message: "Cannot publish 'taken' as a generic (untyped) object: that name is already used by a Model in this project. Object versions cannot share types, publish this object under a different name." },
    );
    assert.equal(engine.store.project('acme/a'), undefined);
    assert.equal(JSON.stringify([...engine.store.project('acme/b')!.objects]), before);
    assert.equal(engine.store.project('acme/b')!.calls.size, 0);
  });

  it("an OTLP fixture file brings the objects file with it, so a fixture op is reused as on the server", async () => {
    const dir = tempDir('tq-otel-ops-');
    const val = { _type: 'CustomWeaveType', weave_type: { type: 'Op' }, load_op: 'NO_LOAD_OP' };
    writeFileSync(join(dir, 'objects.jsonl'), JSON.stringify({ project_id: 'acme/ops', object_id: 'chat', created_at: '2024-01-01T00:00:00Z', val }) + '\n');
    writeFileSync(join(dir, 'otel-traces.jsonl'), JSON.stringify(otlpExport([PROJECT, [{ id: '00000000000000d1', name: 'Chat' }]])) + '\n');
    const files = filesForKinds(filesOf(dir), ['calls']);
    assert.deepEqual(files.map((f) => f.kind), ['objects', 'otel-traces']);
    const lazy = createEngine();
    await loadFixtureFiles(lazy, dir, files);
    const whole = createEngine();
    await loadFixtureFiles(whole, dir, filesOf(dir));
    assert.deepEqual(opNames(lazy), opNames(whole));
    assert.match(opNames(lazy)[0], /^weave:\/\/\/acme\/ops\/op\/chat:(?!XNI9)/);
    assert.deepEqual(filesForKinds(filesOf(dir), ['feedback']), []);
  });
});
