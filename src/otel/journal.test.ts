/**
 * OTLP exports under `tq serve --data` (semantics.md#durability, semantics.md#otel-endpoint): an
 * acknowledged export survives `kill -9`; replay gives byte-identical calls; refused exports are
 * not journaled. A real `tq serve` child, as src/journal/crash.test.ts runs it.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { otlpExport, protobufOf } from './otlp.testing.ts';

const TQ = fileURLToPath(new URL('../../bin/tq', import.meta.url));
const AUTH = 'Basic ' + Buffer.from('api:pw').toString('base64');
const PROJECT = 'acme/otel-journal';

function serve(dir: string): { child: ChildProcess; url: Promise<string>; exited: Promise<unknown> } {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', TQ_PASSWORD: 'pw' };
  delete env.TQ_USER;
  delete env.TQ_FIXTURES;
  const child = spawn(process.execPath, [TQ, 'serve', '--data', dir, '--port', '0'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  const url = new Promise<string>((resolve, reject) => {
    child.stderr!.on('data', (c) => {
      stderr += c;
      const m = /tq listening on (http:\/\/127\.0\.0\.1:\d+)\n/.exec(stderr);
      if (m) resolve(m[1]);
    });
    child.on('exit', () => reject(new Error(`tq serve exited: ${stderr}`)));
  });
  url.catch(() => {});
  return { child, url, exited: new Promise((r) => child.on('exit', r)) };
}

const spanId = (n: number) => n.toString(16).padStart(16, '0');

/** Export n: two spans (a parent and a child with GenAI usage), protobuf, every third gzip'd. */
async function exportNumber(url: string, n: number): Promise<number> {
  const body = protobufOf(
    otlpExport([
      { 'wandb.entity': 'acme', 'wandb.project': 'otel-journal' },
      [
        { id: spanId(2 * n + 1), name: `root ${n}`, attrs: { 'input.value': `{"n": ${n}}`, 'output.value': 'ok' } },
        { id: spanId(2 * n + 2), parent: spanId(2 * n + 1), name: 'chat', attrs: { 'gen_ai.response.model': 'm', 'gen_ai.usage.prompt_tokens': n, 'gen_ai.usage.completion_tokens': 1 } },
      ],
    ]),
  );
  try {
    const gz = n % 3 === 0;
    const res = await fetch(`${url}/otel/v1/traces`, {
      method: 'POST',
      headers: { Authorization: AUTH, 'Content-Type': 'application/x-protobuf', ...(gz ? { 'Content-Encoding': 'gzip' } : {}) },
      body: gz ? gzipSync(body) : body,
    });
    await res.arrayBuffer();
    return res.status;
  } catch {
    return 0; // the server is gone
  }
}

async function calls(url: string): Promise<string> {
  const res = await fetch(`${url}/calls/stream_query`, { method: 'POST', headers: { Authorization: AUTH }, body: JSON.stringify({ project_id: PROJECT }) });
  assert.equal(res.status, 200);
  return res.text();
}

/** The project's op objects (made by the exports, semantics.md#otel-op-objects), as /objs/query answers. */
async function objects(url: string): Promise<string> {
  const res = await fetch(`${url}/objs/query`, { method: 'POST', headers: { Authorization: AUTH }, body: JSON.stringify({ project_id: PROJECT }) });
  assert.equal(res.status, 200);
  return res.text();
}

describe('OTLP exports under tq serve --data', () => {
  it('acknowledged exports replay to byte-identical calls after kill -9; refused ones are not journaled', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tq-otel-journal-'));
    let run = serve(dir);
    try {
      const url = await run.url;
      const statuses = await Promise.all(Array.from({ length: 12 }, (_, n) => exportNumber(url, n)));
      assert.deepEqual(statuses, Array(12).fill(200));
      const refused = await fetch(`${url}/otel/v1/traces`, { method: 'POST', headers: { Authorization: AUTH, 'Content-Type': 'application/x-protobuf' }, body: new Uint8Array([0xff, 0xff]) });
      assert.equal(refused.status, 400);
      const before = await calls(url);
      assert.equal(before.split('\n').filter(Boolean).length, 24);
      const opsBefore = await objects(url);
      assert.equal((JSON.parse(opsBefore) as { objs: unknown[] }).objs.length, 13);
      run.child.kill('SIGKILL');
      await run.exited;
      const journal = readFileSync(join(dir, 'journal-000001.jsonl'), 'utf8').split('\n').filter(Boolean);
      assert.equal(journal.length, 12);
      assert.ok(journal.every((l) => (JSON.parse(l) as { route: string; binary?: unknown }).route === '/otel/v1/traces' && 'binary' in JSON.parse(l)));

      run = serve(dir);
      assert.equal(await calls(await run.url), before);
      assert.equal(await objects(await run.url), opsBefore);
    } finally {
      run.child.kill('SIGKILL');
      await run.exited;
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a kill -9 in the middle of concurrent exports loses none that was acknowledged', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tq-otel-storm-'));
    let run = serve(dir);
    try {
      const url = await run.url;
      const acked: number[] = [];
      const writer = async (w: number) => {
        for (let i = 0; ; i++) {
          const n = w * 1000 + i;
          if ((await exportNumber(url, n)) !== 200) return;
          acked.push(n);
        }
      };
      const writers = Array.from({ length: 4 }, (_, w) => writer(w));
      await new Promise((r) => setTimeout(r, 400));
      run.child.kill('SIGKILL');
      await Promise.all(writers);
      await run.exited;
      assert.ok(acked.length > 0, 'exports were acknowledged before the kill');

      run = serve(dir);
      const stored = new Set((await calls(await run.url)).split('\n').filter(Boolean).map((l) => (JSON.parse(l) as { id: string }).id));
      for (const n of acked) {
        assert.ok(stored.has(spanId(2 * n + 1)) && stored.has(spanId(2 * n + 2)), `acknowledged export ${n} is stored`);
      }
    } finally {
      run.child.kill('SIGKILL');
      await run.exited;
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
