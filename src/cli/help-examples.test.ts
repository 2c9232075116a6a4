/**
 * The examples in `--help` are run as written, on the bundled demo data: each must print
 * something (an example that prints nothing teaches nothing), and `tq gen`'s examples write to
 * a per-user path, not a fixed one in /tmp that another user may own.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Command } from 'commander';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { TQ_BIN } from './run-tq.testing.ts';
import { callsCommand, threadsCommand } from './queries.ts';
import { genCommand } from './gen.ts';

/** The `tq ...` lines of a command's help examples, split into words as a POSIX shell would ('...' quoting only). */
function examples(cmd: Command): string[][] {
  let help = '';
  cmd.configureOutput({ writeOut: (s) => (help += s) });
  cmd.outputHelp();
  const section = help.slice(help.indexOf('Examples:'));
  return section.split('\n').map((l) => l.trim()).filter((l) => l.startsWith('tq ')).map((line) => {
    const words: string[] = [];
    for (const m of line.replace(/\s+#.*$/, '').matchAll(/'([^']*)'|(\S+)/g)) words.push(m[1] ?? m[2]);
    return words.slice(1);
  });
}

test('every tq calls and tq threads --help example prints lines on the demo data', { timeout: 120_000 }, () => {
  const all = [...examples(callsCommand()), ...examples(threadsCommand())];
  assert.ok(all.length >= 8);
  for (const args of all) {
    // Stream answers go to stdout as bytes: a real process, run where there is no ./fixtures.
    const r = spawnSync(process.execPath, [TQ_BIN, ...args], { cwd: tmpdir(), encoding: 'utf8', env: { ...process.env, TQ_FIXTURES: '', NO_COLOR: '1' } });
    assert.equal(r.status, 0, `tq ${args.join(' ')}: ${r.stderr}`);
    assert.ok(r.stdout.trim() !== '', `tq ${args.join(' ')} prints nothing on the demo data`);
  }
});

test("tq gen --help's examples write to a per-user path", () => {
  const outs = examples(genCommand()).flatMap((args) => args.filter((_, i) => args[i - 1] === '--out' || args[i - 1] === '--fixtures'));
  assert.ok(outs.length >= 2);
  for (const path of outs) assert.match(path, /^~\//, path);
});
