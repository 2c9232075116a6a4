/**
 * `cost_create` (semantics.md#writes-costs, ClickHouse's `cost_create`): one project-level
 * price row per model id, effective from `effective_date` or now, provider "default" unless
 * named, units "USD" unless named. Later rows for the same model and project win from their
 * effective date on (semantics.md#calls-costs).
 */
import type { Engine } from '../api/types.ts';
import type { PriceRow } from '../store/store.ts';

export interface CostInput {
  prompt_token_cost: number;
  completion_token_cost: number;
  prompt_token_cost_unit?: string | null;
  completion_token_cost_unit?: string | null;
  effective_date?: number | null;
  provider_id?: string | null;
  /** Prices of cached prompt tokens (fixtures only; the request model has no such fields). */
  cache_read_input_token_cost?: number;
  cache_creation_input_token_cost?: number;
}

/** Adds the price rows; returns `{ids: [[cost_id, llm_id], ...]}` in request order (production's pairs). */
export function createCosts(
  engine: Engine,
  projectId: string,
  costs: Record<string, CostInput>,
  userId: string,
  createdAtUs: number = engine.options.now(),
  /** `default` prices apply to every project (Weave's built-in price list); fixtures only. */
  level: 'project' | 'default' = 'project',
): { ids: Array<[string, string]> } {
  const rows: PriceRow[] = [];
  for (const [llmId, cost] of Object.entries(costs)) {
    const row: PriceRow = {
      id: engine.options.newId(),
      pricing_level: level,
      pricing_level_id: level === 'default' ? 'default' : projectId,
      provider_id: cost.provider_id || 'default',
      llm_id: llmId,
      effective_date: cost.effective_date ?? createdAtUs,
      prompt_token_cost: cost.prompt_token_cost,
      completion_token_cost: cost.completion_token_cost,
      prompt_token_cost_unit: cost.prompt_token_cost_unit || 'USD',
      completion_token_cost_unit: cost.completion_token_cost_unit || 'USD',
      cache_read_input_token_cost: cost.cache_read_input_token_cost ?? 0,
      cache_creation_input_token_cost: cost.cache_creation_input_token_cost ?? 0,
      created_by: userId,
      created_at: createdAtUs,
    };
    rows.push(row);
  }
  // Stored only once every row is built (an id draw that throws stores none of them).
  for (const row of rows) engine.store.prices.push(row);
  return { ids: rows.map((row) => [row.id, row.llm_id]) };
}
