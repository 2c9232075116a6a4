/**
 * `tq calls`, `tq table`, `tq threads`: build a request body from flags (or take a whole one
 * with `--request`), run the route in-process, print JSONL.
 */
import { Command } from 'commander';
import type { Route } from '../api/types.ts';
import { callsStreamQueryRoute } from '../query/calls/route.ts';
import { tableRoutes } from '../query/table/route.ts';
import { threadsRoutes } from '../query/threads/route.ts';
import { THREAD_SORT_FIELD_NAMES } from '../query/threads/sort-fields.ts';
import {
  dataOptions,
  intOption,
  listOption,
  loadEngine,
  parsePrefix,
  parseSortOption,
  readRequest,
  printRouteResult,
  requestExit,
  say,
  UsageError,
  EXIT_EMPTY,
} from './common.ts';
import { TqError } from '../core/errors.ts';
import { sortableCallFields } from './hints.ts';
import { DEFAULT_TABLE_COLUMNS, prettyJson, stdoutIsTerminal, stdoutPaint, tableLines } from './output.ts';
import type { Engine } from '../api/types.ts';
import { noticeMissingData, verboseOption } from './notice.ts';
import { composeRequest, integer, parseJsonFlag, setTo, sortTerms, strings, type FieldEdit } from './request-body.ts';
import { LosslessObject, type LosslessValue } from '../core/json/lossless.ts';
import { kindsNeeded } from '../load/kinds-needed.ts';
import { loadForOneShot } from './one-shot.ts';

const collect = (value: string, previous: string[] = []) => [...previous, value];

/** The field edits a command's flags make to the request (`--request` text, or `{}`). */
type Edits = Map<string, FieldEdit>;

/** `--project` sets project_id; without `--request` it is required. */
function baseEdits(opts: { request?: string; project?: string }): Edits {
  const edits: Edits = new Map();
  if (opts.project) edits.set('project_id', setTo(opts.project));
  else if (!opts.request) throw new UsageError('--project: required (or a project_id in --request)');
  return edits;
}

function paging(edits: Edits, opts: { limit?: string; offset?: string }): void {
  if (opts.limit !== undefined) edits.set('limit', setTo(integer(intOption('--limit', opts.limit))));
  if (opts.offset !== undefined) edits.set('offset', setTo(integer(intOption('--offset', opts.offset))));
}

/** The request text: `--request` (file or stdin) with the flags' edits applied losslessly. */
export async function requestTextOf(opts: { request?: string }, edits: Edits): Promise<string> {
  return composeRequest(opts.request ? await readRequest(opts.request) : undefined, edits);
}

interface RunOptions {
  fixtures?: string;
  fieldPrefix?: string;
  request?: string;
  verbose?: boolean;
  exitStatus?: boolean;
  compact?: boolean;
  format?: string;
  tableColumns?: string;
  columns?: string;
}

/**
 * Prints a query's answer: its bytes as they are, pretty on a terminal, or as a table; returns
 * the line count. Every form is the whole answer or nothing (printRouteResult).
 */
async function printAnswer(engine: Engine, route: Route, text: string, opts: RunOptions, command: string, reload: () => Promise<Engine>): Promise<number> {
  const format = opts.format ?? 'jsonl';
  if (format === 'jsonl' && (opts.compact || !stdoutIsTerminal())) return printRouteResult(engine, route, text, reload);
  if (format === 'table') {
    const columns = opts.tableColumns !== undefined ? listOption(opts.tableColumns, '--table-columns') : opts.columns !== undefined ? listOption(opts.columns) : DEFAULT_TABLE_COLUMNS[command];
    return printRouteResult(engine, route, text, reload, (lines) => tableLines(lines, columns));
  }
  const paint = stdoutPaint();
  return printRouteResult(engine, route, text, reload, function* (lines) {
    for (const line of lines) yield prettyJson(line, paint);
  });
}

