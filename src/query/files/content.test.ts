import assert from 'node:assert/strict';
import { test } from 'node:test';
import { callRoute, grantingContext } from '../../api/call-route.testing.ts';
import { createFile } from '../../write/files.ts';
import { testEngine } from '../../write/writes.testing.ts';

test('file/content answers the stored bytes as octet-stream; unknown digests are 404', () => {
  const engine = testEngine();
  const bytes = new Uint8Array([0, 255, 104, 105]);
  const { digest } = createFile(engine, 'e/p', bytes);
  assert.deepEqual(callRoute(engine, '/file/content', { project_id: 'e/p', digest }), { status: 200, bytes, contentType: 'application/octet-stream' });
  assert.deepEqual(callRoute(engine, '/file/content', { project_id: 'e/q', digest }), { status: 404, body: { reason: `File with digest ${digest} not found` } });
  assert.deepEqual(callRoute(engine, '/file/content', { project_id: 'e/p', digest }, grantingContext('bob', ['e/p'])), {
    status: 403,
    body: { reason: "User 'bob' has no access to project 'e/p'" },
  });
  assert.equal(callRoute(engine, '/file/content', { project_id: 'e/p' }).status, 422);
});
