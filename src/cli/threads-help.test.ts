import { test } from 'node:test';
import assert from 'node:assert/strict';
import { threadsCommand } from './queries.ts';

test('tq threads --help: --sort names the six sortable fields (semantics.md#threads-sort)', () => {
  const help = threadsCommand().helpInformation();
  // Commander wraps help text to the terminal width; compare with whitespace collapsed.
  const flat = help.replace(/\s+/g, ' ');
  assert.match(flat, /--sort <field\[:asc\|desc\]> thread_id, turn_count, start_time, last_updated, p50_turn_duration_ms, p99_turn_duration_ms /);
});
