/**
 * Keeps the benchmark from rotting (issue #7): the whole bench at 10k calls, 2 timed runs per
 * query, must run every query on every side, agree with DuckDB and the closures id for id,
 * and report every section.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { diffIds, formatReport, runBench } from './run.ts';

const QUERY_NAMES = ['id_filter', 'op_wildcard', 'expr_scan', 'roots_recent', 'latency_top', 'offset_page', 'threads_all', 'table_sort'];

test('diffIds: equal lists are no difference; a swap, a missing and an extra id are named', () => {
  assert.equal(diffIds(['a', 'b', 'c'], ['a', 'b', 'c']), null);
  const swapped = diffIds(['a', 'b', 'c'], ['a', 'c', 'b']);
  assert.match(swapped!, /missing 0 \[\]; extra 0 \[\]; first order difference at position 1/);
  const changed = diffIds(['a', 'b'], ['a', 'x', 'b']);
  assert.match(changed!, /2 expected vs 3 actual; missing 0 \[\]; extra 1 \["x"\]/);
  assert.match(diffIds(['a', 'b'], ['a'])!, /missing 1 \["b"\]/);
});

test('issue #7: the bench at 10k calls runs every query on tq, DuckDB and the closures, with no mismatch', { timeout: 120_000 }, async () => {
  const r = await runBench({ calls: 10_000, runs: 2, warmup: 1, httpCalls: 10_000, httpRuns: 1 });
  assert.deepEqual(r.mismatches, [], formatReport(r));
  assert.deepEqual(r.errors, []);
  assert.deepEqual(r.queries.map((q) => q.name), QUERY_NAMES);
  for (const q of r.queries) {
    for (const side of [q.tq, q.duckdb, q.closure]) {
      assert.equal(side.error, undefined, `${q.name}: ${side.error}`);
      assert.equal(side.timing?.runs, 2, q.name);
      assert.ok(side.timing!.median_ms >= 0 && side.timing!.p95_ms >= side.timing!.median_ms, q.name);
    }
    assert.equal(q.duckdb_ids_match, true, q.name);
    assert.equal(q.closure_ids_match, true, q.name);
    assert.equal(q.tq.rows, q.duckdb.rows, q.name);
    assert.ok(q.tq.rows! > 0, `${q.name} returned no rows: the query mix would measure nothing`);
  }
  assert.equal(r.queries.find((q) => q.name === 'id_filter')!.tq.rows, 10);
  assert.equal(r.queries.find((q) => q.name === 'offset_page')!.tq.rows, 100);
  assert.equal(r.config.calls, 10_000);
  assert.ok(r.load.tq_mb_per_s > 0 && r.load.bare_parse_mb_per_s > 0);
  assert.ok(r.memory.heap_per_call_bytes > 0);
  assert.ok(r.http.available, r.http.available ? '' : r.http.reason);
  assert.equal(r.http.lines, 10_000);
  assert.equal(r.targets.length, 6);
  assert.equal(r.targets.filter((t) => !t.name.startsWith('(supplementary)')).length, 4);
  for (const t of r.targets) assert.notEqual(t.value, null, t.name);
  assert.ok(r.machine.cores > 0 && r.machine.node.startsWith('v'));
});
