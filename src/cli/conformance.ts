/**
 * `tq check` (run the spec-tests corpus against a server) and `tq fuzz` (differential testing
 * of a server against tq's engine). Both talk HTTP to any implementation of the interface.
 *
 * Results go to stdout (each failure, then the `N passed, M failed` line), so
 * `tq check ... > report.txt` holds the report; diagnostics (preflight, control plane) go to
 * stderr. `--report`, `--junit` and `--markdown` write the same results as files.
 */
import { Command, Option } from 'commander';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { Chalk } from 'chalk';
import type { FieldPrefix } from '../api/types.ts';
import { CASE_GRADES, type ConformanceCase } from '../check/case.ts';
import { loadSuite } from '../check/corpus.ts';
import { applyExpectFail, expectFailFromRun, parseExpectFail, runFailed, type ExpectFailEntry, type ReportedResult } from '../check/expect-fail.ts';
import { createHttpTarget, type UserCredentials } from '../check/http-target.ts';
import { jsonlReport, junitReport, markdownReport, summaryLine, type ReportHeader } from '../check/report.ts';
import { labelsOf, runCases } from '../check/runner.ts';
import { fetchServerInfo, hasControlPlane, preflight, resetTarget } from '../check/preflight.ts';
import { closestNames } from './notice.ts';
import { DEVIATES_TAG } from '../check/target.ts';
import { TQ_VERSION } from '../version.ts';
import { EXIT_RUNTIME, intOption, requestExit, listOption, parsePrefix, say, UsageError } from './common.ts';

/** Colour for results on stdout: only when stdout is a terminal (never in a report file). */
const paintOut = new Chalk({ level: process.stdout.isTTY === true && !process.env.NO_COLOR ? 1 : 0 });
const out = (line: string) => process.stdout.write(line + '\n');

interface ServerOptions {
  baseUrl?: string;
  user: string;
  password?: string;
  fieldPrefix?: string;
  prefix?: string;
}

function serverOptions(cmd: Command): Command {
  return cmd
    .option('--base-url <url>', 'the server under test, e.g. http://127.0.0.1:6345 (required)')
    .option('--user <name>', 'a user granted every project the run writes to', 'api')
    .option('--password <password>', 'that user\'s password (default: $TQ_PASSWORD)')
    .option('--field-prefix <prefix>', 'how the server spells user/run fields: svc_ (default) or wb_')
    .addOption(new Option('--prefix <prefix>', 'the old name of --field-prefix').hideHelp());
}

function baseUrlOf(opts: ServerOptions): string {
  if (opts.baseUrl === undefined) throw new UsageError("--base-url: required (the server under test, e.g. --base-url http://127.0.0.1:6345)");
  return opts.baseUrl;
}

function fieldPrefixOf(opts: ServerOptions): FieldPrefix {
  if (opts.fieldPrefix !== undefined && opts.prefix !== undefined && opts.fieldPrefix !== opts.prefix) throw new UsageError(`--field-prefix ${opts.fieldPrefix} and --prefix ${opts.prefix} disagree (--prefix is the old name of --field-prefix: give one)`);
  return parsePrefix(opts.fieldPrefix ?? opts.prefix);
}

function mainUser(opts: ServerOptions): UserCredentials {
  const password = opts.password ?? process.env.TQ_PASSWORD;
  if (!password) throw new UsageError('--password: required (or TQ_PASSWORD)');
  return { name: opts.user, password };
}

/** A tag list flag; every tag must be one the corpus uses or a grade (a typo would select nothing, silently). */
function tagsOption(flag: string, text: string, known: ReadonlySet<string>): string[] {
  const tags = listOption(text, flag);
  const unknown = tags.find((t) => !known.has(t));
  if (unknown !== undefined) throw new UsageError(`${flag}: no case has the tag or grade '${unknown}' (closest: ${closestNames(unknown, known)})`);
  return tags;
}

/** A report file's folder must exist before the run, not be found missing after it. */
function outputFile(flag: string, path: string | undefined): string | undefined {
  if (path === undefined) return undefined;
  const dir = dirname(resolve(path));
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new UsageError(`${flag}: the folder ${dir} does not exist`);
  if (existsSync(path) && statSync(path).isDirectory()) throw new UsageError(`${flag}: ${path} is a folder, not a file`);
  return path;
}

const usesOtherUser = (c: ConformanceCase) => [c.request, ...(c.setup ?? [])].some((r) => r.auth === 'other');

interface CheckOptions extends ServerOptions {
  otherUser?: string;
  otherPassword?: string;
  tags?: string;
  skipTags?: string;
  smoke?: boolean;
  report?: string;
  junit?: string;
  markdown?: string;
  expectFail?: string;
  writeExpectFail?: string;
  reset: boolean;
  verbose?: boolean;
  version?: boolean;
}

