/**
 * The one-shot section alone (bench/oneshot.ts), without the in-process load and query mix of
 * bench/run.ts: `node --import tsx bench/oneshot-run.ts --calls 1000000[,3000000] [--runs 3]`.
 * Prints the one-shot table and writes the results as JSON (--out, default
 * bench/oneshot-results.json), with the load averages before and after. `--dir D` measures a
 * directory `tq gen --calls N --out D` wrote instead (one size: --calls says how many calls
 * it holds): no table, no prompt refs or feedback, which is far quicker to write at 3M.
 * `--no-jq` leaves jq out, `--no-repeat` the runs with a load snapshot.
 */
import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { optionReader } from './args.ts';
import { ensureBenchData, type BenchData } from './generate.ts';
import { measureOneShot, type OneShotResult } from './oneshot.ts';

const option = optionReader(process.argv.slice(2));
const sizes = (option('--calls') ?? '1000000').split(',').map(Number);
const runs = Number(option('--runs') ?? '3');
const out = option('--out') ?? fileURLToPath(new URL('./oneshot-results.json', import.meta.url));
const log = (m: string) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${m}\n`);

const results: Record<string, OneShotResult> = {};
const loadStart = loadavg();
for (const calls of sizes) {
  if (!Number.isInteger(calls) || calls < 10) throw new Error(`--calls takes sizes of at least 10, got '${calls}'`);
  const dir = option('--dir');
  const data: BenchData =
    dir === undefined
      ? await ensureBenchData({ calls, root: option('--data-root'), log })
      : { dir, callsFile: join(dir, 'calls.jsonl'), tablesFile: '', tableOnlyDir: '', calls, seed: 1, projectId: 'bench/gen', tableRows: 0, callsBytes: statSync(join(dir, 'calls.jsonl')).size, tablesBytes: 0, promptObjects: 0, feedbackRows: 0 };
  // --no-jq: jq is skipped (a command that is not there), when its minutes at 3M do not fit.
  results[calls] = await measureOneShot(data, runs, log, process.argv.includes('--no-jq') ? 'jq-skipped-by-no-jq' : 'jq', !process.argv.includes('--no-repeat'));
  const s = (t: { median_ms: number; min_ms: number; max_ms: number } | null) => (t ? `${(t.median_ms / 1000).toFixed(2)} (${(t.min_ms / 1000).toFixed(2)}–${(t.max_ms / 1000).toFixed(2)})` : 'n/a');
  for (const [name, q] of Object.entries(results[calls].queries)) {
    console.log(
      `${calls} ${name}: tq ${s(q.tq)} s, DuckDB ${s(q.duckdb)} s, jq ${s(q.jq)} s; tq/DuckDB ${q.tq_over_duckdb}, tq/jq ${q.tq_over_jq}; ` +
        `first run writing the snapshot ${s(q.tq_snapshot_first)} s (writer done ${((q.snapshot_writer_ms ?? NaN) / 1000).toFixed(1)} s after it), repeat ${s(q.tq_repeat)} s; ids ${q.ids_match ? 'same' : 'DIFFER'}${q.errors.length ? `; errors: ${q.errors.join(' | ')}` : ''}`,
    );
  }
}
const loadEnd = loadavg();
console.log(`load average ${loadStart.map((v) => v.toFixed(2)).join(' ')} at start, ${loadEnd.map((v) => v.toFixed(2)).join(' ')} at end`);
writeFileSync(out, JSON.stringify({ load_average_start: loadStart, load_average_end: loadEnd, oneshot: results }, null, 2) + '\n');
