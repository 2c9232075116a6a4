/**
 * Every derived cache the queries keep beside the store (per-path memos of dynamic call
 * fields, table positions and sort readings, trace names), dropped at once: what a query
 * meets right after a fresh load. The benchmark's cold runs start here.
 */
import type { Store } from '../store/store.ts';
import { forgetPathMemos } from './calls/call-fields.ts';
import { forgetTraceNames } from './calls/summary.ts';
import { forgetTableCaches } from './table/run.ts';

export function dropQueryCaches(store: Store): void {
  for (const project of store.projects.values()) {
    forgetPathMemos(project.calls);
    for (const digests of project.tables.values()) forgetTableCaches(digests);
  }
  forgetTraceNames();
}
