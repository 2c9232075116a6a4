/**
 * Builds an Engine: a store plus the options every route reads. The engine core (store,
 * write path, queries) imports no fs, http, process or chalk; front ends create an Engine and
 * call routes on it.
 */
import type { Engine, EngineOptions } from './api/types.ts';
import { uuidv7 } from './core/ids.ts';
import { Store } from './store/store.ts';

export function createEngine(store: Store = new Store(), options: Partial<EngineOptions> = {}): Engine {
  return {
    store,
    options: {
      fieldPrefix: options.fieldPrefix ?? 'svc_',
      now: options.now ?? (() => Date.now() * 1000),
      newId: options.newId ?? (() => uuidv7()),
    },
  };
}
