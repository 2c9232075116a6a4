import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { findRoute } from './routes.ts';
import { fullAccessContext } from './api/context.ts';
import { createEngine } from './engine.ts';
import { TQ_VERSION } from './version.ts';

test('TQ_VERSION is package.json\'s version, and /server_info reports it', () => {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
  assert.equal(TQ_VERSION, pkg.version);
  const result = findRoute('/server_info')!.run(createEngine(), { kind: 'text', text: '' }, fullAccessContext('alice'));
  assert.deepEqual(result, { kind: 'json', body: { min_required_weave_python_version: '0.0.0', trace_server_version: pkg.version, tq_version: pkg.version } });
});
