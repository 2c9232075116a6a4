/**
 * The one-shot section (issue #12 §1): a whole process answering one question from the JSONL
 * files, start to exit, as a user at a shell would run it:
 *   - tq:     `bin/tq calls --fixtures DIR --request BODY` (load everything, one query, lines out);
 *   - DuckDB: `read_json_auto` over calls.jsonl through @duckdb/node-api, in a child process
 *             started as plain node (no tsx), so its start-up carries no TypeScript transform;
 *   - jq:     `jq -c -n` with the filter and sort written in jq, when jq is installed.
 * Runs are interleaved per query (tq, DuckDB, jq, tq, ...); every process's stdout is counted
 * (rows, bytes) and checked: the same ids in the same order from every tool. Those tq runs load
 * the JSONL every time (--no-snapshot). Then the repeat: tq with a load snapshot in a scratch
 * cache directory, once to write it (the first run) and `runs` times reusing it (the repeat),
 * each printing exactly the bytes of the plain run.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { diffIds } from './check.ts';
import type { BenchData } from './generate.ts';
import { sqlString } from './queries.ts';
import { median, round } from './stats.ts';

const TQ_BIN = fileURLToPath(new URL('../bin/tq', import.meta.url));
const ROOT = fileURLToPath(new URL('../', import.meta.url));
/** Plain JavaScript: the DuckDB child starts without tsx's transform (node alone). */
const DUCKDB_CHILD = fileURLToPath(new URL('./oneshot-duckdb.mjs', import.meta.url));

export interface ProcessRun {
  ms: number;
  rows: number;
  bytes: number;
  code: number | null;
  stderr: string;
  /** stdout, kept for the cross-check. */
  stdout: Buffer;
}

/** Runs a command to exit, collecting stdout; wall time from spawn to exit. */
export function runProcess(command: string, args: readonly string[], env?: Record<string, string>): Promise<ProcessRun> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], env: env === undefined ? process.env : { ...process.env, ...env } });
    const chunks: Buffer[] = [];
    let rows = 0;
    let bytes = 0;
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      bytes += chunk.length;
      for (let i = chunk.indexOf(0x0a); i >= 0; i = chunk.indexOf(0x0a, i + 1)) rows++;
    });
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < 4000) stderr += chunk.toString('utf8');
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ ms: performance.now() - t0, rows, bytes, code, stderr, stdout: Buffer.concat(chunks) }));
  });
}

/** Whether jq runs here; the reason when it does not. */
export function jqAvailable(command = 'jq'): { ok: true; version: string } | { ok: false; reason: string } {
  const r = spawnSync(command, ['--version'], { encoding: 'utf8' });
  if (r.error) return { ok: false, reason: `${command} not installed (${(r.error as NodeJS.ErrnoException).code ?? r.error.message})` };
  if (r.status !== 0) return { ok: false, reason: `${command} --version exited ${r.status}` };
  return { ok: true, version: r.stdout.trim() };
}

interface OneShotQuery {
  name: string;
  description: string;
  body: Record<string, unknown>;
  duckSql(file: string): string;
  jq: string;
}

/** The two one-shot questions: a filter returning every match, and the newest page of roots. */
export function oneShotQueries(P: string): OneShotQuery[] {
  const prefix = `weave:///${P}/op/retrieve:`;
  const from = (file: string) => `read_json_auto(${sqlString(file)})`;
  const live = `c.project_id = ${sqlString(P)} AND c.deleted_at IS NULL`;
  const jqLive = `.project_id == ${JSON.stringify(P)} and .deleted_at == null`;
  return [
    {
      name: 'op_wildcard',
      description: `op_names ['${prefix}*'], default order, all matches`,
      body: { project_id: P, filter: { op_names: [`${prefix}*`] } },
      duckSql: (file) => `SELECT to_json(c) FROM ${from(file)} c WHERE ${live} AND starts_with(c.op_name, ${sqlString(prefix)}) ORDER BY c.started_at, c.id`,
      jq: `[inputs | select(${jqLive} and (.op_name | startswith(${JSON.stringify(prefix)})))] | sort_by(.started_at, .id) | .[]`,
    },
    {
      name: 'roots_page_100',
      description: 'trace roots, started_at desc, limit 100',
      body: { project_id: P, filter: { trace_roots_only: true }, sort_by: [{ field: 'started_at', direction: 'desc' }], limit: 100 },
      duckSql: (file) => `SELECT to_json(c) FROM ${from(file)} c WHERE ${live} AND c.parent_id IS NULL ORDER BY c.started_at DESC, c.id ASC LIMIT 100`,
      jq: `[inputs | select(${jqLive} and .parent_id == null)] | sort_by(.started_at, .id) | reverse | .[:100] | .[]`,
    },
  ];
}

