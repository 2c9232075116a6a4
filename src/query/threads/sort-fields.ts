/**
 * The thread fields a request may sort by (semantics.md#threads-sort), and how each compares.
 * The one list: the request check and its 400 message, the ordering, the CLI help and tq fuzz
 * all read it, so making a ThreadStats field sortable is one line here.
 */
import type { ThreadStats } from './aggregate.ts';

type Stat = keyof ThreadStats;
type TextStat = { [K in Stat]: ThreadStats[K] extends string ? K : never }[Stat];
type NumberStat = { [K in Stat]: ThreadStats[K] extends number | null ? K : never }[Stat];

/**
 * Field → comparison: 'text' compares code points (ClickHouse string order), 'number' compares
 * values with missing ones last. Order matters: it is the order the 400 message lists them in.
 */
const THREAD_SORT_FIELDS = {
  thread_id: 'text',
  turn_count: 'number',
  start_time: 'number',
  last_updated: 'number',
  p50_turn_duration_ms: 'number',
  p99_turn_duration_ms: 'number',
} as const satisfies { [K in TextStat]?: 'text' } & { [K in NumberStat]?: 'number' };

export type ThreadSortField = keyof typeof THREAD_SORT_FIELDS;
type SortFieldOfKind<Kind> = { [F in ThreadSortField]: (typeof THREAD_SORT_FIELDS)[F] extends Kind ? F : never }[ThreadSortField];
export type TextSortField = SortFieldOfKind<'text'>;

export const THREAD_SORT_FIELD_NAMES = Object.keys(THREAD_SORT_FIELDS) as ThreadSortField[];

export const isThreadSortField = (f: string): f is ThreadSortField => (THREAD_SORT_FIELD_NAMES as readonly string[]).includes(f);
export const isTextSortField = (f: ThreadSortField): f is TextSortField => THREAD_SORT_FIELDS[f] === 'text';

/** The list as the server's 400 message prints it: a Python list repr. */
export const THREAD_SORT_FIELDS_REPR = `[${THREAD_SORT_FIELD_NAMES.map((f) => `'${f}'`).join(', ')}]`;
