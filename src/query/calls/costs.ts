/**
 * `include_costs` (semantics.md#calls-costs): per model in `summary.usage`, the token counts and
 * their price from the best matching LLM price row, under `summary.weave.costs`.
 */
import { formatMicros } from '../../core/datetime.ts';
import type { PriceRow } from '../../store/store.ts';
import { defineOwn, LosslessNumber } from '../../core/json/lossless.ts';

/** Python int() of a usage value; anything unconvertible counts as 0. */
function safeInt(v: unknown): number {
  if (v instanceof LosslessNumber) v = Number(v.lexeme); // a count stored as a float (`5.0`)
  if (typeof v === 'number' && Number.isFinite(v)) return Math.trunc(v);
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'string' && /^\s*[+-]?\d+\s*$/.test(v)) return Number(v);
  return 0;
}

interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  requests: number;
  total_tokens: number;
  cache_read_input_tokens: number;
  cache_creation_input_tokens: number;
}

function usageOf(summary: Record<string, unknown>): Map<string, Usage> {
  const out = new Map<string, Usage>();
  const usage = summary.usage;
  if (usage === null || typeof usage !== 'object' || Array.isArray(usage)) return out;
  for (const [llmId, u] of Object.entries(usage as Record<string, unknown>)) {
    if (u === null || typeof u !== 'object' || Array.isArray(u)) continue;
    const x = u as Record<string, unknown>;
    out.set(llmId, {
      prompt_tokens: safeInt(x.prompt_tokens) + safeInt(x.input_tokens),
      completion_tokens: safeInt(x.completion_tokens) + safeInt(x.output_tokens),
      requests: safeInt(x.requests),
      total_tokens: safeInt(x.total_tokens),
      cache_read_input_tokens: safeInt(x.cache_read_input_tokens),
      cache_creation_input_tokens: safeInt(x.cache_creation_input_tokens),
    });
  }
  return out;
}

/**
 * The preferred price row for a call started at `startedAt`: rows in effect by then first,
 * project rows before default rows, then the newest effective date.
 */
function pickPrice(rows: readonly PriceRow[], startedAt: number, projectId: string): PriceRow | null {
  let best: PriceRow | null = null;
  let bestKey: [number, number, number] | null = null;
  for (const row of rows) {
    const level = row.pricing_level === 'project' ? (row.pricing_level_id === projectId ? 0 : -1) : 1;
    if (level < 0) continue;
    const key: [number, number, number] = [row.effective_date > startedAt ? 1 : 0, level, -row.effective_date];
    if (bestKey === null || key[0] < bestKey[0] || (key[0] === bestKey[0] && (key[1] < bestKey[1] || (key[1] === bestKey[1] && key[2] < bestKey[2])))) {
      best = row;
      bestKey = key;
    }
  }
  return best;
}

/** Adds `summary.weave.costs` when at least one model has a price (otherwise leaves it absent). */
export function applyCosts(summary: Record<string, unknown>, prices: readonly PriceRow[], startedAt: number, projectId: string): void {
  const usage = usageOf(summary);
  if (usage.size === 0) return;
  const costs: Record<string, unknown> = {};
  for (const [llmId, u] of usage) {
    const row = pickPrice(prices.filter((p) => p.llm_id === llmId), startedAt, projectId);
    if (!row) continue;
    defineOwn(costs, llmId, {
      prompt_tokens: u.prompt_tokens,
      completion_tokens: u.completion_tokens,
      cache_read_input_tokens: u.cache_read_input_tokens,
      cache_creation_input_tokens: u.cache_creation_input_tokens,
      requests: u.requests,
      total_tokens: u.total_tokens,
      // Cached prompt tokens are billed at the cache rates, not the prompt rate.
      prompt_tokens_total_cost: (u.prompt_tokens - u.cache_read_input_tokens - u.cache_creation_input_tokens) * row.prompt_token_cost,
      completion_tokens_total_cost: u.completion_tokens * row.completion_token_cost,
      cache_read_input_tokens_total_cost: u.cache_read_input_tokens * row.cache_read_input_token_cost,
      cache_creation_input_tokens_total_cost: u.cache_creation_input_tokens * row.cache_creation_input_token_cost,
      prompt_token_cost: row.prompt_token_cost,
      completion_token_cost: row.completion_token_cost,
      cache_read_input_token_cost: row.cache_read_input_token_cost,
      cache_creation_input_token_cost: row.cache_creation_input_token_cost,
      prompt_token_cost_unit: row.prompt_token_cost_unit,
      completion_token_cost_unit: row.completion_token_cost_unit,
      effective_date: formatMicros(row.effective_date),
      provider_id: row.provider_id,
      pricing_level: row.pricing_level,
      pricing_level_id: row.pricing_level_id,
      created_at: formatMicros(row.created_at),
      created_by: row.created_by,
    });
  }
  if (Object.keys(costs).length === 0) return;
  const weave = (summary.weave ??= {}) as Record<string, unknown>;
  weave.costs = costs;
}
