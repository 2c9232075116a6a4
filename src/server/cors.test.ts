import { test } from 'node:test';
import assert from 'node:assert/strict';
import { corsEnabled, isLoopbackHost } from './cors.ts';

test('loopback hosts', () => {
  for (const h of ['127.0.0.1', '127.1.2.3', '::1', '[::1]', 'localhost', 'LOCALHOST', 'app.localhost', '::ffff:127.0.0.1']) assert.equal(isLoopbackHost(h), true, h);
  for (const h of ['0.0.0.0', '::', '192.168.1.10', '10.0.0.1', 'example.com', '128.0.0.1', '::ffff:10.0.0.1']) assert.equal(isLoopbackHost(h), false, h);
});

test('CORS: on by default for a loopback bind, off for any other, the flag wins either way', () => {
  assert.equal(corsEnabled('127.0.0.1', undefined), true);
  assert.equal(corsEnabled('127.0.0.1', false), false);
  assert.equal(corsEnabled('0.0.0.0', undefined), false);
  assert.equal(corsEnabled('0.0.0.0', true), true);
});
