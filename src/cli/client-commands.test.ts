/**
 * `tq count` and `tq objs` on the bundled demo data: the same answers the
 * routes give over HTTP.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { callRoute } from '../api/call-route.testing.ts';
import { createEngine } from '../engine.ts';
import { BUNDLED_FIXTURES, loadFixtures } from '../io/load-fixtures.ts';
import { main } from './main.ts';
import { tempDir } from '../io/temp-dir.testing.ts';

/** Runs the CLI in-process, capturing what it writes (one process for the whole file: fast). */
async function tq(args: string[], input?: string): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const stdout = process.stdout.write.bind(process.stdout);
  const stderr = process.stderr.write.bind(process.stderr);
  process.stdout.write = ((chunk: string | Uint8Array) => (out.push(String(chunk)), true)) as typeof process.stdout.write;
  process.stderr.write = ((chunk: string | Uint8Array) => (err.push(String(chunk)), true)) as typeof process.stderr.write;
  try {
    const dir = tempDir('tq-cli-client-');
    const request = input === undefined ? [] : ['--request', join(dir, 'req.json')];
    if (input !== undefined) writeFileSync(join(dir, 'req.json'), input);
    const code = await main([...args, ...request, '--fixtures', BUNDLED_FIXTURES]);
    return { code, out: out.join(''), err: err.join('') };
  } finally {
    process.stdout.write = stdout;
    process.stderr.write = stderr;
  }
}

test('tq count answers /calls/query_stats, flags and --request alike', async () => {
  const engine = createEngine();
  await loadFixtures(engine, BUNDLED_FIXTURES);
  const expected = callRoute(engine, '/calls/query_stats', { project_id: 'acme/support-bot', filter: { trace_roots_only: true }, include_total_storage_size: true });
  const r = await tq(['count', '-p', 'acme/support-bot', '--filter-json', '{"trace_roots_only":true}', '--total-storage-size']);
  assert.equal(r.code, 0, r.err);
  assert.deepEqual(JSON.parse(r.out), (expected as { body: unknown }).body);
  const piped = await tq(['count', '--limit', '3'], '{"project_id":"acme/support-bot","query":{"$expr":{"$eq":[{"$getField":"op_name"},{"$literal":"x"}]}}}');
  assert.deepEqual(JSON.parse(piped.out), { count: 0, total_storage_size_bytes: null });
  const bad = await tq(['count', '-p', 'acme/support-bot', '--limit', '-1']);
  assert.equal(bad.code, 2);
  assert.match(bad.err, /error 400 TQ_NEGATIVE_LIMIT: Limit must be a positive integer/);
});

test('tq objs answers /objs/query with its filters; bad flags are usage errors', async () => {
  const engine = createEngine();
  await loadFixtures(engine, BUNDLED_FIXTURES);
  const expected = callRoute(engine, '/objs/query', { project_id: 'acme/evals', filter: { base_object_classes: ['Dataset'], latest_only: true, is_op: false }, metadata_only: true, sort_by: [{ field: 'object_id', direction: 'desc' }], limit: 5 });
  const r = await tq(['objs', '-p', 'acme/evals', '--classes', 'Dataset', '--latest', '--kind', 'object', '--metadata-only', '--sort', 'object_id:desc', '--limit', '5']);
  assert.equal(r.code, 0, r.err);
  assert.deepEqual(JSON.parse(r.out), (expected as { body: unknown }).body);
  assert.ok(((expected as { body: { objs: unknown[] } }).body.objs.length) > 0);
  const usage = await tq(['objs', '--kind', 'thing']);
  assert.equal(usage.code, 2);
  assert.match(usage.err, /--project is required/);
});