async function run(route: Route, opts: RunOptions, edits: Edits, command: string) {
  const prefix = parsePrefix(opts.fieldPrefix);
  if (opts.format !== undefined && opts.format !== 'jsonl' && opts.format !== 'table') throw new UsageError(`--format: must be jsonl or table, got '${opts.format}'`);
  if (opts.tableColumns !== undefined && opts.format !== 'table') throw new UsageError('--table-columns: only with --format table');
  if (opts.request === '-' && opts.fixtures === '-') throw new UsageError('--request - and --fixtures - both read stdin: give one of them a file');
  const text = await requestTextOf(opts, edits);
  const load = () => loadEngine(opts, kindsNeeded(route.path, text));
  // A calls query over a large file: only the rows its answer can hold are stored (one-shot.ts).
  const oneShot = route === callsStreamQueryRoute ? await loadForOneShot(opts, kindsNeeded(route.path, text), text) : null;
  const engine = oneShot?.engine ?? (await load());
  let lines: number;
  try {
    lines = await printAnswer(engine, route, text, opts, command, load);
  } catch (e) {
    // A calls sort on a field it cannot sort by: the CLI names the ones it can.
    if (e instanceof TqError && e.code === 'TQ_FIELD_NOT_ALLOWED' && e.path?.[1] === 'sort_by' && route === callsStreamQueryRoute) {
      Object.assign(e, { cliHint: `calls sort by ${sortableCallFields(prefix)}` });
    }
    throw e;
  }
  noticeMissingData(engine, text, opts.verbose, say);
  oneShot?.afterAnswer();
  // Like jq -e: an answer with no lines is exit 4 when asked (scripts tell "none" from "ok").
  if (opts.exitStatus && lines === 0) requestExit(EXIT_EMPTY);
}

/** The output flags of the commands that answer a query. */
function exitStatusOption(cmd: Command): Command {
  return cmd
    .option('--exit-status', `exit ${EXIT_EMPTY} when the answer has no lines (like jq -e), 0 otherwise`)
    .option('--compact', 'one JSON line per answer line even on a terminal (piped output always is)')
    .option('--format <jsonl|table>', 'table: an aligned table of --table-columns for people (default jsonl)')
    .option('--table-columns <a,b,...>', 'the fields (dot paths) a --format table shows');
}

const INCLUDE_FLAGS: Record<string, string> = {
  costs: 'include_costs',
  feedback: 'include_feedback',
  storage_size: 'include_storage_size',
  total_storage_size: 'include_total_storage_size',
};

export function callsCommand(): Command {
  const cmd = new Command('calls')
    .description('query calls (POST /calls/stream_query) and print JSONL')
    .option('-p, --project <entity/project>', 'project to query')
    .option('--filter-json <json>', 'the request filter object, e.g. {"trace_roots_only":true}')
    .option('--query-json <json>', 'a query: {"$expr": {...}} or just the operation')
    .option('--sort <field[:asc|desc]>', 'sort term, repeatable (default started_at asc)', collect)
    .option('--limit <n>', 'maximum number of calls')
    .option('--offset <n>', 'number of calls to skip')
    .option('--columns <a,b,...>', 'columns to return (id, project_id, trace_id, op_name, started_at always); every other key still appears, as null or {} (production\'s shape), and summary.weave.status reads running unless summary is selected: such a null is not data')
    .option('--expand <a,b,...>', 'expand_columns: ref paths to resolve, e.g. inputs.model')
    .option('--no-expand-values', 'keep expanded refs as strings in the output (filter/sort through them only)')
    .option('--include <what,...>', `add ${Object.keys(INCLUDE_FLAGS).join(', ')}`)
    .option('--request <file|->', 'a whole request body (JSON); other flags override its fields');
  exitStatusOption(verboseOption(dataOptions(cmd))).addHelpText(
    'after',
    `
Examples:
  tq calls -p acme/support-bot --limit 5
  tq calls -p acme/support-bot --filter-json '{"trace_roots_only":true}' --sort started_at:desc --limit 10
  tq calls -p acme/support-bot --query-json '{"$contains":{"input":{"$getField":"op_name"},"substr":{"$literal":"/op/chat_turn:"}}}' --sort started_at:desc --limit 5
  tq calls -p acme/support-bot --query-json '{"$gt":[{"$getField":"summary.weave.latency_ms"},{"$literal":1000}]}' --columns id,summary
  tq calls -p acme/evals --expand inputs.dataset --include costs,feedback --limit 3
  echo '{"project_id":"acme/support-bot","limit":2}' | tq calls --request -`,
  );
  return cmd.action(async (opts) => run(callsStreamQueryRoute, opts, callsEdits(opts), 'calls'));
}

/** The request fields `tq calls` flags set. */
export function callsEdits(opts: Record<string, unknown>): Edits {
  const edits = baseEdits(opts);
  if (typeof opts.filterJson === 'string') edits.set('filter', setTo(parseJsonFlag('--filter-json', opts.filterJson)));
  if (typeof opts.queryJson === 'string') {
    const q = parseJsonFlag('--query-json', opts.queryJson);
    edits.set('query', setTo(q instanceof LosslessObject && q.has('$expr') ? q : new LosslessObject([['$expr', q]])));
  }
  if (opts.sort) edits.set('sort_by', setTo(sortTerms((opts.sort as string[]).map((s) => parseSortOption(s, 'direction')))));
  paging(edits, opts);
  if (typeof opts.columns === 'string') edits.set('columns', setTo(strings(listOption(opts.columns, '--columns'))));
  if (typeof opts.expand === 'string') edits.set('expand_columns', setTo(strings(listOption(opts.expand, '--expand'))));
  if (opts.expandValues === false) edits.set('return_expanded_column_values', setTo(false));
  if (typeof opts.include === 'string') {
    for (const what of listOption(opts.include, '--include')) {
      const key = INCLUDE_FLAGS[what];
      if (!key) throw new UsageError(`--include: takes ${Object.keys(INCLUDE_FLAGS).join(', ')}; got '${what}'`);
      edits.set(key, setTo(true));
    }
  }
  return edits;
}

