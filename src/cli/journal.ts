/**
 * `tq journal show|quarantine DIR FILE:LINE`: the way forward when a journal record stops the
 * replay of a data directory (src/journal/quarantine.ts).
 */
import { Command } from 'commander';
import { resolve } from 'node:path';
import { parsePlace, quarantineRecord, showRecord } from '../journal/quarantine.ts';
import { UsageError } from './common.ts';

function place(dir: string, at: string): { file: string; line: number } {
  const p = parsePlace(resolve(dir), at);
  if (p === null) throw new UsageError(`FILE:LINE must name a journal file of DIR and a line, e.g. journal-000001.jsonl:2; got '${at}'`);
  return p;
}

export function journalCommand(): Command {
  const cmd = new Command('journal').description('inspect a --data directory journal record, or set it aside so the directory replays again');
  cmd
    .command('show <dir> <place>')
    .description('print the record at FILE:LINE and whether it decodes')
    .action((dir: string, at: string) => {
      const { file, line } = place(dir, at);
      process.stdout.write(showRecord(file, line) + '\n');
    });
  cmd
    .command('quarantine <dir> <place>')
    .description("move the record at FILE:LINE to DIR/quarantine/ (under DIR's lock; stop tq serve first)")
    .action(async (dir: string, at: string) => {
      const { file, line } = place(dir, at);
      const aside = await quarantineRecord(resolve(dir), file, line);
      process.stderr.write(`moved ${at} to ${aside}; the next start replays the records after it\n`);
    });
  return cmd;
}
