/**
 * Every flag mistake is reported by the flag's name and exits 2 before anything is loaded or
 * sent; the wording is `--flag: problem, got 'value'`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseSortOption, listOption, intOption, parsePrefix } from './common.ts';
import { parseJsonFlag } from './request-body.ts';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runMainCaptured } from './run-tq.testing.ts';
import { tempDir } from '../io/temp-dir.testing.ts';

test('flag parsers name the flag', () => {
  assert.deepEqual(parseSortOption('started_at', 'direction'), { field: 'started_at', direction: 'asc' });
  assert.deepEqual(parseSortOption('a:b:desc', 'order'), { field: 'a:b', order: 'desc' });
  assert.throws(() => parseSortOption('started_at:down', 'direction'), { message: "--sort: direction must be asc or desc, got 'down' in 'started_at:down'" });
  assert.throws(() => parseSortOption(':desc', 'direction'), { message: "--sort: needs a field before the direction, got ':desc'" });
  assert.throws(() => parseSortOption('', 'direction'), { message: "--sort: needs a field before the direction, got ''" });
  assert.deepEqual(listOption(' a, ,b '), ['a', 'b']);
  assert.throws(() => listOption(' , ', '--columns'), { message: "--columns: needs at least one value, got ' , '" });
  assert.throws(() => intOption('--limit', '1.5'), { message: "--limit: must be an integer, got '1.5'" });
  assert.throws(() => parseJsonFlag('--filter-json', '{'), { message: /^--filter-json: not valid JSON: / });
  assert.throws(() => parsePrefix('x_'), { message: "--field-prefix: must be svc_ or wb_, got 'x_'" });
});

test('tq commands report flag mistakes as `error: --flag: ...`, exit 2', async () => {
  const cases: Array<[string[], string]> = [
    [['calls', '-p', 'acme/evals', '--sort', 'started_at:down'], "--sort: direction must be asc or desc, got 'down' in 'started_at:down'"],
    [['table', '-p', 'acme/evals', '-d', 'x', '--sort', 'a:up'], "--sort: direction must be asc or desc, got 'up' in 'a:up'"],
    [['calls', '-p', 'acme/evals', '--limit', 'ten'], "--limit: must be an integer, got 'ten'"],
    [['calls', '-p', 'acme/evals', '--columns', ','], "--columns: needs at least one value, got ','"],
    [['calls', '-p', 'acme/evals', '--include', 'cost'], "--include: takes costs, feedback, storage_size, total_storage_size; got 'cost'"],
    [['calls', '-p', 'acme/evals', '--filter-json', '{x'], '--filter-json: not valid JSON: '],
    [['calls'], '--project: required (or a project_id in --request)'],
    [['calls', '--request', '/nonexistent/body.json'], "--request: cannot read '/nonexistent/body.json': ENOENT"],
    [['table', '-p', 'acme/evals'], '--digest: required (or a digest in --request)'],
    [['threads', '-p', 'acme/support-bot', '--thread-ids', ''], "--thread-ids: needs at least one value, got ''"],
    [['gen', '--out', '/tmp/never', '--calls', '-1'], '--calls: must not be negative, got -1'],
    [['gen', '--out', '/tmp/never', '--project', 'flat'], "--project: must be <entity>/<project>, got 'flat'"],
    [['fuzz', '--base-url', 'http://127.0.0.1:1', '--password', 'p', '--runs', '0'], '--runs: must be at least 1'],
    [['check', '--base-url', 'http://127.0.0.1:1'], '--password: required (or TQ_PASSWORD)'],
    [['check', '--base-url', 'http://127.0.0.1:1', '--password', 'p', '--tags', 'thread'], "--tags: no case has the tag or grade 'thread' (closest: threads, "],
    [['check', '--base-url', 'http://127.0.0.1:1', '--password', 'p', '--skip-tags', 'deviates'], "--skip-tags: no case has the tag or grade 'deviates' (closest: "],
    [['check', '--base-url', 'http://127.0.0.1:1', '--password', 'p', '--other-user', 'bob'], '--other-user: needs --other-password (and the other way round)'],
  ];
  for (const [args, message] of cases) {
    const r = await runMainCaptured(args);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.err}`);
    assert.equal(r.out, '');
    assert.ok(r.err.startsWith(`error: ${message}`), `${args.join(' ')}: ${r.err}`);
  }
  const missing = await runMainCaptured(['calls', '-p', 'a/b', '--fixtures', '/nonexistent/fixtures']);
  assert.deepEqual([missing.code, missing.err], [1, 'fixture error: /nonexistent/fixtures: no such file or directory\n']);
  const file = join(tempDir('tq-flags-'), 'body.json');
  writeFileSync(file, '[1]');
  // Flags edit the body, so it must be an object (unedited, the route itself answers a 422).
  const request = await runMainCaptured(['calls', '--request', file, '--limit', '1']);
  assert.deepEqual([request.code, request.err], [2, 'error: --request: must hold a JSON object\n']);
});
