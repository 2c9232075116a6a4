/**
 * `tq check` (run the spec-tests corpus against a server) and `tq fuzz` (differential testing
 * of a server against tq's engine). Both talk HTTP to any implementation of the interface.
 */
import { Command } from 'commander';
import { writeFileSync } from 'node:fs';
import type { ConformanceCase } from '../check/case.ts';
import { loadCases } from '../check/corpus.ts';
import { createHttpTarget, type UserCredentials } from '../check/http-target.ts';
import { runCases } from '../check/runner.ts';
import { DEVIATES_TAG } from '../check/target.ts';
import { EXIT_RUNTIME, intOption, requestExit, listOption, paint, parsePrefix, say, UsageError, writeLines } from './common.ts';

interface ServerOptions {
  baseUrl: string;
  user: string;
  password?: string;
  prefix?: string;
}

function serverOptions(cmd: Command): Command {
  return cmd
    .requiredOption('--base-url <url>', 'the server under test, e.g. http://127.0.0.1:6345')
    .option('--user <name>', 'a user granted every project the run writes to', 'api')
    .option('--password <password>', 'that user\'s password (default: $TQ_PASSWORD)')
    .option('--prefix <prefix>', 'how the server spells user/run fields: svc_ or wb_', 'svc_');
}

function mainUser(opts: ServerOptions): UserCredentials {
  const password = opts.password ?? process.env.TQ_PASSWORD;
  if (!password) throw new UsageError('--password (or TQ_PASSWORD) is required');
  return { name: opts.user, password };
}

const usesOtherUser = (c: ConformanceCase) => [c.request, ...(c.setup ?? [])].some((r) => r.auth === 'other');

export function checkCommand(): Command {
  return serverOptions(new Command('check'))
    .description('run the spec-tests conformance corpus against a server over HTTP')
    .option('--other-user <name>', 'a valid user with no grant on the case projects (auth cases)')
    .option('--other-password <password>', "that user's password")
    .option('--tags <list>', 'only cases with one of these tags (comma separated)')
    .option('--skip-tags <list>', `leave out cases with any of these tags, e.g. ${DEVIATES_TAG} for a production-compatible server`)
    .option('--report <file>', 'also write the full report as JSON')
    .option('--verbose', 'print every case, not only failures')
    .addHelpText(
      'after',
      `\nExamples:\n  tq check --base-url http://127.0.0.1:6345 --password s3cret --other-user bob --other-password pw\n  tq check --base-url http://127.0.0.1:6345 --password s3cret --tags threads,table --report out.json\n  tq check --base-url http://127.0.0.1:8080 --password KEY --skip-tags ${DEVIATES_TAG}   # judge a production-compatible server`,
    )
    .action(async (opts: ServerOptions & { otherUser?: string; otherPassword?: string; tags?: string; skipTags?: string; report?: string; verbose?: boolean }) => {
      const user = mainUser(opts);
      if ((opts.otherUser === undefined) !== (opts.otherPassword === undefined)) throw new UsageError('--other-user and --other-password go together');
      const other = opts.otherUser ? { name: opts.otherUser, password: opts.otherPassword! } : { name: `${user.name}-nobody`, password: 'none' };
      const target = createHttpTarget({ baseUrl: opts.baseUrl, user, other, fieldPrefix: parsePrefix(opts.prefix) });
      const tags = opts.tags ? new Set(listOption(opts.tags)) : null;
      const cases = loadCases();
      const skips: Record<string, string> = {};
      if (!opts.otherUser) for (const c of cases) if (usesOtherUser(c)) skips[c.name] = 'needs --other-user';
      const report = await runCases(cases, target, {
        skips,
        only: tags ? (c) => c.tags.some((t) => tags.has(t)) : undefined,
        skipTags: opts.skipTags ? listOption(opts.skipTags) : undefined,
        onResult(name, outcome, detail) {
          if (outcome === 'failed') say(`${paint.red('FAIL')} ${name}: ${detail}`);
          else if (opts.verbose) say(`${outcome === 'passed' ? paint.green('ok') : paint.yellow('skip')} ${name}${detail ? `: ${detail}` : ''}`);
        },
      });
      if (opts.report) writeFileSync(opts.report, JSON.stringify({ target: opts.baseUrl, ...report }, null, 2) + '\n');
      const skipped = report.skipped.length ? `, ${report.skipped.length} skipped` : '';
      say(`${report.passed} passed, ${report.failed.length} failed${skipped}`);
      if (report.failed.length > 0) requestExit(EXIT_RUNTIME);
    });
}

export function fuzzCommand(): Command {
  return serverOptions(new Command('fuzz'))
    .description("compare a server's answers with tq's engine on random data and requests (fast-check; shrinks failures)")
    .option('--seed <n>', 'random seed (same seed, same run)', '1')
    .option('--runs <n>', 'number of random scenarios', '100')
    .addHelpText('after', '\nExamples:\n  tq fuzz --base-url http://127.0.0.1:6345 --password s3cret --runs 200 --seed 1')
    .action(async (opts: ServerOptions & { seed: string; runs: string }) => {
      const user = mainUser(opts);
      const target = createHttpTarget({ baseUrl: opts.baseUrl, user, other: { name: `${user.name}-nobody`, password: 'none' }, fieldPrefix: parsePrefix(opts.prefix) });
      const seed = intOption('--seed', opts.seed);
      const runs = intOption('--runs', opts.runs);
      if (runs < 1) throw new UsageError('--runs must be at least 1');
      // Loaded on use: fast-check is only needed by this command.
      const { fuzz } = await import('../check/fuzz.ts');
      const result = await fuzz({ target, seed, runs, log: say });
      if (result.ok) return;
      say(`${paint.red('difference')}: ${result.difference}`);
      say('minimal case (add to spec-tests/cases after checking the expectation against the spec):');
      await writeLines([JSON.stringify(result.counterexample, null, 2)]);
      requestExit(EXIT_RUNTIME);
    });
}
