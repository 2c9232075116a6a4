/**
 * `POST /table/query_stats_batch` (TableQueryStatsBatchReq → `{tables: [TableStatsRow]}`):
 * one entry per table found among `digests` (unknown ones are left out, a repeated digest
 * counts once; semantics.md#table-stats), in request order, with its row count (duplicate
 * rows included) and, with `include_storage_size`, `storage_size_bytes`: the summed length of
 * the rows' JSON dumps (how production sizes stored values); null otherwise.
 */
import { defineRoute, type RouteCall } from '../../api/define-route.ts';
import { fromPlain } from '../../core/json/lossless.ts';
import { pyDumps } from '../../core/json/pyjson.ts';
import { bool, list, maybe, model, str, type Infer } from '../../core/schema.ts';

const statsBatchModel = model(
  'TableQueryStatsBatchReq',
  { project_id: str(), digests: maybe(list(str())), include_storage_size: maybe(bool()) },
  { strict: true },
);

export interface TableStatsRow {
  count: number;
  digest: string;
  storage_size_bytes: number | null;
}

function tableStatsBatch(req: Infer<typeof statsBatchModel>, { engine }: RouteCall): { tables: TableStatsRow[] } {
  const project = engine.store.project(req.project_id);
  const tables: TableStatsRow[] = [];
  for (const digest of new Set(req.digests ?? [])) {
    const rows = project?.tables.get(digest);
    if (!project || !rows) continue;
    let size: number | null = null;
    if (req.include_storage_size) {
      size = 0;
      for (const d of rows) {
        // A table made from digests whose rows the project does not hold (create_from_digests
        // stores the list unchecked): those rows weigh nothing, as a join to no row (was a 500).
        const row = project.rows.get(d);
        if (row === undefined) continue;
        size += pyDumps(fromPlain((row.parsed ??= JSON.parse(row.text)))).length;
      }
    }
    tables.push({ count: rows.length, digest, storage_size_bytes: size });
  }
  return { tables };
}

export const tableQueryStatsBatchRoute = defineRoute({
  path: '/table/query_stats_batch',
  body: 'plain',
  mutates: false,
  answer: 'json',
  model: () => statsBatchModel,
  project: (req) => req.project_id,
  run: tableStatsBatch,
});
