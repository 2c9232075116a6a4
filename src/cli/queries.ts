/**
 * `tq calls`, `tq table`, `tq threads`: build a request body from flags (or take a whole one
 * with `--request`), run the route in-process, print JSONL.
 */
import { Command } from 'commander';
import type { Route } from '../api/types.ts';
import { callsStreamQueryRoute } from '../query/calls/run.ts';
import { tableRoutes } from '../query/table/route.ts';
import { threadsRoutes } from '../query/threads/route.ts';
import {
  dataOptions,
  intOption,
  jsonOption,
  listOption,
  loadEngine,
  parsePrefix,
  parseSortOption,
  readRequest,
  runRoute,
  say,
  UsageError,
} from './common.ts';
import { noticeMissingData, verboseOption } from './notice.ts';
import { datetimeFlag } from './datetime-flag.ts';

const collect = (value: string, previous: string[] = []) => [...previous, value];

/** Starts from `--request` (if any) and lets flags set or override fields. */
async function baseBody(opts: { request?: string; project?: string }): Promise<Record<string, unknown>> {
  const body = opts.request ? await readRequest(opts.request) : {};
  if (opts.project) body.project_id = opts.project;
  if (body.project_id === undefined) throw new UsageError('--project: required (or a project_id in --request)');
  return body;
}

function paging(body: Record<string, unknown>, opts: { limit?: string; offset?: string }): void {
  if (opts.limit !== undefined) body.limit = intOption('--limit', opts.limit);
  if (opts.offset !== undefined) body.offset = intOption('--offset', opts.offset);
}

async function run(route: Route, opts: { fixtures?: string; fieldPrefix?: string; verbose?: boolean }, body: Record<string, unknown>) {
  parsePrefix(opts.fieldPrefix);
  const engine = await loadEngine(opts);
  await runRoute(engine, route, body);
  noticeMissingData(engine, body, opts.verbose, say);
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
  verboseOption(dataOptions(cmd)).addHelpText(
    'after',
    `
Examples:
  tq calls -p acme/support-bot --limit 5
  tq calls -p acme/support-bot --filter-json '{"trace_roots_only":true}' --sort started_at:desc --limit 10
  tq calls -p acme/support-bot --query-json '{"$contains":{"input":{"$getField":"op_name"},"substr":{"$literal":"/op/answer:"}}}' --sort started_at:desc --limit 5
  tq calls -p acme/support-bot --query-json '{"$gt":[{"$getField":"summary.weave.latency_ms"},{"$literal":1000}]}' --columns id,summary
  tq calls -p acme/evals --expand inputs.dataset --include costs,feedback --limit 3
  echo '{"project_id":"acme/support-bot","limit":2}' | tq calls --request -`,
  );
  return cmd.action(async (opts) => {
    const body = await baseBody(opts);
    if (opts.filterJson) body.filter = jsonOption('--filter-json', opts.filterJson);
    if (opts.queryJson) {
      const q = jsonOption('--query-json', opts.queryJson);
      body.query = q !== null && typeof q === 'object' && '$expr' in q ? q : { $expr: q };
    }
    if (opts.sort) body.sort_by = (opts.sort as string[]).map((s) => parseSortOption(s, 'direction'));
    paging(body, opts);
    if (opts.columns !== undefined) body.columns = listOption(opts.columns, '--columns');
    if (opts.expand !== undefined) body.expand_columns = listOption(opts.expand, '--expand');
    if (opts.expandValues === false) body.return_expanded_column_values = false;
    if (opts.include !== undefined) {
      for (const what of listOption(opts.include, '--include')) {
        const key = INCLUDE_FLAGS[what];
        if (!key) throw new UsageError(`--include: takes ${Object.keys(INCLUDE_FLAGS).join(', ')}; got '${what}'`);
        body[key] = true;
      }
    }
    await run(callsStreamQueryRoute, opts, body);
  });
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
  verboseOption(dataOptions(cmd)).addHelpText(
    'after',
    `
Examples:
  tq table -p acme/evals -d <digest> --limit 5
  tq table -p acme/evals -d <digest> --sort expected.priority:desc --sort question
  tq table -p acme/evals -d <digest> --row-digests <row digest>,<row digest>`,
  );
  return cmd.action(async (opts) => {
    const body = await baseBody(opts);
    if (opts.digest) body.digest = opts.digest;
    if (body.digest === undefined) throw new UsageError('--digest: required (or a digest in --request)');
    if (opts.rowDigests !== undefined) body.filter = { row_digests: listOption(opts.rowDigests, '--row-digests') };
    if (opts.sort) body.sort_by = (opts.sort as string[]).map((s) => parseSortOption(s, 'order'));
    paging(body, opts);
    await run(routeOf(tableRoutes, '/table/query_stream'), opts, body);
  });
}

export function threadsCommand(): Command {
  const cmd = new Command('threads')
    .description('query conversation threads (POST /threads/stream_query) and print JSONL')
    .option('-p, --project <entity/project>', 'project to query')
    .option('--thread-ids <a,b,...>', 'only these threads')
    .option('--after <iso>', 'count only turns started strictly after this time')
    .option('--before <iso>', 'count only turns started strictly before this time')
    .option('--sort <field[:asc|desc]>', 'thread_id, turn_count, start_time, last_updated, p50_turn_duration_ms, p99_turn_duration_ms', collect)
    .option('--limit <n>', 'maximum number of threads')
    .option('--offset <n>', 'number of threads to skip')
    .option('--request <file|->', 'a whole request body (JSON); other flags override its fields');
  verboseOption(dataOptions(cmd)).addHelpText(
    'after',
    `
Examples:
  tq threads -p acme/support-bot
  tq threads -p acme/support-bot --sort turn_count:desc --limit 3
  tq threads -p acme/support-bot --after 2025-03-01T00:00:00Z --before 2025-04-01T00:00:00Z`,
  );
  return cmd.action(async (opts) => {
    const body = await baseBody(opts);
    const filter: Record<string, unknown> = { ...((body.filter as object) ?? {}) };
    if (opts.threadIds !== undefined) filter.thread_ids = listOption(opts.threadIds, '--thread-ids');
    if (opts.after) filter.after_datetime = datetimeFlag('--after', opts.after);
    if (opts.before) filter.before_datetime = datetimeFlag('--before', opts.before);
    if (Object.keys(filter).length) body.filter = filter;
    if (opts.sort) body.sort_by = (opts.sort as string[]).map((s) => parseSortOption(s, 'direction'));
    paging(body, opts);
    await run(routeOf(threadsRoutes, '/threads/stream_query'), opts, body);
  });
}
