/**
 * Issue 22 §1: a record that cannot be replayed never bricks a data directory. The start says
 * which record and why and serves the records before it read-only; `tq journal quarantine` sets
 * the record aside (kept byte for byte) and the next start replays everything after it.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { segmentName } from './data-dir.ts';
import { durableServer, ROOT_AUTH, send } from './journal.testing.ts';
import { parsePlace, QUARANTINE_DIR, quarantineRecord, showRecord } from './quarantine.ts';

const start = (id: string) => ({ path: '/call/start', body: { start: { project_id: 'acme/x', id, trace_id: 't', op_name: 'op', started_at: '2024-01-01T00:00:00Z', attributes: {}, inputs: {} } } });

describe('a journal record that does not replay', () => {
  it('starts read-only with the records before it; quarantine sets it aside; the next start replays the rest', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tq-quarantine-'));
    const said: string[] = [];
    let server = await durableServer(dir);
    try {
      for (const id of ['a', 'b', 'c']) assert.equal((await send(server.url, start(id))).status, 200);
      await server.close();
      // Poison record 2 (as a journal from an older tq whose write failed half-way would be): it
      // no longer replays.
      const file = join(dir, segmentName(1));
      const lines = readFileSync(file, 'utf8').split('\n');
      const { crc: _crc, ...rec } = JSON.parse(lines[1]) as Record<string, unknown>;
      lines[1] = JSON.stringify({ ...rec, body: (rec.body as string).replace('"id":"b"', '"id":7') });
      writeFileSync(file, lines.join('\n'));
      const poisoned = readFileSync(file);

      server = await durableServer(dir, (m) => said.push(m));
      assert.match(said.join('\n'), /journal-000001\.jsonl:2: \/call\/start failed on replay: .*Serving the records before it, read-only/);
      assert.equal((await fetch(`${server.url}/health`)).status, 200);
      const ids = async () => {
        const res = await fetch(`${server.url}/calls/stream_query`, { method: 'POST', headers: { Authorization: ROOT_AUTH }, body: '{"project_id":"acme/x"}' });
        return (await res.text()).trim().split('\n').filter(Boolean).map((l) => (JSON.parse(l) as { id: string }).id);
      };
      assert.deepEqual(await ids(), ['a']);
      const write = await send(server.url, start('d'));
      assert.equal(write.status, 503);
      await server.close();
      assert.deepEqual(readFileSync(file), poisoned, 'nothing was cut or changed');

      assert.match(showRecord(file, 2), /^journal-000001\.jsonl:2: \d+ bytes at byte \d+; decodes: \/call\/start by root/);
      const aside = await quarantineRecord(dir, parsePlace(dir, 'journal-000001.jsonl:2')!.file, 2);
      assert.equal(readFileSync(aside, 'utf8'), lines[1] + '\n');
      assert.deepEqual(readdirSync(join(dir, QUARANTINE_DIR)).length, 1);
      assert.equal(statSync(aside).mode & 0o777, 0o600);

      server = await durableServer(dir);
      assert.deepEqual(await ids(), ['a', 'c']);
      assert.equal((await send(server.url, start('d'))).status, 200);
    } finally {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('FILE:LINE must name a journal file and a positive line', () => {
    assert.deepEqual(parsePlace('/d', 'journal-000001.jsonl:3'), { file: '/d/journal-000001.jsonl', line: 3 });
    assert.equal(parsePlace('/d', '../x.jsonl:3'), null);
    assert.equal(parsePlace('/d', 'journal-000001.jsonl:0'), null);
  });
});
