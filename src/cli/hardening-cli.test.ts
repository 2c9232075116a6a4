/**
 * Issue 11 through bin/tq: fixture errors are one line and exit 1 (no stack), empty files are
 * noticed, and a `--request` body of any depth is a 400, never a crash.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { tempDir } from '../io/temp-dir.testing.ts';

const TQ = fileURLToPath(new URL('../../bin/tq', import.meta.url));
const cwd = tempDir('tq-cli-hard-');

function tq(args: string[]) {
  const r = spawnSync(process.execPath, [TQ, ...args], { cwd, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', TQ_FIXTURES: '' } });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

const call = (id: string) => JSON.stringify({ id, project_id: 'e/p', op_name: 'op', trace_id: 't', started_at: '2024-01-01T00:00:00Z' });

test('tq load --check: a truncated .jsonl.gz is one line naming the file, exit 1; an empty file is noticed', () => {
  const d = mkdtempSync(join(cwd, 'fx-'));
  const gz = gzipSync(Array.from({ length: 3000 }, (_, i) => call(`c${i}`)).join('\n') + '\n');
  writeFileSync(join(d, 'calls.jsonl.gz'), gz.subarray(0, gz.length - 200));
  const bad = tq(['load', '--check', d]);
  assert.equal(bad.code, 1);
  assert.match(bad.err, new RegExp(`^fixture error: .*calls\\.jsonl\\.gz: gzip data is truncated/corrupt \\(after \\d+ lines\\)\\n$`));

  writeFileSync(join(d, 'calls.jsonl.gz'), gzipSync(call('a') + '\n'));
  writeFileSync(join(d, 'feedback.jsonl'), '');
  const ok = tq(['load', '--check', d]);
  assert.equal(ok.code, 0, ok.err);
  assert.ok(ok.err.includes(`${join(d, 'feedback.jsonl')}: empty\n`), ok.err);
});

test('tq calls --request: a 2 MB body nested 1,000,000 deep is a 400 on stderr before it is parsed, exit 2', () => {
  const file = join(cwd, 'deep.json');
  writeFileSync(file, `{"project_id":"acme/support-bot","query":${'['.repeat(1_000_000)}${']'.repeat(1_000_000)}}`);
  const r = tq(['calls', '--request', file]);
  assert.equal(r.code, 2);
  const reason = 'Request body is nested more than 1000 levels deep (at character 1040)';
  assert.equal(r.err, `error 400 TQ_BODY_TOO_DEEP: ${reason}\n${JSON.stringify({ reason })}\n`);
});
