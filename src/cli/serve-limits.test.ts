import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Command } from 'commander';
import { UsageError } from './common.ts';
import { serveCommand } from './serve.ts';
import { parseSocketLimits, socketLimitOptions } from './serve-limits.ts';

test('tq serve limit flags: seconds (fractions allowed) and a connection count, defaults in --help', () => {
  const cmd = socketLimitOptions(new Command('x')).exitOverride();
  cmd.parse(['--request-timeout', '0.25', '--max-connections', '7'], { from: 'user' });
  assert.deepEqual(parseSocketLimits(cmd.opts()), { firstByteTimeoutMs: 10_000, requestTimeoutMs: 250, idleTimeoutMs: 120_000, maxConnections: 7 });
  const bad = (flags: Record<string, string>) => () =>
    parseSocketLimits({ firstByteTimeout: '1', requestTimeout: '1', idleTimeout: '1', maxConnections: '1', ...flags });
  assert.throws(bad({ firstByteTimeout: '0' }), new UsageError("--first-byte-timeout must be a positive number of seconds, got '0'"));
  assert.throws(bad({ idleTimeout: '-1' }), new UsageError("--idle-timeout must be a positive number of seconds, got '-1'"));
  assert.throws(bad({ requestTimeout: 'soon' }), new UsageError("--request-timeout must be a positive number of seconds, got 'soon'"));
  assert.throws(bad({ maxConnections: '0' }), new UsageError('--max-connections must be positive, got 0'));
  const help = serveCommand().helpInformation();
  for (const text of ['--first-byte-timeout <s>', '(default: "10")', '--request-timeout <s>', '(default: "60")', '--idle-timeout <s>', '(default: "120")', '--max-connections <n>', '(default: "1000")']) {
    assert.ok(help.includes(text), text);
  }
});
