/**
 * Keeps the benchmark from rotting (issue #12): the whole bench at 2000 calls, one timed run
 * per side, must run every query on tq (cold and warm) and both DuckDB variants, agree with
 * DuckDB on keys, order and sampled content, run the one-shot processes (jq only when it is
 * installed), and report every section and target.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatReport, parseArgs, runBench } from './run.ts';
import { jqAvailable } from './oneshot.ts';

const QUERY_NAMES = [
  'first_sort_calls', 'first_expr_calls', 'first_sort_table',
  'id_filter', 'trace_filter', 'roots_page_50', 'roots_page_100', 'roots_expand', 'roots_feedback',
  'op_wildcard', 'expr_scan', 'latency_top', 'offset_page', 'threads_all', 'table_sort',
  'ui_roots_window', 'ui_count_roots_window', 'ui_count_window', 'ui_offset_latency', 'ui_nested_inputs', 'ui_threads_p50', 'ui_table_digests',
];

test('issue #12: the bench at 2000 calls runs every query and the one-shots, with every cross-check passing', { timeout: 600_000 }, async () => {
  const r = await runBench({ calls: 2000, runs: 1, warmup: 1, httpCalls: 2000, httpRuns: 1, oneShotCalls: [2000], oneShotRuns: 1 });
  assert.deepEqual(r.mismatches, [], formatReport(r));
  assert.deepEqual(r.errors, []);
  // The query_stats hook adds its query only once that route exists.
  const names = Object.keys(r.queries);
  assert.deepEqual(names.filter((n) => n !== 'query_stats_roots'), QUERY_NAMES);
  for (const [name, q] of Object.entries(r.queries)) {
    assert.ok(q.rows! > 0, `${name} returned no rows: the query would measure nothing`);
    assert.ok(q.tq.cold_ms! > 0, name);
    for (const t of [q.tq.warm, q.duckdb.plain, q.duckdb.tuned]) {
      assert.equal(t?.runs, 1, name);
      assert.ok(t!.min_ms <= t!.median_ms && t!.median_ms <= t!.max_ms && t!.cpu_median_ms >= 0, name);
    }
    for (const c of [q.check.plain, q.check.tuned]) {
      assert.equal(c?.ids_match, true, name);
      assert.equal(c?.content_match, true, name);
      assert.equal(c?.content_sampled, Math.min(50, q.rows!), name);
    }
    assert.ok(q.ratios.warm_over_plain! > 0 && q.ratios.cold_over_tuned! > 0, name);
  }
  assert.equal(r.queries.id_filter.rows, 10);
  assert.equal(r.queries.offset_page.rows, 100);
  assert.equal(r.queries.roots_page_50.rows, 50);
  assert.ok(r.copy_ceiling!.bytes > r.queries.op_wildcard.bytes!);
  // The ceiling is measured after each warm run, and both goals of issue #25 are targets.
  assert.ok(r.copy_ceiling!.ms > 0 && r.copy_ceiling!.tq_over_ceiling! > 0 && r.copy_ceiling!.tq_cpu_over_ceiling_cpu !== undefined);
  const target = (name: string) => r.targets.find((t) => t.name === name);
  assert.equal(target('op_wildcard, tq warm / gather-copy of its result lines')?.value, r.copy_ceiling!.tq_over_ceiling);
  assert.ok(r.load.tq_mb_per_s > 0 && r.load.bare_parse_mb_per_s > 0 && r.load.duckdb_calls_load_ms! > 0);
  assert.ok(r.memory.heap_per_call_bytes > 0);
  assert.ok(r.http.available, r.http.available ? '' : r.http.reason);
  assert.equal(r.http.lines, 2000);
  // The same bytes from a plain node:http server, interleaved: tq's share of its throughput.
  assert.ok(r.http.ceiling.median_ms > 0 && r.http.cpu_ms.tq > 0 && r.http.cpu_ms.ceiling >= 0);
  assert.equal(r.http.tq_over_ceiling, Math.round((r.http.ceiling.median_ms / r.http.median_ms) * 1000) / 1000);
  assert.equal(target('HTTP stream, tq / a node:http server writing the same bytes prebuilt')?.value, r.http.tq_over_ceiling);

  const shot = r.oneshot['2000'];
  const jq = jqAvailable();
  assert.equal(shot.jq, jq.ok ? jq.version : `skipped: ${jq.reason}`);
  assert.deepEqual(Object.keys(shot.queries), ['op_wildcard', 'roots_page_100']);
  for (const [name, q] of Object.entries(shot.queries)) {
    assert.deepEqual(q.errors, [], name);
    assert.equal(q.ids_match, true, name);
    assert.equal(q.tq!.rows, q.duckdb!.rows, name);
    assert.equal(q.jq === null, !jq.ok, name);
    if (q.jq) assert.equal(q.jq.rows, q.tq!.rows, name);
  }
  assert.equal(shot.queries.roots_page_100.tq!.rows, 100);
  assert.ok(shot.snapshot_bytes! > 0);
  for (const q of Object.values(shot.queries)) assert.ok(q.tq_snapshot_first!.runs === 1 && q.tq_repeat!.runs > 0 && q.tq_repeat!.rows === q.tq!.rows);
  assert.equal(shot.queries.op_wildcard.tq!.rows, r.queries.op_wildcard.rows);

  // First use (issue #25): three samples each, the first the first-ever read of its path.
  for (const name of ['first_sort_calls', 'first_expr_calls', 'first_sort_table']) {
    const f = r.queries[name].first_use!;
    assert.equal(f.tq!.runs, 3, name);
    assert.equal(f.plain!.runs, 3, name);
    assert.ok(f.first_ms! > 0 && f.tq!.min_ms <= f.first_ms! && f.first_ms! <= f.tq!.max_ms && f.tq_over_plain! > 0, name);
  }
  assert.equal(r.queries.table_sort.first_use, null);
  assert.equal(r.queries.ui_table_digests.rows, 100);
  assert.equal(r.queries.ui_offset_latency.rows, 50);
  assert.match(formatReport(r), /first_sort_table +\d/);

  assert.equal(r.targets.length, 12);
  for (const t of r.targets) assert.notEqual(t.value, null, t.name);
  assert.ok(r.machine.cores > 0 && r.machine.node.startsWith('v') && r.machine.duckdb_threads! > 0);
  assert.match(formatReport(r), /\| roots_page_50 \| 50 \|/);
});

test('jq missing: the one-shot section says why it skipped it', () => {
  const r = jqAvailable('tq-bench-no-such-jq');
  assert.equal(r.ok, false);
  assert.match(!r.ok ? r.reason : '', /^tq-bench-no-such-jq not installed \(ENOENT\)$/);
});

test('bench arguments: unknown parts to skip and tiny sizes are refused with the reason', () => {
  assert.throws(() => parseArgs(['--skip', 'closure']), /--skip takes duckdb, cold, http, oneshot; got 'closure'/);
  assert.throws(() => parseArgs(['--calls', '5']), /--calls must be at least 10/);
  assert.throws(() => parseArgs(['--oneshot-calls', '100,x']), /--oneshot-calls takes sizes of at least 10, got 'x'/);
  const o = parseArgs(['--calls', '500', '--skip', 'oneshot,cold', '--oneshot-calls', '100,200']);
  assert.equal(o.calls, 500);
  assert.deepEqual([...o.skip!], ['oneshot', 'cold']);
  assert.deepEqual(o.oneShotCalls, [100, 200]);
});
