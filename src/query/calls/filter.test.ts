import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseCallRecord } from '../../load/calls/call-record.ts';
import { CallTable } from '../../store/call-table.ts';
import { INDEXED_COLUMNS, planFilter } from './filter.ts';
import { readFileSync } from 'node:fs';
import { callRoute } from '../../api/call-route.testing.ts';
import { createEngine } from '../../engine.ts';
import type { CallsFilter } from './request.ts';

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

/**
 * The change-map guard of a calls filter field (docs/change-map.md): FILTER_SAMPLES is a Record
 * over CallsFilter's fields (the model's), so a new field fails to compile here until it has a
 * sample; then the field must be in docs/semantics.md#calls-filter-model and must change the
 * answer of /calls/stream_query (planFilter reads it).
 */
const FILTER_SAMPLES: Record<keyof CallsFilter, { value: unknown; ids: string[] }> = {
  op_names: { value: ['op-b'], ids: ['b'] },
  input_refs: { value: ['weave:///e/p/object/o:in'], ids: ['b'] },
  output_refs: { value: ['weave:///e/p/object/o:out'], ids: ['c'] },
  parent_ids: { value: ['a'], ids: ['b'] },
  trace_ids: { value: ['t2'], ids: ['c'] },
  call_ids: { value: ['a', 'c'], ids: ['a', 'c'] },
  thread_ids: { value: ['th'], ids: ['a', 'b'] },
  turn_ids: { value: ['b'], ids: ['b'] },
  trace_roots_only: { value: true, ids: ['a', 'c'] },
  user_ids: { value: ['u-c'], ids: ['c'] },
  run_ids: { value: ['r-a'], ids: ['a'] },
};

test('every calls filter field is documented, parsed, and narrows the answer', () => {
  const engine = createEngine();
  const start = (id: string, extra: Record<string, unknown>) =>
    callRoute(engine, '/call/start', { start: { project_id: 'e/p', id, op_name: `op-${id}`, started_at: '2024-01-01T00:00:00Z', attributes: {}, inputs: {}, ...extra } });
  assert.equal(start('a', { trace_id: 't1', thread_id: 'th', turn_id: 'a', svc_run_id: 'r-a' }).status, 200);
  assert.equal(start('b', { trace_id: 't1', parent_id: 'a', thread_id: 'th', turn_id: 'b', inputs: { x: 'weave:///e/p/object/o:in' } }).status, 200);
  assert.equal(start('c', { trace_id: 't2', svc_user_id: 'u-c' }).status, 200);
  assert.equal(callRoute(engine, '/call/end', { end: { project_id: 'e/p', id: 'c', ended_at: '2024-01-01T00:00:01Z', output: 'weave:///e/p/object/o:out', summary: {} } }).status, 200);
  const ids = (filter: Record<string, unknown>) => {
    const r = callRoute(engine, '/calls/stream_query', { project_id: 'e/p', filter });
    assert.equal(r.status, 200, JSON.stringify(r));
    return (r as { lines: Array<{ id: string }> }).lines.map((c) => c.id);
  };
  assert.deepEqual(ids({}), ['a', 'b', 'c']);
  const section = /#### calls-filter-model\n([\s\S]*?)\n####/.exec(readFileSync(new URL('../../../docs/semantics.md', import.meta.url), 'utf8'))![1];
  for (const [field, { value, ids: expected }] of Object.entries(FILTER_SAMPLES)) {
    const wire = field === 'user_ids' || field === 'run_ids' ? `svc_${field}` : field;
    assert.ok(section.includes(`\`${wire === `svc_${field}` ? `<prefix>${field}` : field}\``), `${field} is not in semantics.md#calls-filter-model`);
    assert.deepEqual(ids({ [wire]: value }), expected, field);
  }
});
