/**
 * `POST /cost/query` (CostQueryReq → `{results: [CostQueryOutput]}`) and `POST /cost/purge`
 * (CostPurgeReq → `{}`), as production's CostsRepository runs them over LLM_TOKEN_PRICES_TABLE:
 * only project-level prices, `fields` / `query` / `sort_by` / `limit` / `offset` as in the ORM,
 * and every result shaped as CostQueryOutput (its eight keys, null where not selected). A
 * purge takes only ids (`$eq`, `$in` or an `$or` of `$eq`s of `id`).
 *
 * Production scopes a query to the request's project only when it has no `query` of its own,
 * so a query could read other projects' prices; tq always scopes to the request's project,
 * since a grant covers only what it names (semantics.md#auth-grants-refs).
 */
import { defineRoute, type RouteCall } from '../../api/define-route.ts';
import type { Engine } from '../../api/types.ts';
import type { Infer } from '../../core/schema.ts';
import type { PriceRow } from '../../store/store.ts';
import { checkPurgeShape } from '../orm/purge-shape.ts';
import { matchingRows, ormPurgeModel, ormQueryModel, parseOrmQuery, runOrmQuery } from '../orm/request.ts';
import { RowTable, type Column } from '../orm/rows.ts';

const OUTPUT_KEYS = ['id', 'llm_id', 'prompt_token_cost', 'completion_token_cost', 'prompt_token_cost_unit', 'completion_token_cost_unit', 'effective_date', 'provider_id'];
const MESSAGE_INVALID_COST_PURGE = 'Can only purge costs by specifying one or more cost ids';

function priceTable(rows: readonly PriceRow[]): RowTable<PriceRow> {
  const s = (name: keyof PriceRow): Column<PriceRow> => ({ name, kind: 'string', get: (r) => r[name] });
  const n = (name: keyof PriceRow): Column<PriceRow> => ({ name, kind: 'number', get: (r) => r[name] });
  const d = (name: keyof PriceRow): Column<PriceRow> => ({ name, kind: 'datetime', get: (r) => r[name] });
  return new RowTable(rows, [
    s('id'), s('pricing_level'), s('pricing_level_id'), s('provider_id'), s('llm_id'), d('effective_date'),
    n('prompt_token_cost'), n('completion_token_cost'), s('prompt_token_cost_unit'), s('completion_token_cost_unit'),
    s('created_by'), d('created_at'),
  ]);
}

/** The project's own price rows (production's `pricing_level = 'project'` condition). */
const projectPrices = (engine: Engine, projectId: string) =>
  engine.store.prices.filter((r) => r.pricing_level === 'project' && r.pricing_level_id === projectId);

const costQueryModel = ormQueryModel('CostQueryReq');

function queryCosts({ req, expr }: OrmRequest<typeof costQueryModel>, { engine }: RouteCall): { results: Array<Record<string, unknown>> } {
  const rows = runOrmQuery(priceTable(projectPrices(engine, req.project_id)), req, expr);
  return { results: rows.map((row) => Object.fromEntries(OUTPUT_KEYS.map((k) => [k, row[k] ?? null]))) };
}

const costPurgeModel = ormPurgeModel('CostPurgeReq');

function purgeCosts({ req, expr }: OrmRequest<typeof costPurgeModel>, { engine }: RouteCall): Record<string, never> {
  checkPurgeShape(expr, MESSAGE_INVALID_COST_PURGE, true);
  const table = priceTable(projectPrices(engine, req.project_id));
  const gone = new Set(matchingRows(table, expr).map((r) => table.rows[r]));
  // In place, without spreading the kept rows into arguments (200,000 rows overflow the stack).
  const prices = engine.store.prices;
  let kept = 0;
  for (let i = 0; i < prices.length; i++) if (!gone.has(prices[i])) prices[kept++] = prices[i];
  prices.length = kept;
  return {};
}

/** A request of an ORM model with its `query` parsed (before authorization: a bad query is the client's 400). */
interface OrmRequest<S> {
  req: Infer<S>;
  expr: ReturnType<typeof parseOrmQuery>;
}

export const costQueryRoute = defineRoute({
  path: '/cost/query',
  body: 'query',
  mutates: false,
  answer: 'json',
  model: () => costQueryModel,
  refine: (req) => ({ req, expr: parseOrmQuery(req.query) }),
  project: ({ req }) => req.project_id,
  run: queryCosts,
});

export const costPurgeRoute = defineRoute({
  path: '/cost/purge',
  body: 'plain',
  mutates: true,
  answer: 'json',
  model: () => costPurgeModel,
  refine: (req) => ({ req, expr: parseOrmQuery(req.query) }),
  project: ({ req }) => req.project_id,
  run: purgeCosts,
});
