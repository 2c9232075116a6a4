/**
 * Issue 22 §1: three ordinary requests used to make a --data directory unloadable (a ref with a
 * bad `%` escape threw half-way through a write, and the retried start replayed differently).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { durableServer, ROOT_AUTH, send } from './journal.testing.ts';

const BAD = 'weave:///acme/x/object/o%:v';

describe('a ref with a bad escape cannot poison the journal', () => {
  it('a new data directory is created 0700', async () => {
    const parent = mkdtempSync(join(tmpdir(), 'tq-private-'));
    const server = await durableServer(join(parent, 'data'));
    try {
      assert.equal(statSync(join(parent, 'data')).mode & 0o777, 0o700);
    } finally {
      await server.close();
      rmSync(parent, { recursive: true, force: true });
    }
  });

  it('end, start, start again: every answer is 200, and the directory opens again with the same calls', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tq-poison-'));
    let server = await durableServer(dir);
    try {
      const start = { path: '/call/start', body: { start: { project_id: 'acme/x', id: 'c', trace_id: 't', op_name: 'weave:///acme/x/op/bad%:v', started_at: '2024-01-01T00:00:00Z', attributes: {}, inputs: { r: BAD } } } };
      const statuses = [
        (await send(server.url, { path: '/call/end', body: { end: { project_id: 'acme/x', id: 'c', ended_at: '2024-01-01T00:00:01Z', output: BAD, summary: {} } } })).status,
        (await send(server.url, start)).status,
        (await send(server.url, start)).status,
      ];
      assert.deepEqual(statuses, [200, 200, 200]);
      // Issue 22 §5: the data directory and its journal are private whatever the umask.
      for (const name of readdirSync(dir).filter((n) => n.startsWith('journal-'))) assert.equal(statSync(join(dir, name)).mode & 0o777, 0o600, name);
      const query = async () => {
        const res = await fetch(`${server.url}/calls/stream_query`, { method: 'POST', headers: { Authorization: ROOT_AUTH }, body: JSON.stringify({ project_id: 'acme/x', expand_columns: ['inputs.r', 'output'] }) });
        return `${res.status} ${await res.text()}`;
      };
      const before = await query();
      assert.match(before, /^200 .*"output":"weave:\/\/\/acme\/x\/object\/o%:v"/);
      const refs = await fetch(`${server.url}/refs/read_batch`, { method: 'POST', headers: { Authorization: ROOT_AUTH }, body: JSON.stringify({ refs: [BAD] }) });
      // The escape decodes leniently, so the ref reads as object `o%` at digest `v`, which does not
      // exist: production's 404 (semantics.md#refs-read-batch), never a 500.
      assert.deepEqual([refs.status, await refs.json()], [404, { reason: "Ref read contains 1 digests, but found 0 objects. Diff digests: {'v'}", missing_object_digests: ['v'] }]);
      await server.close();
      server = await durableServer(dir);
      assert.equal((await fetch(`${server.url}/health`)).status, 200);
      assert.equal(await query(), before);
    } finally {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
