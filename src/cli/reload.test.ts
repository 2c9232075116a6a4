import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Engine } from '../api/types.ts';
import { createEngine } from '../engine.ts';
import { generateCalls } from '../gen/generate.ts';
import { loadFixtures } from '../io/load-fixtures.ts';
import { postJson, startDemoServer } from '../server/serving.testing.ts';
import { writeDirAtomically } from './out-dir.ts';
import { createReloader } from './reload.ts';
import { tempDir } from '../io/temp-dir.testing.ts';

const callsText = (n: number, seed = 1) => [...generateCalls({ calls: n, seed, projectId: 'gen/p' })].join('\n') + '\n';

function fixturesDir(n: number): string {
  const dir = tempDir('tq-reload-');
  writeFileSync(join(dir, 'calls.jsonl'), callsText(n));
  return dir;
}

async function load(path: string): Promise<Engine> {
  const engine = createEngine();
  await loadFixtures(engine, path);
  return engine;
}

function harness(path: string, debounceMs = 200) {
  const swapped: Engine[] = [];
  const logged: string[] = [];
  let loads = 0, concurrent = 0, maxConcurrent = 0;
  const reloader = createReloader({
    path,
    debounceMs,
    load: async () => {
      loads++;
      maxConcurrent = Math.max(maxConcurrent, ++concurrent);
      try {
        return await load(path);
      } finally {
        concurrent--;
      }
    },
    swap: (e) => swapped.push(e),
    log: (l) => logged.push(l),
  });
  return { reloader, swapped, logged, stats: () => ({ loads, maxConcurrent }) };
}

const until = async (cond: () => boolean, ms = 20_000) => {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) assert.fail('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
};

describe('reloading fixtures', () => {
  it('a reload swaps in the new data and logs the counts', async () => {
    const dir = fixturesDir(3);
    const h = harness(dir);
    writeFileSync(join(dir, 'calls.jsonl'), callsText(5));
    await h.reloader.reload('SIGHUP');
    assert.equal(h.swapped.length, 1);
    assert.equal(h.swapped[0].store.counts().calls, 5);
    assert.match(h.logged[0], new RegExp(`^tq: reloaded ${dir} \\(SIGHUP\\) in \\d+ ms: 1 projects, 5 calls, 0 tables, 0 objects`));
  });

  it('a bad file keeps the old data and logs file:line', async () => {
    const dir = fixturesDir(3);
    const h = harness(dir);
    appendFileSync(join(dir, 'calls.jsonl'), '{"id": oops}\n');
    await h.reloader.reload('SIGHUP');
    assert.equal(h.swapped.length, 0);
    assert.deepEqual(h.logged, [`tq: reload (SIGHUP) failed, still serving the previous data: ${join(dir, 'calls.jsonl')}:4: invalid JSON: Unexpected token 'o', "{"id": oops}" is not valid JSON`]);
  });

  it('reloads never overlap: requests during a reload make one more', async () => {
    const h = harness(fixturesDir(3));
    const first = h.reloader.reload('a');
    void h.reloader.reload('b');
    void h.reloader.reload('c');
    await first;
    assert.deepEqual(h.stats(), { loads: 2, maxConcurrent: 1 });
    assert.match(h.logged[1], /\(c\)/);
  });

  it('--watch: a burst of changes is one reload; other files are ignored; a single calls file is watched too', async () => {
    const dir = fixturesDir(1);
    const h = harness(dir);
    const stop = h.reloader.watch();
    try {
      writeFileSync(join(dir, 'notes.txt'), 'not a fixture');
      for (let n = 2; n <= 4; n++) writeFileSync(join(dir, 'calls.jsonl'), callsText(n));
      await until(() => h.swapped.length === 1);
      await new Promise((r) => setTimeout(r, 400));
      assert.equal(h.swapped.length, 1);
      assert.equal(h.swapped[0].store.counts().calls, 4);
      assert.match(h.logged[0], /\(calls\.jsonl changed\)/);
    } finally {
      stop();
    }
    const file = join(fixturesDir(0), 'calls.jsonl');
    const single = harness(file);
    const stopSingle = single.reloader.watch();
    try {
      writeFileSync(file, callsText(6));
      await until(() => single.swapped.length === 1);
      assert.equal(single.swapped[0].store.counts().calls, 6);
    } finally {
      stopSingle();
    }
  });

  it('--watch: a file that ends mid-line is not reloaded (said once) until its line is whole; SIGHUP still reloads at once', async () => {
    const dir = fixturesDir(1);
    const h = harness(dir, 100);
    const stop = h.reloader.watch();
    const file = join(dir, 'calls.jsonl');
    try {
      const text = callsText(5);
      // A writer cut off inside the fifth line, then writing on in small pieces.
      const cut = text.length - 40;
      writeFileSync(file, text.slice(0, cut));
      for (let at = cut; at < text.length - 1; at += 10) {
        await new Promise((r) => setTimeout(r, 350));
        appendFileSync(file, text.slice(at, Math.min(at + 10, text.length - 1)));
      }
      await new Promise((r) => setTimeout(r, 600));
      assert.equal(h.swapped.length, 0, 'nothing is swapped in while the last line is incomplete');
      assert.deepEqual(h.logged, [`tq: --watch: ${file} ends in the middle of a line (still being written?); not reloaded until it ends with a newline`]);
      appendFileSync(file, '\n');
      await until(() => h.swapped.length === 1);
      assert.equal(h.swapped[0].store.counts().calls, 5);
      assert.match(h.logged[1], /^tq: reloaded .* \(calls\.jsonl changed\) in \d+ ms: 1 projects, 5 calls/);
      // SIGHUP is an explicit request: it loads what is there (here a whole file) without waiting.
      writeFileSync(file, callsText(2));
      await h.reloader.reload('SIGHUP');
      assert.equal(h.swapped.at(-1)!.store.counts().calls, 2);
    } finally {
      stop();
    }
  });

  it('--watch follows a fixtures folder replaced as a whole (tq gen --force)', async () => {
    const dir = fixturesDir(1);
    const h = harness(dir);
    const stop = h.reloader.watch();
    try {
      await writeDirAtomically(dir, true, async (staging) => writeFileSync(join(staging, 'calls.jsonl'), callsText(7)));
      await until(() => h.swapped.length === 1);
      assert.equal(h.swapped[0].store.counts().calls, 7);
      // The watcher now follows the new folder.
      writeFileSync(join(dir, 'calls.jsonl'), callsText(8));
      await until(() => h.swapped.length === 2);
      assert.equal(h.swapped[1].store.counts().calls, 8);
    } finally {
      stop();
    }
  });

  it('a swap mid-stream: the running query finishes on the old data, the next one sees the new', async () => {
    const { srv, base } = await startDemoServer({ engine: await load(fixturesDir(1000)) });
    try {
      const res = await postJson(base, '/calls/stream_query', { project_id: 'gen/p' });
      const reader = res.body!.getReader();
      const first = await reader.read(); // headers and the first batch are out: the query runs
      srv.swapEngine(createEngine());
      let text = Buffer.from(first.value!).toString();
      for (let r = await reader.read(); !r.done; r = await reader.read()) text += Buffer.from(r.value).toString();
      assert.equal(text.trim().split('\n').length, 1000);
      const after = await postJson(base, '/calls/stream_query', { project_id: 'gen/p' });
      assert.equal(await after.text(), '');
    } finally {
      await srv.close();
    }
  });
});
