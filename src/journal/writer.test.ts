import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileIo, JournalWriter, type JournalIo } from './writer.ts';
import { tempDir } from '../io/temp-dir.testing.ts';

const journalFile = () => join(tempDir('tq-writer-'), 'journal-000001.jsonl');
const diskError = (code: string, message: string) => Object.assign(new Error(`${code}: ${message}`), { code });

/** Real file operations, with failures switched on by the test. */
function faultyIo(): JournalIo & { failWrite: Error | null; failSync: Error | null; partial: boolean } {
  const io = {
    failWrite: null as Error | null,
    failSync: null as Error | null,
    /** A failing write still puts half its bytes in the file (as a full disk may). */
    partial: true,
    async write(handle: Parameters<JournalIo['write']>[0], bytes: Buffer) {
      if (io.failWrite) {
        if (io.partial) await fileIo.write(handle, bytes.subarray(0, Math.floor(bytes.length / 2)));
        throw io.failWrite;
      }
      await fileIo.write(handle, bytes);
    },
    async sync(handle: Parameters<JournalIo['sync']>[0]) {
      if (io.failSync) throw io.failSync;
      await fileIo.sync(handle);
    },
    truncate: fileIo.truncate,
  };
  return io;
}

describe('JournalWriter', () => {
  it('appends records in order, and concurrent appends share fsyncs (group commit)', async () => {
    const file = journalFile();
    const writer = await JournalWriter.open(file, 0);
    await Promise.all(Array.from({ length: 50 }, (_, i) => writer.append(`{"n":${i}}`)));
    assert.equal(readFileSync(file, 'utf8'), Array.from({ length: 50 }, (_, i) => `{"n":${i}}\n`).join(''));
    assert.ok(writer.syncs >= 1 && writer.syncs <= 3, `50 concurrent appends took ${writer.syncs} fsyncs`);
    assert.equal(writer.size, readFileSync(file).length);
    await writer.close();
  });

  it('appends after the valid length it was opened with', async () => {
    const file = journalFile();
    writeFileSync(file, '{"a":1}\n');
    const writer = await JournalWriter.open(file, 8);
    await writer.append('{"b":2}');
    await writer.close();
    assert.equal(readFileSync(file, 'utf8'), '{"a":1}\n{"b":2}\n');
  });

  it('rejects a round the disk refuses, cuts the partial append off and writes its records again once the disk recovers', async () => {
    const file = journalFile();
    const io = faultyIo();
    const writer = await JournalWriter.open(file, 0, io);
    await writer.append('{"ok":1}');
    io.failWrite = diskError('ENOSPC', 'no space left on device');
    await assert.rejects(writer.append('{"lost?":2}'), /ENOSPC/);
    assert.equal(writer.healthy(), false);
    assert.notEqual(readFileSync(file, 'utf8'), '{"ok":1}\n', 'the failed write left half a record');
    await assert.rejects(writer.heal(), /ENOSPC/);
    io.failWrite = null;
    io.failSync = diskError('EIO', 'i/o error');
    await assert.rejects(writer.heal(), /EIO/);
    io.failSync = null;
    await writer.heal();
    assert.equal(writer.healthy(), true);
    await writer.append('{"ok":3}');
    await writer.close();
    assert.equal(readFileSync(file, 'utf8'), '{"ok":1}\n{"lost?":2}\n{"ok":3}\n');
  });

  it('rotates to a new segment between records, and not while records of the current one are failing', async () => {
    const first = journalFile();
    const second = first.replace('000001', '000002');
    const io = faultyIo();
    const writer = await JournalWriter.open(first, 0, io);
    const before = writer.append('{"a":1}');
    const rotated = writer.rotate(second);
    const after = writer.append('{"b":2}');
    await Promise.all([before, rotated, after]);
    assert.equal(writer.currentFile, second);
    assert.equal(readFileSync(first, 'utf8'), '{"a":1}\n');
    assert.equal(readFileSync(second, 'utf8'), '{"b":2}\n');
    io.failSync = diskError('EIO', 'i/o error');
    await assert.rejects(writer.append('{"c":3}'), /EIO/);
    await assert.rejects(writer.rotate(first.replace('000001', '000003')), /EIO/);
    assert.equal(writer.currentFile, second);
    io.failSync = null;
    await writer.close();
  });

  it('close waits for records still being written', async () => {
    const file = journalFile();
    const writer = await JournalWriter.open(file, 0);
    const pending = writer.append('{"late":1}');
    await writer.close();
    await pending;
    assert.equal(readFileSync(file, 'utf8'), '{"late":1}\n');
  });
});