export interface ToolTiming {
  median_ms: number;
  min_ms: number;
  max_ms: number;
  runs: number;
  rows: number;
  bytes: number;
}

export interface OneShotQueryResult {
  description: string;
  tq: ToolTiming | null;
  duckdb: ToolTiming | null;
  jq: ToolTiming | null;
  tq_over_duckdb: number | null;
  tq_over_jq: number | null;
  /** tq with an empty snapshot cache: loads the JSONL and writes the load snapshot. */
  tq_snapshot_first: ToolTiming | null;
  /** How long after the first run's exit its snapshot was in place (0: written before it exited). */
  snapshot_writer_ms: number | null;
  /** tq again over the unchanged fixtures: restores the snapshot. */
  tq_repeat: ToolTiming | null;
  /** Every tool that ran returned the same ids in the same order. */
  ids_match: boolean;
  errors: string[];
}

export interface OneShotResult {
  calls: number;
  calls_file_bytes: number;
  /** Size of the load snapshot file the first run wrote. */
  snapshot_bytes: number | null;
  jq: string;
  queries: Record<string, OneShotQueryResult>;
}

const idsOf = (out: Buffer) =>
  out
    .toString('utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => String((JSON.parse(l) as { id: unknown }).id));

function timing(runs: readonly ProcessRun[]): ToolTiming | null {
  if (runs.length === 0) return null;
  const ms = runs.map((r) => r.ms);
  return { median_ms: round(median(ms), 1), min_ms: round(Math.min(...ms), 1), max_ms: round(Math.max(...ms), 1), runs: runs.length, rows: runs[0].rows, bytes: runs[0].bytes };
}

/**
 * Waits until every file in `dir` is 3 s old: tq writes no snapshot of a file modified in the
 * last 2 s (its mtime may not show a change made within the same tick).
 */
async function settled(dir: string): Promise<void> {
  const newest = Math.max(...readdirSync(dir).map((n) => statSync(join(dir, n)).mtimeMs));
  const wait = newest + 3000 - Date.now();
  if (wait > 0) await new Promise((r) => setTimeout(r, wait));
}

/**
 * Waits (up to 10 minutes) until `dir` holds a snapshot and no writer's lock; returns how long
 * that took (the detached writer's time after the first run's answer).
 */
async function snapshotWritten(dir: string): Promise<number> {
  const started = performance.now();
  const names = () => (existsSync(dir) ? readdirSync(dir) : []);
  while (!names().some((n) => n.endsWith('.tqsnap')) || names().some((n) => n.endsWith('.writer'))) {
    if (performance.now() - started > 600_000) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  return performance.now() - started;
}

/** The one-shot section over one data set; `withRepeat` false leaves out the snapshot runs (first run and repeats). */
/** Whether dist/ holds a build newer than every source file, as bin/tq judges it (else bin/tq runs src/ through tsx). */
function builtIsCurrent(): boolean {
  const stamp = join(ROOT, 'dist', 'BUILT');
  if (!existsSync(stamp)) return false;
  const builtAt = Number(readFileSync(stamp, 'utf8'));
  for (const entry of readdirSync(join(ROOT, 'src'), { recursive: true, withFileTypes: true })) {
    if (entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') && statSync(join(entry.parentPath, entry.name)).mtimeMs > builtAt) return false;
  }
  return true;
}

/**
 * The one-shot measures tq as installed: bin/tq running the compiled dist/. With sources newer
 * than the build, bin/tq would run them through tsx (its start-up transform cost 0.5-1 s of CPU
 * a run), so the build is brought up to date first.
 */
function ensureBuilt(log: (m: string) => void): void {
  if (builtIsCurrent()) return;
  log('one-shot: dist/ is older than src/: building it (npm run build) so bin/tq runs compiled JavaScript ...');
  const r = spawnSync(process.execPath, [join(ROOT, 'scripts', 'build.mjs')], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`one-shot: the build failed: ${r.stderr}`);
}

export async function measureOneShot(data: BenchData, runs: number, log: (m: string) => void, jqCommand = 'jq', withRepeat = true): Promise<OneShotResult> {
  ensureBuilt(log);
  const jq = jqAvailable(jqCommand);
  const scratch = mkdtempSync(join(tmpdir(), 'tq-oneshot-'));
  const snapshots = join(scratch, 'snapshots');
  // Every size writes a snapshot here (the smoke's small data too); nothing touches the user's cache.
  const snapshotEnv = { TQ_SNAPSHOT_DIR: snapshots, TQ_SNAPSHOT_MIN_BYTES: '0', TQ_SNAPSHOT: '1' };
  let snapshotBytes: number | null = null;
  const queries: Record<string, OneShotQueryResult> = {};
  try {
    for (const q of oneShotQueries(data.projectId)) {
      const request = join(scratch, `${q.name}.json`);
      writeFileSync(request, JSON.stringify(q.body));
      const tools: Array<[string, string, string[]]> = [
        ['tq', TQ_BIN, ['calls', '--fixtures', data.dir, '--request', request, '--no-snapshot']],
        ['duckdb', process.execPath, [DUCKDB_CHILD, q.duckSql(data.callsFile)]],
      ];
      if (jq.ok) tools.push(['jq', jqCommand, ['-c', '-n', q.jq, data.callsFile]]);
      const got = new Map<string, ProcessRun[]>(tools.map(([name]) => [name, []]));
      const errors: string[] = [];
      for (let i = 0; i < runs; i++) {
        for (const [name, command, args] of tools) {
          log(`one-shot ${data.calls}: ${q.name} ${name} (${i + 1}/${runs}) ...`);
          const r = await runProcess(command, args);
          if (r.code !== 0) {
            errors.push(`${name} exited ${r.code}: ${r.stderr.trim().split('\n').slice(-3).join(' | ')}`);
            continue;
          }
          // Only the first run's output is kept for the check.
          if (got.get(name)!.length > 0) r.stdout = Buffer.alloc(0);
          got.get(name)!.push(r);
        }
      }
      let idsMatch = errors.length === 0;
      const reference = got.get('tq')![0];
      for (const [name] of tools.slice(1)) {
        const other = got.get(name)![0];
        if (!reference || !other) continue;
        const diff = diffIds(idsOf(reference.stdout), idsOf(other.stdout));
        if (diff) {
          idsMatch = false;
          errors.push(`${name} ids differ from tq: ${diff}`);
        }
      }
      // The repeat: a first run writes the snapshot, the next ones reuse it.
      const tqArgs = ['calls', '--fixtures', data.dir, '--request', request];
      const first: ProcessRun[] = [], repeat: ProcessRun[] = [];
      let writerMs: number | null = null;
      rmSync(snapshots, { recursive: true, force: true });
      await settled(data.dir);
      for (let i = 0; withRepeat && i <= runs; i++) {
        log(`one-shot ${data.calls}: ${q.name} tq ${i === 0 ? 'first run, writing the snapshot' : `repeat (${i}/${runs})`} ...`);
        const r = await runProcess(TQ_BIN, tqArgs, snapshotEnv);
        if (r.code !== 0) {
          errors.push(`tq with snapshot exited ${r.code}: ${r.stderr.trim().split('\n').slice(-3).join(' | ')}`);
          continue;
        }
        if (reference && !r.stdout.equals(reference.stdout)) {
          idsMatch = false;
          errors.push(`tq ${i === 0 ? 'first run' : 'repeat'} with a snapshot printed other bytes than without`);
        }
        if (i === 0) {
          // A one-shot over a large file answers first and leaves the snapshot to a detached writer.
          writerMs = await snapshotWritten(snapshots);
          const written = existsSync(snapshots) ? readdirSync(snapshots).filter((n) => n.endsWith('.tqsnap')) : [];
          if (written.length !== 1) errors.push(`tq first run wrote ${written.length} snapshots, not 1${r.stderr ? `: ${r.stderr.trim()}` : ''}`);
          else snapshotBytes = statSync(join(snapshots, written[0])).size;
        }
        r.stdout = Buffer.alloc(0);
        (i === 0 ? first : repeat).push(r);
      }
      const t = (name: string) => timing(got.get(name) ?? []);
      const tqT = t('tq'), duckT = t('duckdb'), jqT = jq.ok ? t('jq') : null;
      queries[q.name] = {
        description: q.description,
        tq: tqT,
        duckdb: duckT,
        jq: jqT,
        tq_over_duckdb: tqT && duckT ? round(tqT.median_ms / duckT.median_ms, 3) : null,
        tq_over_jq: tqT && jqT ? round(tqT.median_ms / jqT.median_ms, 3) : null,
        tq_snapshot_first: timing(first),
        snapshot_writer_ms: writerMs === null ? null : round(writerMs, 0),
        tq_repeat: timing(repeat),
        ids_match: idsMatch,
        errors,
      };
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  return { calls: data.calls, calls_file_bytes: data.callsBytes, snapshot_bytes: snapshotBytes, jq: jq.ok ? jq.version : `skipped: ${jq.reason}`, queries };
}