export function checkCommand(): Command {
  return serverOptions(new Command('check'))
    .description('run the spec-tests conformance corpus against a server over HTTP')
    .option('--other-user <name>', 'a valid user with no grant on the case projects (auth cases)')
    .option('--other-password <password>', "that user's password")
    .option('--tags <list>', `only cases with one of these tags or grades (${CASE_GRADES.join(', ')}), comma separated`)
    .option('--skip-tags <list>', `leave out cases with any of these tags or grades, e.g. ${DEVIATES_TAG} for a production-compatible server`)
    .option('--smoke', "only the suite's dozen smoke cases (one per route the SDKs use by default): is the server Weave-compatible at all")
    .option('--report <file>', 'also write every result as JSON Lines (spec-tests/report.schema.json)')
    .option('--junit <file>', 'also write JUnit XML (for CI test dashboards)')
    .option('--markdown <file>', 'also write a Markdown summary (for a CI job summary)')
    .option('--expect-fail <file>', 'known failures, [{"case", "reason", "link"}]: listed failures do not fail the run; a listed case that passes does')
    .option('--write-expect-fail <file>', "write the run's failures as an expect-fail file (reasons and links of --expect-fail entries kept)")
    .option('--no-reset', 'keep the data of a target with a test control plane (by default /test/reset runs first)')
    .option('--verbose', 'print every case, not only failures')
    .option('--version', 'print the versions of tq and of the suite (and the Weave source it encodes), then exit')
    .addHelpText(
      'after',
      `\nExamples:\n  tq check --base-url http://127.0.0.1:6345 --password s3cret --other-user bob --other-password pw\n  tq check --base-url http://127.0.0.1:6345 --password s3cret --smoke\n  tq check --base-url http://127.0.0.1:6345 --password s3cret --junit junit.xml --markdown summary.md --expect-fail expect-fail.json\n  tq check --base-url http://127.0.0.1:8080 --password KEY --field-prefix wb_ --skip-tags ${DEVIATES_TAG}   # judge a production-compatible server`,
    )
    .action(async (opts: CheckOptions) => {
      const suite = loadSuite();
      if (opts.version) {
        out(`tq ${TQ_VERSION}`);
        out(`suite ${suite.version} (${suite.cases.length} cases; Weave source ${suite.weave_source})`);
        return;
      }
      const baseUrl = baseUrlOf(opts);
      const user = mainUser(opts);
      const fieldPrefix = fieldPrefixOf(opts);
      if ((opts.otherUser === undefined) !== (opts.otherPassword === undefined)) throw new UsageError('--other-user: needs --other-password (and the other way round)');
      const other = opts.otherUser ? { name: opts.otherUser, password: opts.otherPassword! } : { name: `${user.name}-nobody`, password: 'none' };
      const target = createHttpTarget({ baseUrl, user, other, fieldPrefix });
      const cases = suite.cases;
      const known = new Set([...cases.flatMap((c) => labelsOf(c)), ...CASE_GRADES]);
      const tags = opts.tags !== undefined ? tagsOption('--tags', opts.tags, known) : undefined;
      const skipTags = opts.skipTags !== undefined ? tagsOption('--skip-tags', opts.skipTags, known) : undefined;
      const files = { report: outputFile('--report', opts.report), junit: outputFile('--junit', opts.junit), markdown: outputFile('--markdown', opts.markdown), writeExpectFail: outputFile('--write-expect-fail', opts.writeExpectFail) };
      let expected: ExpectFailEntry[] = [];
      if (opts.expectFail !== undefined) {
        let text: string;
        try {
          text = readFileSync(opts.expectFail, 'utf8');
        } catch (e) {
          throw new UsageError(`--expect-fail: cannot read '${opts.expectFail}': ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
        }
        try {
          expected = parseExpectFail(text, new Set(cases.map((c) => c.name)), opts.expectFail);
        } catch (e) {
          throw new UsageError(`--expect-fail: ${(e as Error).message}`);
        }
      }
      const problem = await preflight({ baseUrl, user, other: opts.otherUser ? other : undefined, entity: 'conf', fieldPrefix });
      if (problem) throw new UsageError(problem);
      let controlPlane: ReportHeader['control_plane'] = 'none';
      if (opts.reset && (await hasControlPlane(baseUrl, user))) {
        await resetTarget(baseUrl, user);
        controlPlane = 'reset';
        say(`${baseUrl} has a test control plane: reset it (POST /test/reset) before the run; --no-reset keeps its data`);
      }
      const serverInfo = await fetchServerInfo(baseUrl, user);
      const startedAt = new Date();
      const skips: Record<string, string> = {};
      if (!opts.otherUser) for (const c of cases) if (usesOtherUser(c)) skips[c.name] = 'needs --other-user';
      const smoke = new Set(suite.smoke);
      const expectedByCase = new Map(expected.map((e) => [e.case, e]));
      const report = await runCases(cases, target, {
        skips,
        only: (c) => (!opts.smoke || smoke.has(c.name)) && (tags === undefined || labelsOf(c).some((t) => tags.includes(t))),
        skipTags,
        onResult(name, outcome, detail) {
          const listed = expectedByCase.get(name);
          if (outcome === 'failed' && listed === undefined) out(`${paintOut.red('FAIL')} ${name}: ${detail}`);
          else if (outcome === 'passed' && listed !== undefined) out(`${paintOut.red('XPASS')} ${name}: listed as expected to fail (${listed.reason}) but passed`);
          else if (opts.verbose) {
            const label = outcome === 'passed' ? paintOut.green('ok') : outcome === 'skipped' ? paintOut.yellow('skip') : paintOut.yellow('xfail');
            out(`${label} ${name}${detail ? `: ${detail}` : ''}`);
          }
        },
      });
      const results: ReportedResult[] = applyExpectFail(report.results, expected);
      const ok = !runFailed(results);
      const header: ReportHeader = {
        type: 'header', format: 1, tq_version: TQ_VERSION, suite_version: suite.version, weave_source: suite.weave_source, target: target.name, field_prefix: fieldPrefix,
        server_info: serverInfo, control_plane: controlPlane, started_at: startedAt.toISOString(),
        selection: { ...(tags ? { tags } : {}), ...(skipTags ? { skip_tags: skipTags } : {}), smoke: opts.smoke === true, ...(opts.expectFail ? { expect_fail: opts.expectFail } : {}) },
      };
      const elapsed = Date.now() - startedAt.getTime();
      const sourceOf = new Map(cases.map((c) => [c.name, c.weave_source ?? suite.weave_source]));
      if (files.report) writeFileSync(files.report, jsonlReport(header, results, (name) => sourceOf.get(name) ?? suite.weave_source, elapsed, ok));
      if (files.junit) writeFileSync(files.junit, junitReport(header, results, elapsed));
      if (files.markdown) writeFileSync(files.markdown, markdownReport(header, results, ok));
      if (files.writeExpectFail) {
        writeFileSync(files.writeExpectFail, expectFailFromRun(results, expected));
        say(`wrote ${files.writeExpectFail}`);
      }
      out(summaryLine(results));
      if (!ok) requestExit(EXIT_RUNTIME);
    });
}

export function fuzzCommand(): Command {
  return serverOptions(new Command('fuzz'))
    .description("compare a server's answers with tq's engine on random data and requests (fast-check; shrinks failures)")
    .option('--seed <n>', 'random seed (same seed, same run)', '1')
    .option('--runs <n>', 'number of random scenarios', '100')
    .option('--save <dir>', 'write the shrunk difference as a case file there (spec-tests/cases format; it reproduces the difference)')
    .addHelpText('after', '\nExamples:\n  tq fuzz --base-url http://127.0.0.1:6345 --password s3cret --runs 200 --seed 1\n  tq fuzz --base-url http://127.0.0.1:6345 --password s3cret --field-prefix wb_ --save regressions/')
    .action(async (opts: ServerOptions & { seed: string; runs: string; save?: string }) => {
      const baseUrl = baseUrlOf(opts);
      const user = mainUser(opts);
      const fieldPrefix = fieldPrefixOf(opts);
      const target = createHttpTarget({ baseUrl, user, other: { name: `${user.name}-nobody`, password: 'none' }, fieldPrefix });
      const seed = intOption('--seed', opts.seed);
      const runs = intOption('--runs', opts.runs);
      if (runs < 1) throw new UsageError('--runs: must be at least 1');
      if (opts.save !== undefined && existsSync(opts.save) && !statSync(opts.save).isDirectory()) throw new UsageError(`--save: ${opts.save} is a file; give a folder`);
      const problem = await preflight({ baseUrl, user, entity: 'fuzz', fieldPrefix });
      if (problem) throw new UsageError(problem);
      // Loaded on use: fast-check is only needed by this command.
      const { fuzz } = await import('../check/fuzz.ts');
      const result = await fuzz({ target, seed, runs, log: say });
      if (result.ok) {
        out(`${result.runs} runs, no difference (seed ${seed})`);
        return;
      }
      out(`${paintOut.red('difference')}: ${result.difference}`);
      if (!result.reproduces) say(`note: ${result.replay}`);
      const text = JSON.stringify(result.counterexample, null, 2) + '\n';
      if (opts.save !== undefined) {
        mkdirSync(opts.save, { recursive: true });
        const file = join(opts.save, `${result.counterexample!.name}.json`);
        writeFileSync(file, text);
        out(`minimal case written to ${file} (check its expectation against the spec before adding it to spec-tests/cases)`);
      } else {
        out('minimal case (add to spec-tests/cases after checking the expectation against the spec):');
        process.stdout.write(text);
      }
      requestExit(EXIT_RUNTIME);
    });
}