const routeOf = (routes: readonly Route[], path: string) => routes.find((r) => r.path === path)!;

export function tableCommand(): Command {
  const cmd = new Command('table')
    .description('query the rows of one table (POST /table/query_stream) and print JSONL')
    .option('-p, --project <entity/project>', 'project of the table')
    .option('-d, --digest <digest>', 'table digest')
    .option('--row-digests <a,b,...>', 'only rows with these digests')
    .option('--sort <path[:asc|desc]>', 'sort term on a dot path into the row, repeatable', collect)
    .option('--limit <n>', 'maximum number of rows')
    .option('--offset <n>', 'number of rows to skip')
    .option('--request <file|->', 'a whole request body (JSON); other flags override its fields');
  exitStatusOption(verboseOption(dataOptions(cmd))).addHelpText(
    'after',
    `
Examples:
  tq table -p acme/evals -d <digest> --limit 5
  tq table -p acme/evals -d <digest> --sort expected.priority:desc --sort question
  tq table -p acme/evals -d <digest> --row-digests <row digest>,<row digest>`,
  );
  return cmd.action(async (opts) => run(routeOf(tableRoutes, '/table/query_stream'), opts, tableEdits(opts), 'table'));
}

/** The request fields `tq table` flags set. */
export function tableEdits(opts: Record<string, unknown>): Edits {
  const edits = baseEdits(opts);
  if (typeof opts.digest === 'string') edits.set('digest', setTo(opts.digest));
  else if (!opts.request) throw new UsageError('--digest: required (or a digest in --request)');
  if (typeof opts.rowDigests === 'string') edits.set('filter', setTo(new LosslessObject([['row_digests', strings(listOption(opts.rowDigests, '--row-digests'))]])));
  if (opts.sort) edits.set('sort_by', setTo(sortTerms((opts.sort as string[]).map((s) => parseSortOption(s, 'order')))));
  paging(edits, opts);
  return edits;
}

export function threadsCommand(): Command {
  const cmd = new Command('threads')
    .description('query conversation threads (POST /threads/stream_query) and print JSONL')
    .option('-p, --project <entity/project>', 'project to query')
    .option('--thread-ids <a,b,...>', 'only these threads')
    .option('--after <iso>', 'count only turns started strictly after this time')
    .option('--before <iso>', 'count only turns started strictly before this time')
    .option('--sort <field[:asc|desc]>', THREAD_SORT_FIELD_NAMES.join(', '), collect)
    .option('--limit <n>', 'maximum number of threads')
    .option('--offset <n>', 'number of threads to skip')
    .option('--request <file|->', 'a whole request body (JSON); other flags override its fields');
  exitStatusOption(verboseOption(dataOptions(cmd))).addHelpText(
    'after',
    `
Examples:
  tq threads -p acme/support-bot
  tq threads -p acme/support-bot --sort turn_count:desc --limit 3
  tq threads -p acme/support-bot --after 2025-03-01T00:00:00Z --before 2025-04-01T00:00:00Z`,
  );
  return cmd.action(async (opts) => run(routeOf(threadsRoutes, '/threads/stream_query'), opts, threadsEdits(opts), 'threads'));
}

/** The request fields `tq threads` flags set; filter flags merge into a `--request` filter. */
export function threadsEdits(opts: Record<string, unknown>): Edits {
  const edits = baseEdits(opts);
  const filter: Array<[string, LosslessValue]> = [];
  if (typeof opts.threadIds === 'string') filter.push(['thread_ids', strings(listOption(opts.threadIds, '--thread-ids'))]);
  if (typeof opts.after === 'string') filter.push(['after_datetime', opts.after]);
  if (typeof opts.before === 'string') filter.push(['before_datetime', opts.before]);
  if (filter.length > 0) {
    edits.set('filter', (current) => {
      const merged = current instanceof LosslessObject ? current.entries.filter(([k]) => !filter.some(([f]) => f === k)) : [];
      return new LosslessObject([...merged, ...filter]);
    });
  }
  if (opts.sort) edits.set('sort_by', setTo(sortTerms((opts.sort as string[]).map((s) => parseSortOption(s, 'direction')))));
  paging(edits, opts);
  return edits;
}
