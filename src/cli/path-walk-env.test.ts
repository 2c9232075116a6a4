import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pathWalkWasmAvailable, usePathWalkWasm } from '../core/json/path-walk.ts';
import { main } from './main.ts';

test('TQ_PATH_WALK=js: the CLI walks first uses in JavaScript; without it, in WebAssembly', async () => {
  const write = process.stdout.write;
  process.stdout.write = () => true; // --version's line
  try {
    assert.equal(await main(['--version']), 0);
    assert.equal(pathWalkWasmAvailable(), true);
    process.env.TQ_PATH_WALK = 'js';
    assert.equal(await main(['--version']), 0);
    assert.equal(pathWalkWasmAvailable(), false);
  } finally {
    process.stdout.write = write;
    delete process.env.TQ_PATH_WALK;
    usePathWalkWasm(true);
  }
});
