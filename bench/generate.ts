/**
 * The benchmark data set: a fixtures directory written by the deterministic generator
 * (src/gen/generate.ts) and cached under the OS temp directory, so repeated runs at the same
 * size skip the minutes it takes to write a million calls.
 *
 * Layout of `<tmp>/tq-bench-<calls>-<seed>/`:
 *   calls.jsonl          the calls (what `tq gen` writes)
 *   tables.jsonl         one table of `tableRows` rows
 *   table-only/          a directory holding only a link to tables.jsonl, so the table can be
 *                        loaded on its own (loadFixtures of a directory loads every kind it finds)
 *   bench-data.json      written last: the sizes, proof that the directory is complete
 */
import { createWriteStream, existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateCalls, generateTable } from '../src/gen/generate.ts';

export interface BenchDataOptions {
  calls: number;
  seed?: number;
  projectId?: string;
  /** Rows of the generated table; defaults to the number of calls. */
  tableRows?: number;
  /** Where the cached directories live; defaults to os.tmpdir(). */
  root?: string;
  /** Progress messages (generation only). */
  log?: (message: string) => void;
}

export interface BenchData {
  dir: string;
  callsFile: string;
  tablesFile: string;
  /** A directory whose only fixture file is the table. */
  tableOnlyDir: string;
  calls: number;
  seed: number;
  projectId: string;
  tableRows: number;
  callsBytes: number;
  tablesBytes: number;
}

const MARKER = 'bench-data.json';

/** Writes lines with `\n` endings in large chunks, honouring backpressure. */
async function writeLines(path: string, lines: Iterable<string>): Promise<void> {
  const out = createWriteStream(path);
  let batch: string[] = [];
  let batchChars = 0;
  const flush = async () => {
    if (batch.length === 0) return;
    const chunk = batch.join('\n') + '\n';
    batch = [];
    batchChars = 0;
    if (!out.write(chunk)) await once(out, 'drain');
  };
  for (const line of lines) {
    batch.push(line);
    batchChars += line.length;
    if (batchChars >= 1 << 20) await flush();
  }
  await flush();
  out.end();
  await once(out, 'close');
}

/** The cached data set for these options, generated first when it is missing or incomplete. */
export async function ensureBenchData(o: BenchDataOptions): Promise<BenchData> {
  const seed = o.seed ?? 1;
  const projectId = o.projectId ?? 'bench/gen';
  const tableRows = o.tableRows ?? o.calls;
  const dir = join(o.root ?? tmpdir(), `tq-bench-${o.calls}-${seed}`);
  const describe = (): BenchData => ({
    dir,
    callsFile: join(dir, 'calls.jsonl'),
    tablesFile: join(dir, 'tables.jsonl'),
    tableOnlyDir: join(dir, 'table-only'),
    calls: o.calls,
    seed,
    projectId,
    tableRows,
    callsBytes: statSync(join(dir, 'calls.jsonl')).size,
    tablesBytes: statSync(join(dir, 'tables.jsonl')).size,
  });

  const marker = join(dir, MARKER);
  if (existsSync(marker)) {
    const meta = JSON.parse(readFileSync(marker, 'utf8')) as Partial<BenchData>;
    if (meta.calls === o.calls && meta.seed === seed && meta.projectId === projectId && meta.tableRows === tableRows) return describe();
  }

  // Generate into a scratch directory and rename it into place: a crash never leaves a
  // directory that looks complete.
  const scratch = `${dir}.partial-${process.pid}`;
  rmSync(scratch, { recursive: true, force: true });
  mkdirSync(join(scratch, 'table-only'), { recursive: true });
  const started = performance.now();
  o.log?.(`generating ${o.calls} calls and a ${tableRows}-row table into ${dir} ...`);
  await writeLines(join(scratch, 'calls.jsonl'), generateCalls({ calls: o.calls, seed, projectId }));
  await writeLines(join(scratch, 'tables.jsonl'), generateTable(tableRows, seed + 1, projectId));
  symlinkSync('../tables.jsonl', join(scratch, 'table-only', 'tables.jsonl'));
  writeFileSync(join(scratch, MARKER), JSON.stringify({ calls: o.calls, seed, projectId, tableRows }) + '\n');
  rmSync(dir, { recursive: true, force: true });
  renameSync(scratch, dir);
  o.log?.(`generated in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return describe();
}
