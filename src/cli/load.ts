/**
 * `tq load --check [PATH]`: loads fixtures exactly as every other command does, reports what
 * was read per file, and prints the store's counts as one JSON line.
 */
import { Command, Option } from 'commander';
import { createEngine } from '../engine.ts';
import { filesOf, loadFixtures, resolveFixturesPath } from '../io/load-fixtures.ts';
import { loadFixtureFilesWithSnapshot } from '../io/snapshot/load.ts';
import { filesForKinds } from '../load/fixture-kinds.ts';
import { paint, parsePrefix, say, snapshotOptions, UsageError, writeLines } from './common.ts';
import { SNAPSHOT_KINDS, unlinkQuietly } from './one-shot.ts';
import { progressReporter } from './progress.ts';

export function loadCommand(): Command {
  return new Command('load')
    .description('validate a fixtures directory or calls file and print what it holds')
    .argument('[path]', 'fixtures directory or .jsonl[.gz] calls file (default: $TQ_FIXTURES, ./fixtures, bundled demo)')
    .option('--check', 'validate only (the only mode: tq keeps data in memory)')
    .option('--field-prefix <prefix>', 'wire spelling of user/run fields: svc_ or wb_', 'svc_')
    // What a one-shot starts, detached, to write the load snapshot after its answer (one-shot.ts).
    .addOption(new Option('--write-snapshot', 'load the kinds a load snapshot holds and write it; print nothing').hideHelp())
    .addHelpText('after', '\nExamples:\n  tq load --check\n  tq load --check ./my-fixtures\n  tq load --check calls.jsonl.gz')
    .action(async (path: string | undefined, opts: { check?: boolean; fieldPrefix?: string; writeSnapshot?: boolean }) => {
      if (opts.writeSnapshot) return writeSnapshot(path, opts.fieldPrefix);
      if (!opts.check) throw new UsageError('tq load needs --check (data is only ever held in memory)');
      const engine = createEngine(undefined, { fieldPrefix: parsePrefix(opts.fieldPrefix) });
      const source = resolveFixturesPath(path, process.env, process.cwd());
      const started = performance.now();
      const report = await loadFixtures(engine, source, progressReporter());
      const ms = performance.now() - started;
      for (const f of report.files) say(`${paint.green('ok')} ${f.file}: ${f.records} ${f.kind} records`);
      for (const notice of report.notices) say(notice);
      say(`loaded ${report.source} in ${ms.toFixed(0)} ms`);
      await writeLines([JSON.stringify({ source: report.source, ...engine.store.counts() })]);
    });
}

/** `tq load --write-snapshot PATH`: the background writer a one-shot starts; releases its lock when done. */
async function writeSnapshot(path: string | undefined, fieldPrefix: string | undefined): Promise<void> {
  try {
    const engine = createEngine(undefined, { fieldPrefix: parsePrefix(fieldPrefix) });
    const source = resolveFixturesPath(path, process.env, process.cwd());
    await loadFixtureFilesWithSnapshot(engine, source, filesForKinds(filesOf(source), SNAPSHOT_KINDS), snapshotOptions({}));
  } finally {
    const lock = process.env.TQ_SNAPSHOT_WRITER_LOCK;
    if (lock !== undefined && lock.endsWith('.writer')) unlinkQuietly(lock);
  }
}
