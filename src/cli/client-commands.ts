/**
 * `tq count` (POST /calls/query_stats) and `tq objs` (POST /objs/query): the answers a Weave
 * client asks for besides the three streams, from a shell. Thin: flags edit the request text
 * (as `tq calls` does, losslessly), the route does the rest, the JSON answer is printed.
 */
import { Command } from 'commander';
import { findRoute } from '../routes.ts';
import { kindsNeeded } from '../load/kinds-needed.ts';
import { LosslessObject, type LosslessValue } from '../core/json/lossless.ts';
import { dataOptions, intOption, listOption, loadEngine, parsePrefix, printRouteResult, UsageError, type DataOptions } from './common.ts';
import { callsEdits, requestTextOf } from './queries.ts';
import { integer, setTo, sortTerms, strings, type FieldEdit } from './request-body.ts';

async function answer(path: string, opts: DataOptions & { request?: string }, edits: Map<string, FieldEdit>): Promise<void> {
  parsePrefix(opts.fieldPrefix);
  const text = await requestTextOf(opts, edits);
  const load = () => loadEngine(opts, kindsNeeded(path, text));
  await printRouteResult(await load(), findRoute(path)!, text, load);
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
    // The same flags as `tq calls`, so the same edits.
    const edits = callsEdits(opts);
    if (opts.totalStorageSize) edits.set('include_total_storage_size', setTo(true));
    await answer('/calls/query_stats', opts, edits);
  });
}

/** Sets keys inside the request's `filter` object, keeping the others it has. */
function filterEdit(fields: Array<[string, LosslessValue]>): FieldEdit {
  return (current) => {
    const entries = current instanceof LosslessObject ? current.entries.filter(([k]) => !fields.some(([f]) => f === k)) : [];
    return new LosslessObject([...entries, ...fields]);
  };
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
    const edits = new Map<string, FieldEdit>();
    if (opts.project) edits.set('project_id', setTo(opts.project));
    else if (!opts.request) throw new UsageError('--project is required (or a project_id in --request)');
    const filter: Array<[string, LosslessValue]> = [];
    if (opts.ids) filter.push(['object_ids', strings(listOption(opts.ids))]);
    if (opts.classes) filter.push(['base_object_classes', strings(listOption(opts.classes))]);
    if (opts.kind !== undefined) {
      if (opts.kind !== 'op' && opts.kind !== 'object') throw new UsageError(`--kind takes op or object, got '${opts.kind}'`);
      filter.push(['is_op', opts.kind === 'op']);
    }
    if (opts.latest) filter.push(['latest_only', true]);
    if (filter.length > 0) edits.set('filter', filterEdit(filter));
    if (opts.metadataOnly) edits.set('metadata_only', setTo(true));
    if (opts.sort) {
      const [field, direction = 'asc'] = String(opts.sort).split(':');
      edits.set('sort_by', setTo(sortTerms([{ field, direction }])));
    }
    if (opts.limit !== undefined) edits.set('limit', setTo(integer(intOption('--limit', opts.limit))));
    if (opts.offset !== undefined) edits.set('offset', setTo(integer(intOption('--offset', opts.offset))));
    await answer('/objs/query', opts, edits);
  });
}
