/**
 * `tq dump`: writes a store as plain fixture files. `--data DIR` alone compacts DIR in place
 * (its journal folded into its fixtures, atomically, under DIR's lock); `--out DIR2` writes
 * the store of any source (--data or --fixtures) to a new directory.
 */
import { Command } from 'commander';
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { compactInPlace, dumpTo } from '../journal/compact.ts';
import { openDataDir } from '../journal/data-dir.ts';
import { dataOptions, loadEngine, parsePrefix, say, UsageError } from './common.ts';

interface DumpOptions {
  data?: string;
  fixtures?: string;
  fieldPrefix?: string;
  out?: string;
  snapshot?: boolean;
}

/**
 * `--data` names a directory tq serve made: one that is missing is an error, as for the read
 * commands (`tq calls --data`), never a folder created here and reported as compacted.
 */
function existingDataDir(path: string): void {
  const dir = resolve(path);
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw Object.assign(new Error(`no such data directory: ${dir}`), { code: 'ENOENT' });
}

async function dump(opts: DumpOptions): Promise<void> {
  const fieldPrefix = parsePrefix(opts.fieldPrefix);
  if (opts.data !== undefined) existingDataDir(opts.data);
  const started = performance.now();
  if (opts.out === undefined) {
    if (opts.data === undefined) throw new UsageError('tq dump needs --data DIR (compact in place) or --out DIR2 (write a copy)');
    if (opts.fixtures !== undefined) throw new UsageError('give --data or --fixtures, not both (a data directory holds its own fixtures)');
    const dir = resolve(opts.data);
    const opened = await openDataDir(dir, { fieldPrefix, writable: true, say });
    try {
      if (opened.readOnly) throw opened.readOnly;
      const { calls } = await compactInPlace(opened.engine, dir, opened.active.seq);
      say(`compacted ${dir}: ${calls} calls, ${opened.replayed} journaled writes folded into the fixture files (${(performance.now() - started).toFixed(0)} ms)`);
    } finally {
      opened.release();
    }
    return;
  }
  const engine = await loadEngine({ data: opts.data, fixtures: opts.fixtures, fieldPrefix, snapshot: opts.snapshot });
  const out = resolve(opts.out);
  const { calls } = await dumpTo(engine, out);
  say(`wrote ${out}: ${calls} calls (${(performance.now() - started).toFixed(0)} ms)`);
}

export function dumpCommand(): Command {
  return dataOptions(new Command('dump'))
    .description('write the store as plain fixture files: compact a --data directory in place, or copy to --out')
    .option('--out <dir>', 'write to this new directory instead of compacting --data in place')
    .addHelpText(
      'after',
      `
In place, the new files are written and fsync'd beside the old ones and swapped in by one
rename; a crash at any moment leaves either the old or the new data, never a mix. A running
tq serve holds the directory's lock: stop it first.

Examples:
  tq dump --data ./traces                  # fold the journal into ./traces' fixture files
  tq dump --data ./traces --out ./copy     # a plain fixtures copy (load it with --fixtures)
  tq dump --fixtures big.jsonl.gz --out ./plain`,
    )
    .action(async (opts: DumpOptions) => {
      await dump(opts);
    });
}
