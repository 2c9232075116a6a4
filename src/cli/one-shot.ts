/**
 * The one-shot load of `tq calls --fixtures F ...`: a process that answers one calls query
 * and exits needs the rows that query can return, not a whole store. For a request the
 * one-shot gate takes (load/calls/one-shot-gate.ts: a row-local filter, paging by started_at)
 * over a calls file of at least TQ_ONESHOT_MIN_BYTES (64 MiB), the load checks every line as
 * always but stores only those rows; the answer is byte for byte the full load's.
 *
 * The load snapshot: when a current one exists it is restored as always (the repeat is faster
 * still). When none does, the answer comes from the gated load and the snapshot is written
 * after it by a detached `tq load --write-snapshot` process, off the answer's critical path;
 * a lock file beside it keeps a second one-shot from starting another writer meanwhile.
 */
import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, statSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Engine } from '../api/types.ts';
import { createEngine } from '../engine.ts';
import { filesOf, loadFixtureFiles, resolveFixturesPath, type FixtureFile } from '../io/load-fixtures.ts';
import { cacheDirProblem, type SnapshotSettings } from '../io/snapshot/cache.ts';
import { readSnapshotHeader } from '../io/snapshot/file.ts';
import { gateCallsLoad } from '../io/load-calls/gate.ts';
import { snapshotFileName, snapshotKey } from '../io/snapshot/key.ts';
import { filesForKinds, FIXTURE_KIND_REGISTRY, FIXTURE_KINDS, isFixtureKind, type FixtureKind } from '../load/fixture-kinds.ts';
import { OneShotGate, OneShotGateGaveUp, oneShotGateSpec } from '../load/calls/one-shot-gate.ts';
import { parsePrefix, say, snapshotOptions, type DataOptions } from './common.ts';
import { progressReporter } from './progress.ts';

/** Calls files smaller than this load whole: the full load takes well under a second. */
const DEFAULT_MIN_BYTES = 64 * 1024 * 1024;
/** A writer's lock older than this was left by one that died. */
const STALE_LOCK_MS = 30 * 60 * 1000;
const TQ_BIN = fileURLToPath(new URL('../../bin/tq', import.meta.url));

export interface OneShotLoad {
  engine: Engine;
  /** Called once the answer is written: starts the snapshot writer when one is due. */
  afterAnswer(): void;
}

function minBytes(env: NodeJS.ProcessEnv): number {
  const text = env.TQ_ONESHOT_MIN_BYTES;
  return text !== undefined && /^\d+$/.test(text) ? Number(text) : DEFAULT_MIN_BYTES;
}

/**
 * The gated load of a calls query's one-shot, or null when the full load is the one to do
 * (another source than fixture files, a request the gate does not take, a small calls file,
 * a current snapshot to restore, two ids hashing alike).
 */
export async function loadForOneShot(opts: DataOptions, kinds: readonly FixtureKind[], requestText: string): Promise<OneShotLoad | null> {
  if (opts.data !== undefined || opts.fixtures === '-') return null;
  let body: unknown;
  try {
    body = JSON.parse(requestText);
  } catch {
    return null;
  }
  const spec = oneShotGateSpec(body);
  if (spec === null) return null;
  const path = resolveFixturesPath(opts.fixtures, process.env, process.cwd());
  const all = filesOf(path);
  const files = filesForKinds(all, kinds);
  const calls = files.find((f) => f.kind === 'calls');
  // OTLP traces feed calls too: their rows would bypass the gate's duplicate check.
  if (calls === undefined || !files.every((f) => isFixtureKind(f.kind))) return null;
  const callsBytes = statSync(calls.file).size;
  if (callsBytes < minBytes(process.env)) return null;
  const prefix = parsePrefix(opts.fieldPrefix);
  const snapshot = snapshotOptions(opts);
  const writer = snapshot.enabled ? snapshotWriter(path, all, callsBytes, prefix, snapshot) : null;
  if (writer === 'restore') return null;
  const engine = createEngine(undefined, { fieldPrefix: prefix });
  try {
    gateCallsLoad(engine, new OneShotGate(spec));
    const report = await loadFixtureFiles(engine, path, files, progressReporter());
    for (const notice of report.notices) say(notice);
  } catch (e) {
    if (e instanceof OneShotGateGaveUp) return null;
    throw e;
  }
  return { engine, afterAnswer: writer ?? (() => {}) };
}

/**
 * What to do about the load snapshot: 'restore' when a current one exists (the full load
 * restores it), a function that starts the background writer when one is due, null when none
 * is (a small file, an unusable cache, a writer already running).
 */
function snapshotWriter(path: string, all: readonly FixtureFile[], callsBytes: number, prefix: 'svc_' | 'wb_', settings: SnapshotSettings): 'restore' | (() => void) | null {
  if (callsBytes < settings.minBytes || cacheDirProblem(settings.dir) !== null) return null;
  const snapshotted = all.filter((f) => isFixtureKind(f.kind) && FIXTURE_KIND_REGISTRY[f.kind].snapshot !== 'image');
  const key = snapshotKey(snapshotted, prefix);
  if (key.code === null) return null;
  const file = join(settings.dir, snapshotFileName(key));
  const header = readSnapshotHeader(file);
  if (header !== null && JSON.stringify(header.key) === JSON.stringify(key)) return 'restore';
  return () => startWriter(path, prefix, settings.dir, `${file}.writer`);
}

/** Starts `tq load --write-snapshot` detached, unless a live writer holds the lock. */
function startWriter(path: string, prefix: string, dir: string, lock: string): void {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    try {
      if (Date.now() - statSync(lock).mtimeMs < STALE_LOCK_MS) return;
      unlinkSync(lock);
    } catch {
      // No lock: take it below.
    }
    closeSync(openSync(lock, 'wx', 0o600));
    const child = spawn(process.execPath, [TQ_BIN, 'load', '--write-snapshot', path, '--field-prefix', prefix], {
      detached: true,
      stdio: 'ignore',
      env: { ...process.env, TQ_SNAPSHOT_WRITER_LOCK: lock },
    });
    child.on('error', () => unlinkQuietly(lock));
    child.unref();
  } catch {
    // Another process took the lock, or the cache cannot be written: the next run loads whole.
  }
}

export function unlinkQuietly(file: string): void {
  try {
    unlinkSync(file);
  } catch {
    // Gone already.
  }
}

/** The fixture kinds a load snapshot holds (what `tq load --write-snapshot` loads). */
export const SNAPSHOT_KINDS: readonly FixtureKind[] = FIXTURE_KINDS.filter((k) => FIXTURE_KIND_REGISTRY[k].snapshot !== 'image');
