/**
 * `tq cache`: where the load snapshots are, what is in the cache (each snapshot's calls file,
 * size and last use), and `tq cache clear` to empty it. Aligned text for a person, JSON Lines
 * with `--json`.
 */
import { Command } from 'commander';
import { cacheDirProblem, clearSnapshots, listSnapshots } from '../io/snapshot/cache.ts';
import { say, snapshotOptions, writeLines } from './common.ts';
import { alignColumns } from './ls.ts';

const megabytes = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

function list(opts: { json?: boolean }): Promise<void> {
  const settings = snapshotOptions({});
  const snapshots = listSnapshots(settings.dir);
  const bound = settings.maxCacheBytes === 'auto' ? 'auto (4 GiB, or twice the snapshot being written; at most half of the cache and free disk together)' : `${settings.maxCacheBytes} bytes`;
  if (opts.json) {
    return writeLines([
      JSON.stringify({ dir: settings.dir, enabled: settings.enabled, bound: settings.maxCacheBytes, problem: cacheDirProblem(settings.dir) }),
      ...snapshots.map((s) => JSON.stringify({ file: s.name, fixture: s.fixture, kind: s.kind, bytes: s.bytes, last_use: new Date(s.lastUseMs).toISOString() })),
    ]);
  }
  const total = snapshots.reduce((n, s) => n + s.bytes, 0);
  const problem = cacheDirProblem(settings.dir);
  const head = [
    `cache: ${settings.dir}${settings.enabled ? '' : ' (turned off: TQ_SNAPSHOT=0)'}`,
    ...(problem === null ? [] : [`not used: ${problem}`]),
    `${snapshots.length} snapshot${snapshots.length === 1 ? '' : 's'}, ${megabytes(total)}; bound: ${bound}`,
  ];
  if (snapshots.length === 0) return writeLines(head);
  const rows = snapshots.map((s) => [s.fixture ?? `(unreadable: ${s.name})`, s.kind ?? '', megabytes(s.bytes), new Date(s.lastUseMs).toISOString()]);
  return writeLines([...head, '', ...alignColumns([['fixture', 'kind', 'size', 'last use'], ...rows])]);
}

export function cacheCommand(): Command {
  const cmd = new Command('cache')
    .description('list the load snapshot cache (where it is, each snapshot\'s fixture file, kind, size, last use); `tq cache clear` empties it')
    .option('--json', 'JSON Lines: the cache first, then one object per snapshot')
    .addHelpText(
      'after',
      `
The cache is TQ_SNAPSHOT_DIR, else $XDG_CACHE_HOME/tq/snapshots, else ~/.cache/tq/snapshots.

Examples:
  tq cache
  tq cache clear`,
    )
    .action((opts: { json?: boolean }) => list(opts));
  cmd
    .command('clear')
    .description('delete every snapshot in the cache (the next load of each fixture writes it again)')
    .action(() => {
      const dir = snapshotOptions({}).dir;
      const { files, bytes } = clearSnapshots(dir);
      say(`cleared ${dir}: ${files} file${files === 1 ? '' : 's'}, ${megabytes(bytes)}`);
    });
  return cmd;
}
