import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseCallRecord } from '../../load/calls/call-record.ts';
import { CallTable } from '../../store/call-table.ts';
import { INDEXED_COLUMNS, planFilter } from './filter.ts';

function table(): CallTable {
  const t = new CallTable();
  const calls = [
    { id: 'a', trace_id: 't1', parent_id: null, thread_id: 'th', turn_id: 'a' },
    { id: 'b', trace_id: 't1', parent_id: 'a', thread_id: 'th', turn_id: 'a' },
    { id: 'c', trace_id: 't2', parent_id: null, thread_id: null, turn_id: null },
  ];
  for (const c of calls) {
    const rec = { ...c, project_id: 'e/p', op_name: 'op', started_at: '2024-01-01T00:00:00Z' };
    const { record } = parseCallRecord(rec, 'svc_');
    const bytes = Buffer.from(JSON.stringify(rec));
    t.load(record, bytes, 0, bytes.length);
  }
  return t;
}

test('the indexed columns: id and the four id columns the store indexes', () => {
  assert.deepEqual([...INDEXED_COLUMNS.keys()], ['id', 'trace_id', 'parent_id', 'thread_id', 'turn_id']);
});

test('an $expr equality on an indexed column gives the rows holding its values, ascending, each once', () => {
  const t = table();
  const candidates = (field: string, values: string[]) => planFilter(t, null, [{ field, values }]).candidates;
  assert.deepEqual(candidates('id', ['c', 'a', 'a', 'zz']), [0, 2]);
  assert.deepEqual(candidates('trace_id', ['t1', 't1']), [0, 1]);
  assert.deepEqual(candidates('parent_id', ['a']), [1]);
  assert.deepEqual(candidates('thread_id', ['th']), [0, 1]);
  assert.deepEqual(candidates('turn_id', ['a', 'nope']), [0, 1]);
  assert.deepEqual(candidates('id', []), []);
});
