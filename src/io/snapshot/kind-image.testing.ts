/**
 * Test helper for the kind images (kind-image.ts): what a load of the tables, objects and costs
 * files puts in a store, as plain data for deep equality (a restore must hold exactly this).
 */
import type { Store } from '../../store/store.ts';

export function imagedState(store: Store): unknown {
  return {
    projects: [...store.projects.keys()],
    rows: [...store.projects.values()].map((p) => [p.projectId, [...p.rows]]),
    tables: [...store.projects.values()].map((p) => [p.projectId, [...p.tables]]),
    objects: [...store.projects.values()].map((p) => [p.projectId, [...p.objects]]),
    prices: store.prices,
  };
}
