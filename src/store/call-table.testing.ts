/** For tests: a call table's string columns read whole, row by row through their accessors. */
import type { CallTable } from './call-table.ts';

type StringAccessor = 'id' | 'traceId' | 'parentId' | 'threadId' | 'turnId' | 'userId';

/** Every row's value of one string column, in row order. */
export function columnValues<K extends StringAccessor>(t: CallTable, accessor: K): Array<ReturnType<CallTable[K]>> {
  return Array.from({ length: t.size }, (_, row) => t[accessor](row) as ReturnType<CallTable[K]>);
}
