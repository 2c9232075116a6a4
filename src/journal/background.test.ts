/**
 * Background compaction (`tq serve --data DIR --compact-at MB`): past the threshold the
 * journal moves to a new segment and a worker folds the sealed ones into the fixture files,
 * while writes go on; the store answers the same before and after.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { BackgroundCompactor } from './background.ts';
import { segmentName } from './data-dir.ts';
import { answers, durableServer, send } from './journal.testing.ts';
import { JournalWriter } from './writer.ts';
import { tempDir } from '../io/temp-dir.testing.ts';

const startCall = (id: string) => ({ path: '/call/start', body: { start: { project_id: 'acme/one', id, op_name: 'op', started_at: '2024-01-01T00:00:00Z', attributes: {}, inputs: { pad: 'x'.repeat(200) } } } });

describe('background compaction', () => {
  it('compacts the sealed segments in a worker thread while writes continue, losing nothing', async () => {
    const dir = tempDir('tq-bg-');
    const logged: string[] = [];
    const server = await durableServer(dir, (m) => logged.push(m), 2000);
    let live: string;
    try {
      for (let i = 0; i < 20; i++) assert.equal((await send(server.url, startCall(`c${i}`))).status, 200);
      live = answers(server.engine);
    } finally {
      await server.close();
    }
    assert.equal(logged.length, 1, logged.join('\n'));
    assert.match(logged[0], /^journal: compacted journal-000001\.jsonl and older into the fixture files in the background \(\d+ calls, \d+ ms\)$/);
    const files = readdirSync(dir).sort();
    assert.ok(files.includes('calls.jsonl') && !files.includes(segmentName(1)) && files.includes(segmentName(2)), files.join(' '));
    const reopened = await durableServer(dir);
    try {
      assert.equal(answers(reopened.engine), live);
    } finally {
      await reopened.close();
    }
  });

  it('a failed compaction is logged and changes nothing; one runs at a time', async () => {
    const dir = tempDir('tq-bg-fail-');
    const writer = await JournalWriter.open(join(dir, segmentName(1)), 0);
    const logged: string[] = [];
    let runs = 0;
    const compactor = new BackgroundCompactor(dir, 10, writer, (m) => logged.push(m), async () => {
      runs++;
      throw new Error('disk full');
    });
    compactor.check();
    await writer.append('{"x":"0123456789"}');
    compactor.check();
    compactor.check();
    await compactor.idle();
    assert.equal(runs, 1);
    assert.deepEqual(logged, ['journal: background compaction failed (disk full); the journal keeps growing, nothing is lost']);
    assert.ok(existsSync(join(dir, segmentName(1))) && existsSync(join(dir, segmentName(2))));
    await writer.append('{"y":1}');
    assert.equal(writer.currentFile, join(dir, segmentName(2)));
    await writer.close();
  });
});
