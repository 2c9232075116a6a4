/**
 * `kill -9` under load: a real `tq serve --data` child takes a storm of writes from 8
 * concurrent writers (call starts, ends and upsert batches) and is killed with SIGKILL at a
 * random moment. After a restart every acknowledged call is there exactly once with its
 * fields. Repeated over several seeds. Also: a second server on the same directory refuses.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { rng as random } from '../gen/generate.ts';
import { openDataDir } from './data-dir.ts';
import { tempDir } from '../io/temp-dir.testing.ts';
import { columnValues } from '../store/call-table.testing.ts';

const TQ = fileURLToPath(new URL('../../bin/tq', import.meta.url));
const AUTH = 'Basic ' + Buffer.from('api:pw').toString('base64');
const PROJECT = 'acme/crash';

interface Child {
  child: ChildProcess;
  stderr: () => string;
  exited: Promise<number | null>;
}

function startServe(dir: string): Child {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', TQ_PASSWORD: 'pw' };
  delete env.TQ_USER;
  delete env.TQ_FIXTURES;
  const child = spawn(process.execPath, [TQ, 'serve', '--data', dir, '--port', '0'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (c) => (stderr += c));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, stderr: () => stderr, exited };
}

async function listening(run: Child): Promise<string> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const m = /tq listening on (http:\/\/127\.0\.0\.1:\d+)\n/.exec(run.stderr());
    if (m) return m[1];
    if (run.child.exitCode !== null || Date.now() > deadline) assert.fail(`tq serve did not start: ${run.stderr()}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const startOf = (id: string, n: number) => ({ project_id: PROJECT, id, op_name: `op-${n % 3}`, started_at: '2024-01-01T00:00:00Z', attributes: {}, inputs: { n } });
const endOf = (id: string, n: number) => ({ project_id: PROJECT, id, ended_at: '2024-01-01T00:00:01Z', output: { n }, summary: {} });

interface Acked {
  n: number;
  ended: boolean;
}

/** One writer: posts until the server dies, recording what was acknowledged (2xx). */
async function writer(url: string, w: number, rand: () => number, acked: Map<string, Acked>): Promise<void> {
  const post = async (path: string, body: unknown) => {
    try {
      const res = await fetch(url + path, { method: 'POST', headers: { Authorization: AUTH }, body: JSON.stringify(body) });
      await res.text();
      return res.status;
    } catch {
      return 0; // the server is gone
    }
  };
  for (let i = 0; ; i++) {
    const id = `w${w}-${i}`;
    const n = w * 100_000 + i;
    if (rand() < 0.5) {
      if ((await post('/call/start', { start: startOf(id, n) })) !== 200) return;
      acked.set(id, { n, ended: false });
      if ((await post('/call/end', { end: endOf(id, n) })) !== 200) return;
      acked.set(id, { n, ended: true });
    } else {
      const second = `${id}b`;
      const batch = [{ mode: 'start', req: { start: startOf(id, n) } }, { mode: 'start', req: { start: startOf(second, n) } }, { mode: 'end', req: { end: endOf(id, n) } }];
      if ((await post('/call/upsert_batch', { batch })) !== 200) return;
      acked.set(id, { n, ended: true });
      acked.set(second, { n, ended: false });
    }
  }
}

describe('tq serve --data under kill -9', () => {
  for (const seed of [1, 2, 3]) {
    it(`seed ${seed}: every acknowledged call survives a SIGKILL during a storm of 8 writers, exactly once`, async () => {
      const dir = tempDir('tq-crash-');
      const rand = random(seed);
      const server = startServe(dir);
      try {
        const url = await listening(server);
        assert.match(server.stderr(), /data: .* \(0 calls, 0 journaled writes replayed\); a write is acknowledged once it is fsync'd to /);
        if (seed === 1) {
          const second = startServe(dir);
          assert.equal(await second.exited, 1);
          assert.match(second.stderr(), new RegExp(`is in use by another tq \\(pid ${server.child.pid}, lock file .*tq\\.lock\\); stop it first`));
        }
        const acked = new Map<string, Acked>();
        const writers = Array.from({ length: 8 }, (_, w) => writer(url, w, random(seed * 100 + w), acked));
        await new Promise((r) => setTimeout(r, 300 + Math.floor(rand() * 600)));
        server.child.kill('SIGKILL');
        await Promise.all(writers);
        await server.exited;
        assert.ok(acked.size > 0, 'the storm acknowledged writes before the kill');

        const said: string[] = [];
        const opened = await openDataDir(dir, { fieldPrefix: 'svc_', writable: true, say: (m) => said.push(m) });
        opened.release();
        assert.ok(said.every((m) => /^journal: dropped a torn last record at byte \d+$/.test(m)), said.join('\n'));
        const calls = opened.engine.store.project(PROJECT)!.calls;
        const seen = new Map<string, number>();
        for (const id of columnValues(calls, 'id')) seen.set(id, (seen.get(id) ?? 0) + 1);
        for (const [id, want] of acked) {
          assert.equal(seen.get(id), 1, `acknowledged call ${id} is stored exactly once`);
          const row = calls.rowOf(id)!;
          assert.deepEqual(calls.body(row).inputs, { n: want.n });
          assert.equal(calls.opName(row), `op-${want.n % 3}`);
          if (want.ended) {
            assert.equal(Number.isNaN(calls.endedAt.data[row]), false, `${id} was acknowledged ended`);
            assert.deepEqual(calls.body(row).output, { n: want.n });
          }
        }
        assert.equal(calls.pendingEndCount, 0);
      } finally {
        if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill('SIGKILL');
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});
