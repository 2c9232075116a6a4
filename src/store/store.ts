/**
 * The whole in-memory trace store: one ProjectStore per `entity/project`, plus LLM prices.
 * Pure data; the write path (src/write) and queries (src/query) operate on it.
 */
import { DerivedCaches } from './derived.ts';
import { ProjectStore } from './project.ts';

/** One row of the LLM price list (Weave's `llm_token_prices`). */
export interface PriceRow {
  id: string;
  /** `default` rows apply to every project; `project` rows to `pricing_level_id`. */
  pricing_level: 'default' | 'project';
  pricing_level_id: string;
  provider_id: string;
  llm_id: string;
  effective_date: number;
  prompt_token_cost: number;
  completion_token_cost: number;
  prompt_token_cost_unit: string;
  completion_token_cost_unit: string;
  cache_read_input_token_cost: number;
  cache_creation_input_token_cost: number;
  created_by: string;
  created_at: number;
}

/**
 * The store an Engine holds. Its published face (the package's declarations) is the
 * constructor and counts(): the other members are tagged internal, the engine's own, left out of
 * dist/*.d.ts (stripInternal), so performance work on the store classes never changes the
 * package's declared API (src/published-api.test.ts holds it to docs/library.md).
 */
export class Store {
  /** @internal */
  readonly projects = new Map<string, ProjectStore>();
  /** @internal */
  readonly prices: PriceRow[] = [];
  /** @internal Caches the queries derive from this store's data (per engine, bounded, counted). */
  readonly derived = new DerivedCaches();

  /** @internal The project's store, or undefined when nothing was ever written to it. */
  project(projectId: string): ProjectStore | undefined {
    return this.projects.get(projectId);
  }

  /** @internal The project's store, created on first write. */
  projectForWrite(projectId: string): ProjectStore {
    let p = this.projects.get(projectId);
    if (!p) {
      p = new ProjectStore(projectId);
      this.projects.set(projectId, p);
    }
    return p;
  }

  /** What the store holds, counted (as `tq load --check` prints it). */
  counts(): { projects: number; calls: number; tables: number; rows: number; objects: number; feedback: number; prices: number; files: number } {
    let calls = 0, tables = 0, rows = 0, objects = 0, feedback = 0, files = 0;
    for (const p of this.projects.values()) {
      calls += p.calls.size;
      tables += p.tables.size;
      rows += p.rows.size;
      for (const v of p.objects.values()) objects += v.length;
      feedback += p.feedback.length;
      files += p.files.size;
    }
    return { projects: this.projects.size, calls, tables, rows, objects, feedback, prices: this.prices.length, files };
  }
}
