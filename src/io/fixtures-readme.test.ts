/**
 * fixtures/README.md states what tq prints on the demo data: its expected lines and tables
 * are checked against tq's own output here, byte for byte where the README shows JSON.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { TQ_BIN } from '../cli/run-tq.testing.ts';

const README = readFileSync(new URL('../../fixtures/README.md', import.meta.url), 'utf8');

function tq(args: string[]): string {
  const r = spawnSync(process.execPath, [TQ_BIN, ...args], { cwd: tmpdir(), encoding: 'utf8', env: { ...process.env, TQ_FIXTURES: '', NO_COLOR: '1' } });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout;
}

/** The fenced block of `lang` that follows the first occurrence of `after`. */
function blockAfter(after: string, lang: string): string {
  const at = README.indexOf(after);
  assert.ok(at >= 0, `README has "${after}"`);
  const open = README.indexOf('```' + lang + '\n', at);
  const close = README.indexOf('\n```', open + lang.length + 4);
  return README.slice(open + lang.length + 4, close + 1);
}

/** A `tq ...` command of a shell block (backslash continuations, '...' quoting) as arguments. */
function commandOf(block: string): string[] {
  const line = block.replace(/\\\n\s*/g, ' ').trim();
  const words = [...line.matchAll(/'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2]);
  assert.equal(words[0], 'tq');
  return words.slice(1);
}

test('the threads worked example: the expected line and the whole answer are what tq threads prints', () => {
  const out = tq(['threads', '-p', 'acme/support-bot']);
  assert.equal(blockAfter('All threads, in the default order', 'json'), out);
  assert.equal(blockAfter('Expected line (fields in ThreadSchema order', 'json'), out.split('\n')[0] + '\n');
});

test('the calls worked example: the command prints the five ids of the table, with the status column as summary.weave.status', () => {
  const args = commandOf(blockAfter('## Worked example: calls whose op name contains "chat"', 'sh'));
  const rows = tq(args).trim().split('\n').map((l) => JSON.parse(l) as { id: string; op_name: string; started_at: string; summary: { weave: { status: string } } });
  const table = README.slice(README.indexOf('| # | id | op | started_at | summary.weave.status |'));
  const expected = [...table.matchAll(/^\| (\d) \| `([^`]+)` \| (\S+) \| (\S+) \| (\w+) \|$/gm)].map((m) => [m[2], m[3], m[4], m[5]]);
  assert.equal(expected.length, 5);
  assert.deepEqual(rows.map((c) => [c.id, c.op_name.split('/op/')[1].split(':')[0], c.started_at, c.summary.weave.status]), expected);
});
