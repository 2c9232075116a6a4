/**
 * `tq dump` and `--data` on the read commands, through bin/tq in a child process.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { findRoute } from '../routes.ts';
import { createEngine } from '../engine.ts';
import { runRecorded } from '../journal/apply.ts';
import { segmentName } from '../journal/data-dir.ts';
import { encodeRecord } from '../journal/record.ts';
import { testContext } from '../write/writes.testing.ts';
import { tempDir } from '../io/temp-dir.testing.ts';

const TQ = fileURLToPath(new URL('../../bin/tq', import.meta.url));
const cwd = tempDir('tq-dump-');

function tq(args: string[]) {
  const r = spawnSync(process.execPath, [TQ, ...args], { cwd, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', TQ_FIXTURES: '' } });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

/** A data directory whose journal holds two call starts. */
function dataDir(): string {
  const dir = tempDir('tq-dump-data-');
  const engine = createEngine();
  const lines = ['a', 'b'].map((id) => {
    const body = { start: { project_id: 'acme/one', id, op_name: 'op', started_at: '2024-01-01T00:00:00Z', attributes: {}, inputs: {} } };
    return encodeRecord(runRecorded(findRoute('/call/start')!, engine, { kind: 'text', text: JSON.stringify(body) }, testContext()).record) + '\n';
  });
  writeFileSync(join(dir, segmentName(1)), lines.join(''));
  return dir;
}

describe('tq dump and --data', () => {
  it('usage mistakes exit 2 with a message', () => {
    const none = tq(['dump']);
    assert.equal(none.code, 2);
    assert.equal(none.err, 'error: tq dump needs --data DIR (compact in place) or --out DIR2 (write a copy)\n');
    const both = tq(['calls', '--project', 'a/b', '--data', 'x', '--fixtures', 'y']);
    assert.equal(both.code, 2);
    assert.equal(both.err, 'error: give --data or --fixtures, not both (a data directory holds its own fixtures)\n');
  });

  it('tq calls --data sees the journaled writes; tq dump folds them into fixture files; --out copies', () => {
    const dir = dataDir();
    const before = tq(['calls', '--data', dir, '--project', 'acme/one', '--columns', 'id,op_name']);
    assert.equal(before.code, 0, before.err);
    const rows = before.out.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
    assert.deepEqual(rows.map((r) => [r.id, r.op_name]), [['a', 'op'], ['b', 'op']]);

    const compacted = tq(['dump', '--data', dir]);
    assert.equal(compacted.code, 0, compacted.err);
    assert.match(compacted.err, new RegExp(`^compacted ${dir}: 2 calls, 2 journaled writes folded into the fixture files \\(\\d+ ms\\)\\n$`));
    assert.deepEqual(readdirSync(dir).sort(), ['base.journal.jsonl', 'calls.jsonl', 'costs.jsonl', 'feedback.jsonl', 'objects.jsonl', 'tables.jsonl']);

    const copy = join(cwd, 'copy');
    const copied = tq(['dump', '--data', dir, '--out', copy]);
    assert.equal(copied.code, 0, copied.err);
    assert.equal(tq(['calls', '--fixtures', copy, '--project', 'acme/one', '--columns', 'id,op_name']).out, before.out);
  });

  it('a damaged journal is read up to the bad record, naming the place and the way on; a missing directory is an error (exit 1)', () => {
    const dir = dataDir();
    writeFileSync(join(dir, segmentName(1)), '{"v":1}\n{"v":1}\n');
    const bad = tq(['calls', '--data', dir, '--project', 'acme/one']);
    assert.equal(bad.code, 0);
    assert.ok(bad.err.startsWith(`journal: ${join(dir, segmentName(1))}:1: route must be a string. Reading only the records before it; nothing in ${dir} was changed. Inspect it with \`tq journal show ${dir} ${segmentName(1)}:1\``), bad.err);
    // Compacting in place would drop the record: refused.
    assert.equal(tq(['dump', '--data', dir]).code, 1);
    const missing = tq(['threads', '--data', join(dir, 'nope'), '--project', 'acme/one']);
    assert.equal(missing.code, 1);
    assert.equal(missing.err, `error: no such data directory: ${join(dir, 'nope')}\n`);
    // tq dump used to create the folder and report it compacted.
    for (const args of [['dump', '--data', join(dir, 'nope')], ['dump', '--data', join(dir, 'nope'), '--out', join(dir, 'copy')]]) {
      const dumped = tq(args);
      assert.deepEqual([dumped.code, dumped.out, dumped.err], [1, '', `error: no such data directory: ${join(dir, 'nope')}\n`], args.join(' '));
      assert.equal(existsSync(join(dir, 'nope')), false);
      assert.equal(existsSync(join(dir, 'copy')), false);
    }
  });
});
