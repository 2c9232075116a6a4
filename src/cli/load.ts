/**
 * `tq load --check [PATH]`: loads fixtures exactly as every other command does, reports what
 * was read per file, and prints the store's counts as one JSON line.
 */
import { Command } from 'commander';
import { createEngine } from '../engine.ts';
import { loadFixtures, resolveFixturesPath } from '../io/load-fixtures.ts';
import { paint, parsePrefix, say, UsageError, writeLines } from './common.ts';

export function loadCommand(): Command {
  return new Command('load')
    .description('validate a fixtures directory or calls file and print what it holds')
    .argument('[path]', 'fixtures directory or .jsonl[.gz] calls file (default: $TQ_FIXTURES, ./fixtures, bundled demo)')
    .option('--check', 'validate only (the only mode: tq keeps data in memory)')
    .option('--field-prefix <prefix>', 'wire spelling of user/run fields: svc_ or wb_', 'svc_')
    .addHelpText('after', '\nExamples:\n  tq load --check\n  tq load --check ./my-fixtures\n  tq load --check calls.jsonl.gz')
    .action(async (path: string | undefined, opts: { check?: boolean; fieldPrefix?: string }) => {
      if (!opts.check) throw new UsageError('tq load needs --check (data is only ever held in memory)');
      const engine = createEngine(undefined, { fieldPrefix: parsePrefix(opts.fieldPrefix) });
      const source = resolveFixturesPath(path, process.env, process.cwd());
      const started = performance.now();
      const report = await loadFixtures(engine, source);
      const ms = performance.now() - started;
      for (const f of report.files) say(`${paint.green('ok')} ${f.file}: ${f.records} ${f.kind} records`);
      for (const notice of report.notices) say(notice);
      say(`loaded ${report.source} in ${ms.toFixed(0)} ms`);
      await writeLines([JSON.stringify({ source: report.source, ...engine.store.counts() })]);
    });
}
