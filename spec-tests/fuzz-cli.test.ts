/**
 * `tq fuzz` end to end (issue 21 §6): against a wb_ server with --field-prefix wb_ it finds no
 * false difference (its reference engine speaks the target's spelling); against a wrong server
 * it prints the difference once, with its first differing key path, and `--save DIR` writes a
 * case file that reproduces the difference when tq check's runner replays it (and passes
 * against tq itself).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Server } from 'node:http';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { allRoutes } from '../src/routes.ts';
import { runMainCaptured } from '../src/cli/run-tq.testing.ts';
import type { ConformanceCase } from '../src/check/case.ts';
import { fuzz } from '../src/check/fuzz.ts';
import { createHttpTarget } from '../src/check/http-target.ts';
import { runCases } from '../src/check/runner.ts';
import { createEngine } from '../src/engine.ts';
import { Users } from '../src/server/basic-auth.ts';
import { createTqServer, type TqServer } from '../src/server/server.ts';
import { caseSchemaCheck } from './bundle.ts';
import { listenProxy, rewritingProxy } from './proxy.testing.ts';

const USER = { name: 'fuzzer', password: 'fuzz-pw' };
const OTHER = { name: 'nobody', password: 'x' };
let wb: TqServer, wbUrl = '';
let proxy: Server, proxyUrl = '';
let dir = '';

/** In front of the wb_ server: drops every line's `wb_user_id` value to null (one changed behaviour). */
function userIdDropper(target: URL): Server {
  return rewritingProxy(target, {
    rewrite: (lines, path) =>
      path !== '/calls/stream_query'
        ? lines
        : lines.map((l) => {
            const line = JSON.parse(l) as Record<string, unknown>;
            if ('wb_user_id' in line) line.wb_user_id = null;
            return JSON.stringify(line);
          }),
  });
}

before(async () => {
  wb = createTqServer({ engine: createEngine(undefined, { fieldPrefix: 'wb_' }), routes: allRoutes(), users: new Users([{ name: USER.name, password: USER.password, projects: ['*'] }]) });
  const { host, port } = await wb.listen('127.0.0.1', 0);
  wbUrl = `http://${host}:${port}`;
  proxy = userIdDropper(new URL(wbUrl));
  proxyUrl = await listenProxy(proxy);
  dir = mkdtempSync(join(tmpdir(), 'tq-fuzz-'));
});

after(async () => {
  await new Promise<void>((r) => proxy.close(() => r()));
  await wb.close();
  rmSync(dir, { recursive: true, force: true });
});

test('tq fuzz --field-prefix wb_ finds no difference with a correct wb_ server (the reference speaks wb_ too)', { timeout: 120_000 }, async () => {
  const result = await fuzz({ target: createHttpTarget({ baseUrl: wbUrl, user: USER, other: OTHER, fieldPrefix: 'wb_' }), seed: 3, runs: 60 });
  assert.deepEqual([result.ok, result.difference], [true, undefined]);
  const r = await runMainCaptured(['fuzz', '--base-url', wbUrl, '--user', USER.name, '--password', USER.password, '--prefix', 'wb_', '--runs', '15'], { NO_COLOR: '1' });
  assert.deepEqual([r.code, r.out], [0, '15 runs, no difference (seed 1)\n'], r.err);
  const wrongSpelling = await runMainCaptured(['fuzz', '--base-url', wbUrl, '--user', USER.name, '--password', USER.password]);
  assert.deepEqual([wrongSpelling.code, wrongSpelling.err], [2, 'error: the server answers wb_ fields: add --field-prefix wb_\n']);
});

test('tq fuzz --save writes a case that reproduces the difference; the difference is printed once, with its key path', { timeout: 180_000 }, async () => {
  const r = await runMainCaptured(['fuzz', '--base-url', proxyUrl, '--user', USER.name, '--password', USER.password, '--field-prefix', 'wb_', '--runs', '100', '--seed', '5', '--save', dir], { NO_COLOR: '1' });
  assert.equal(r.code, 1, r.err + r.out);
  const [differenceLine, savedLine, ...rest] = r.out.split('\n');
  assert.match(differenceLine, /^difference: line group \d+ at \$\.wb_user_id: expected "u\d", got null \(\d+ vs \d+ lines\)$/);
  assert.equal(r.out.split('difference:').length, 2, 'printed once');
  assert.equal((r.out + r.err).split('at $.wb_user_id').length, 2, 'the difference is not repeated on stderr');
  assert.deepEqual(rest, ['']);
  const files = readdirSync(dir);
  assert.equal(files.length, 1);
  assert.equal(savedLine, `minimal case written to ${join(dir, files[0])} (check its expectation against the spec before adding it to spec-tests/cases)`);
  const saved = JSON.parse(readFileSync(join(dir, files[0]), 'utf8')) as ConformanceCase;
  assert.deepEqual(caseSchemaCheck()(saved), []);
  assert.equal(saved.request.path, '/calls/stream_query');
  assert.ok(JSON.stringify(saved.expect).includes('"svc_user_id"'), 'the case is authored in svc_, as every case is');
  // Replayed as tq check runs it: fails against the wrong server, passes against the right one.
  const other = OTHER;
  const wrong = await runCases([saved], createHttpTarget({ baseUrl: proxyUrl, user: USER, other, fieldPrefix: 'wb_' }));
  assert.equal(wrong.failed.length, 1);
  assert.match(wrong.failed[0].diff, /at \$\.wb_user_id: expected "u\d", got null/);
  const right = await runCases([saved], createHttpTarget({ baseUrl: wbUrl, user: USER, other, fieldPrefix: 'wb_' }));
  assert.deepEqual([right.passed, right.failed], [1, []]);
});
