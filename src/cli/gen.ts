/**
 * `tq gen`: writes a deterministic generated data set (calls.jsonl and, optionally, a large
 * table in tables.jsonl) for benchmarks and load tests.
 */
import { Command } from 'commander';
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { join } from 'node:path';
import { createGzip } from 'node:zlib';
import { generateCalls, generateTable } from '../gen/generate.ts';
import { intOption, say, UsageError } from './common.ts';
import { checkOutDir, writeDirAtomically } from './out-dir.ts';

/** Writes lines to a file (gzip when asked), honouring backpressure. */
async function writeFile(path: string, lines: Iterable<string>, gzip: boolean): Promise<number> {
  const file = createWriteStream(path);
  const out = gzip ? createGzip() : file;
  if (gzip) out.pipe(file);
  let count = 0;
  for (const line of lines) {
    count++;
    if (!out.write(line + '\n')) await once(out, 'drain');
  }
  out.end();
  await once(file, 'close');
  return count;
}

export function genCommand(): Command {
  return new Command('gen')
    .description('write a deterministic generated fixtures directory (Weave-shaped calls, optional large table)')
    .requiredOption('--out <dir>', 'directory to write (created if missing; a non-empty one only with --force)')
    .option('--force', 'replace the contents of a non-empty --out directory (all at once: never a mix of old and new files)')
    .option('--calls <n>', 'number of calls', '100000')
    .option('--table-rows <n>', 'rows of one generated table (0 = no tables.jsonl)', '0')
    .option('--seed <n>', 'random seed', '1')
    .option('--project <id>', 'project id of the generated data', 'bench/gen')
    .option('--gzip', 'write .jsonl.gz files')
    .addHelpText('after', '\nExamples:\n  tq gen --calls 1000000 --table-rows 1000000 --out ~/tq-data/1m\n  tq gen --calls 1000 --gzip --out ~/tq-data/1m --force     # replace it\n  tq calls --fixtures ~/tq-data/1m --project bench/gen --limit 3')
    .action(async (opts: { out: string; force?: boolean; calls: string; tableRows: string; seed: string; project: string; gzip?: boolean }) => {
      const calls = intOption('--calls', opts.calls);
      const tableRows = intOption('--table-rows', opts.tableRows);
      const seed = intOption('--seed', opts.seed);
      if (calls < 0) throw new UsageError(`--calls: must not be negative, got ${calls}`);
      if (tableRows < 0) throw new UsageError(`--table-rows: must not be negative, got ${tableRows}`);
      if (!/^[^/\s]+\/[^/\s]+$/.test(opts.project)) throw new UsageError(`--project: must be <entity>/<project>, got '${opts.project}'`);
      checkOutDir(opts.out, opts.force === true);
      const ext = opts.gzip ? '.jsonl.gz' : '.jsonl';
      const started = performance.now();
      const n = await writeDirAtomically(opts.out, opts.force === true, async (dir) => {
        const written = await writeFile(join(dir, `calls${ext}`), generateCalls({ calls, seed, projectId: opts.project }), opts.gzip === true);
        if (tableRows > 0) await writeFile(join(dir, `tables${ext}`), generateTable(tableRows, seed + 1, opts.project), opts.gzip === true);
        return written;
      });
      say(`wrote ${n} calls${tableRows ? ` and a ${tableRows}-row table` : ''} to ${opts.out} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    });
}
