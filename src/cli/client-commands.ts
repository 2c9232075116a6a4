/**
 * `tq count` (POST /calls/query_stats) and `tq objs` (POST /objs/query): the answers a Weave
 * client asks for besides the three streams, from a shell. Thin: flags become the request
 * body, the route does the rest, the JSON answer is printed.
 */
import { Command } from 'commander';
import { findRoute } from '../api/routes.ts';
import { dataOptions, intOption, jsonOption, listOption, loadEngine, parsePrefix, readRequest, runRoute, UsageError, type DataOptions } from './common.ts';

interface CommonFlags extends DataOptions {
  project?: string;
  request?: string;
}

/** `--request` (if any) with `--project` laid over it; a project is required. */
function requestBody(opts: CommonFlags): Record<string, unknown> {
  const body = opts.request === undefined ? {} : readRequest(opts.request);
  if (opts.project !== undefined) body.project_id = opts.project;
  if (body.project_id === undefined) throw new UsageError('--project is required (or a project_id in --request)');
  return body;
}

async function answer(path: string, opts: CommonFlags, body: Record<string, unknown>): Promise<void> {
  parsePrefix(opts.fieldPrefix);
  await runRoute(await loadEngine(opts), findRoute(path)!, body);
}

export function countCommand(): Command {
  const cmd = new Command('count')
    .description('count calls (POST /calls/query_stats) and print {"count", "total_storage_size_bytes"}')
    .option('-p, --project <entity/project>', 'project to count in')
    .option('--filter-json <json>', 'the calls filter object, e.g. {"trace_roots_only":true}')
    .option('--query-json <json>', 'a query: {"$expr": {...}} or just the operation')
    .option('--limit <n>', 'count at most n calls')
    .option('--total-storage-size', 'also sum the storage size of the counted traces')
    .option('--request <file|->', 'a whole request body (JSON); other flags override its fields');
  dataOptions(cmd).addHelpText(
    'after',
    `
Examples:
  tq count -p acme/support-bot
  tq count -p acme/support-bot --filter-json '{"trace_roots_only":true}' --total-storage-size
  tq count -p acme/support-bot --query-json '{"$gt":[{"$getField":"summary.weave.latency_ms"},{"$literal":1000}]}'`,
  );
  return cmd.action(async (opts) => {
    const body = requestBody(opts);
    if (opts.filterJson) body.filter = jsonOption('--filter-json', opts.filterJson);
    if (opts.queryJson) {
      const q = jsonOption('--query-json', opts.queryJson);
      body.query = q !== null && typeof q === 'object' && '$expr' in q ? q : { $expr: q };
    }
    if (opts.limit !== undefined) body.limit = intOption('--limit', opts.limit);
    if (opts.totalStorageSize) body.include_total_storage_size = true;
    await answer('/calls/query_stats', opts, body);
  });
}

export function objsCommand(): Command {
  const cmd = new Command('objs')
    .description('list object versions (POST /objs/query) and print {"objs": [...]}')
    .option('-p, --project <entity/project>', 'project to list')
    .option('--ids <a,b,...>', 'only these object ids')
    .option('--classes <a,b,...>', 'only these base object classes (e.g. Dataset,Model)')
    .option('--kind <op|object>', 'only ops, or only objects that are not ops')
    .option('--latest', 'only the latest version of each object')
    .option('--metadata-only', 'leave out the values (val is {})')
    .option('--sort <field[:asc|desc]>', 'object_id or created_at (default created_at asc)')
    .option('--limit <n>', 'maximum number of versions')
    .option('--offset <n>', 'number of versions to skip')
    .option('--request <file|->', 'a whole request body (JSON); other flags override its fields');
  dataOptions(cmd).addHelpText(
    'after',
    `
Examples:
  tq objs -p acme/evals --latest --metadata-only
  tq objs -p acme/evals --classes Dataset --sort object_id
  tq objs -p acme/support-bot --kind op --latest`,
  );
  return cmd.action(async (opts) => {
    const body = requestBody(opts);
    const filter: Record<string, unknown> = { ...((body.filter as object | undefined) ?? {}) };
    if (opts.ids) filter.object_ids = listOption(opts.ids);
    if (opts.classes) filter.base_object_classes = listOption(opts.classes);
    if (opts.kind !== undefined) {
      if (opts.kind !== 'op' && opts.kind !== 'object') throw new UsageError(`--kind takes op or object, got '${opts.kind}'`);
      filter.is_op = opts.kind === 'op';
    }
    if (opts.latest) filter.latest_only = true;
    if (Object.keys(filter).length > 0) body.filter = filter;
    if (opts.metadataOnly) body.metadata_only = true;
    if (opts.sort) {
      const [field, direction = 'asc'] = String(opts.sort).split(':');
      body.sort_by = [{ field, direction }];
    }
    if (opts.limit !== undefined) body.limit = intOption('--limit', opts.limit);
    if (opts.offset !== undefined) body.offset = intOption('--offset', opts.offset);
    await answer('/objs/query', opts, body);
  });
}
