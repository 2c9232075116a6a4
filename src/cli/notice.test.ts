import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createEngine } from '../engine.ts';
import { BUNDLED_FIXTURES, loadFixtures } from '../io/load-fixtures.ts';
import { closestNames, editDistance, missingDataNotice } from './notice.ts';
import { runMainCaptured as runTq } from './run-tq.testing.ts';

const DIGEST = '10539a35ae35030cddcb98ffcd1d555ec899184d64c3185ec8a87e91370cdf3f';

test('editDistance and closestNames: nearest first, then by name, five at most', async () => {
  assert.equal(editDistance('acme/suport-bot', 'acme/support-bot'), 1);
  assert.equal(editDistance('', 'abc'), 3);
  assert.equal(editDistance('kitten', 'sitting'), 3);
  assert.equal(closestNames('x', []), 'none');
  assert.equal(closestNames('b/b', ['a/a', 'b/c', 'b/b2']), 'b/b2, b/c, a/a');
  assert.equal(closestNames('p', ['p1', 'p2', 'p3', 'p4', 'p5', 'p6']), 'p1, p2, p3, p4, p5, …');
});

test('missingDataNotice names an unknown project or digest, and nothing for known ones', async () => {
  const engine = createEngine();
  await loadFixtures(engine, BUNDLED_FIXTURES);
  assert.equal(
    missingDataNotice(engine, { project_id: 'acme/suport-bot' }),
    'tq: no project "acme/suport-bot" in the data (projects: acme/support-bot, acme/evals, globex/rag-search)',
  );
  assert.equal(missingDataNotice(engine, { project_id: 'acme/evals', digest: 'abc' }), `tq: no table "abc" in project acme/evals (tables: ${DIGEST})`);
  assert.equal(missingDataNotice(engine, { project_id: 'acme/evals', digest: DIGEST }), undefined);
  assert.equal(missingDataNotice(engine, { project_id: 'acme/support-bot' }), undefined);
  assert.equal(missingDataNotice(engine, { project_id: 7 }), undefined);
});

test('the notice goes to stderr with --verbose or on a terminal; stdout stays empty, exit 0', async () => {
  const quiet = await runTq(['calls', '-p', 'acme/suport-bot']);
  assert.deepEqual([quiet.code, quiet.out, quiet.err], [0, '', '']);
  const verbose = await runTq(['calls', '-p', 'acme/suport-bot', '--verbose']);
  assert.deepEqual([verbose.code, verbose.out], [0, '']);
  assert.equal(verbose.err, 'tq: no project "acme/suport-bot" in the data (projects: acme/support-bot, acme/evals, globex/rag-search)\n');
  const tty = await runTq(['threads', '-p', 'acme/suport-bot'], { TQ_FORCE_TTY: '1' });
  assert.deepEqual([tty.code, tty.out], [0, '']);
  assert.match(tty.err, /^tq: no project "acme\/suport-bot" in the data/);
  const table = await runTq(['table', '-p', 'acme/evals', '-d', DIGEST.slice(0, 20), '--verbose']);
  assert.deepEqual([table.code, table.out, table.err], [0, '', `tq: no table "${DIGEST.slice(0, 20)}" in project acme/evals (tables: ${DIGEST})\n`]);
});
