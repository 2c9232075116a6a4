import { test } from 'node:test';
import assert from 'node:assert/strict';
import { progressReporter } from './progress.ts';
import { runMainCaptured as runTq } from './run-tq.testing.ts';

test('progress stays silent without a terminal and during the quiet period', async () => {
  assert.equal(progressReporter({ enabled: false }), undefined);
  const written: string[] = [];
  let now = 0;
  const report = progressReporter({ enabled: true, afterMs: 1000, now: () => now, write: (t) => written.push(t) })!;
  report({ file: 'calls.jsonl', bytesRead: 10, totalBytes: 100, records: 1 });
  assert.deepEqual(written, []);
});

test('after the quiet period: one overwriting line per report, a newline when the file is done', async () => {
  const written: string[] = [];
  let now = 0;
  const report = progressReporter({ enabled: true, afterMs: 1000, now: () => now, write: (t) => written.push(t) })!;
  now = 2000;
  report({ file: 'calls.jsonl', bytesRead: 4e6, totalBytes: 8e6, records: 5000 });
  report({ file: 'calls.jsonl', bytesRead: 8e6, totalBytes: 8e6, records: 9000 });
  assert.deepEqual(written, [
    '\rloading calls.jsonl: 4.0 MB 50%, 5000 records, 2.0 MB/s   ',
    '\rloading calls.jsonl: 8.0 MB 100%, 9000 records, 4.0 MB/s   ',
    '\n',
  ]);
});

test('every loading command shows progress on a terminal, tq load --check included', async () => {
  const env = { TQ_FORCE_TTY: '1', TQ_PROGRESS_AFTER_MS: '0' };
  for (const args of [['load', '--check'], ['calls', '-p', 'acme/evals', '--limit', '1'], ['ls']]) {
    const r = await runTq(args, env);
    assert.equal(r.code, 0, r.err);
    assert.match(r.err, /\rloading .*calls\.jsonl: \d+\.\d MB 100%, 297 records/, args.join(' '));
  }
  // Not a terminal: nothing.
  assert.doesNotMatch((await runTq(['load', '--check'], { TQ_PROGRESS_AFTER_MS: '0' })).err, /loading/);
});
