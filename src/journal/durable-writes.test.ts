/**
 * Disk errors under `tq serve --data`: a write the journal cannot take is a 503 with the
 * cause, never a 2xx; reads keep working; each kind of error is logged once.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { allRoutes } from '../routes.ts';
import { Users } from '../server/basic-auth.ts';
import { createTqServer } from '../server/server.ts';
import { openDataDir } from './data-dir.ts';
import { DurableWrites } from './durable-writes.ts';
import { answers, ROOT_AUTH, send } from './journal.testing.ts';
import { fileIo, JournalWriter, type JournalIo } from './writer.ts';
import { tempDir } from '../io/temp-dir.testing.ts';

const users = new Users([{ name: 'root', password: 'pw', projects: ['*'] }]);
const diskError = (code: string, message: string) => Object.assign(new Error(`${code}: ${message}`), { code });
const startCall = (id: string) => ({ path: '/call/start', body: { start: { project_id: 'acme/one', id, op_name: 'op', started_at: '2024-01-01T00:00:00Z', attributes: {}, inputs: {} } } });

async function serve(dir: string, writes: (engine: Parameters<typeof answers>[0]) => DurableWrites) {
  const opened = await openDataDir(dir, { fieldPrefix: 'svc_', writable: true, say: () => {} });
  const tq = createTqServer({ engine: opened.engine, routes: allRoutes(), users, writes: writes(opened.engine) });
  const { port } = await tq.listen('127.0.0.1', 0);
  return { url: `http://127.0.0.1:${port}`, opened, close: async () => (await tq.close(), opened.release()) };
}

async function callIds(url: string): Promise<string[]> {
  const res = await fetch(`${url}/calls/stream_query`, { method: 'POST', headers: { Authorization: ROOT_AUTH }, body: JSON.stringify({ project_id: 'acme/one', columns: ['id'] }) });
  assert.equal(res.status, 200);
  return (await res.text()).split('\n').filter(Boolean).map((l) => (JSON.parse(l) as { id: string }).id);
}

describe('disk errors under tq serve --data', () => {
  it('a write the disk refuses is a 503 with the cause; reads work; each error kind is logged once; writes resume when the disk recovers', async () => {
    const dir = tempDir('tq-disk-');
    let failure: Error | null = null;
    const io: JournalIo = { ...fileIo, write: async (h, b) => (failure ? Promise.reject(failure) : fileIo.write(h, b)) };
    const logged: string[] = [];
    let writer!: JournalWriter;
    const file = join(dir, 'journal-000001.jsonl');
    writer = await JournalWriter.open(file, 0, io);
    const server = await serve(dir, (engine) => new DurableWrites(engine, writer, (m) => logged.push(m)));
    try {
      assert.equal((await send(server.url, startCall('ok-1'))).status, 200);

      failure = diskError('ENOSPC', 'no space left on device');
      const refused = await send(server.url, startCall('full-1'));
      assert.equal(refused.status, 503);
      assert.deepEqual(JSON.parse(refused.text), { reason: 'Write not acknowledged: the journal could not be written (ENOSPC: no space left on device); reads still work' });
      // While the journal fails, a new write is refused before it runs.
      assert.equal((await send(server.url, startCall('full-2'))).status, 503);
      failure = diskError('EIO', 'i/o error');
      const eio = await send(server.url, startCall('eio-1'));
      assert.equal(eio.status, 503);
      assert.match(JSON.parse(eio.text).reason, /\(EIO: i\/o error\)/);
      assert.deepEqual(logged, [
        'journal: write failed (ENOSPC: no space left on device); writes answer 503 until the disk recovers, reads keep working',
        'journal: write failed (EIO: i/o error); writes answer 503 until the disk recovers, reads keep working',
      ]);
      // Reads keep working; the write that hit the error was applied in memory, the refused ones not.
      assert.deepEqual((await callIds(server.url)).sort(), ['full-1', 'ok-1']);

      failure = null;
      assert.equal((await send(server.url, startCall('ok-2'))).status, 200);
      assert.equal(readFileSync(file, 'utf8').split('\n').length - 1, 3, 'the failed write is journaled once the disk is back, so memory and journal agree');
      const live = answers(server.opened.engine);
      await writer.close();
      await server.close();
      const reopened = await openDataDir(dir, { fieldPrefix: 'svc_', writable: false, say: () => {} });
      assert.equal(answers(reopened.engine), live);
    } finally {
      await server.close();
    }
  });

  it('a directory that cannot be written serves reads; every write is a 503 naming why', async () => {
    const dir = tempDir('tq-ro-');
    const cause = diskError('EROFS', "read-only file system, open '/x/tq.lock'");
    const logged: string[] = [];
    const server = await serve(dir, (engine) => new DurableWrites(engine, null, (m) => logged.push(m), cause));
    try {
      for (let i = 0; i < 2; i++) {
        const res = await send(server.url, startCall('x'));
        assert.equal(res.status, 503);
        assert.deepEqual(JSON.parse(res.text), { reason: "Write not acknowledged: the journal could not be written (EROFS: read-only file system, open '/x/tq.lock'); reads still work" });
      }
      assert.equal(logged.length, 1);
      assert.deepEqual(await callIds(server.url), []);
    } finally {
      await server.close();
    }
  });
});
