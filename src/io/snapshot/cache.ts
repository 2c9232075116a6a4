/**
 * Where load snapshots live and how much room they may take. One directory (TQ_SNAPSHOT_DIR,
 * else $XDG_CACHE_HOME/tq/snapshots, else ~/.cache/tq/snapshots); one file per calls file and
 * field prefix, replaced when its fixtures change. The directory is bounded
 * (TQ_SNAPSHOT_MAX_BYTES, 4 GiB by default): after a write, the least recently used snapshots
 * go first. A reuse touches its file, so "least recently used" is the file's mtime.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import { readdirSync, rmSync, statSync, utimesSync } from 'node:fs';

export interface SnapshotSettings {
  enabled: boolean;
  dir: string;
  /** Calls files smaller than this load fast enough without one (bytes). */
  minBytes: number;
  /** The directory's bound (bytes). */
  maxCacheBytes: number;
}

export const DEFAULT_MIN_BYTES = 16 * 1024 * 1024;
export const DEFAULT_MAX_CACHE_BYTES = 4 * 1024 * 1024 * 1024;
/** A temporary file this old was left by a writer that died. */
const ABANDONED_MS = 60 * 60 * 1000;

function byteSetting(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const text = env[name];
  if (text === undefined || text === '') return fallback;
  if (!/^\d+$/.test(text)) throw new Error(`${name} must be a whole number of bytes, got '${text}'`);
  return Number(text);
}

/**
 * The settings the environment gives: TQ_SNAPSHOT=0 turns snapshots off (as --no-snapshot
 * does), TQ_SNAPSHOT_DIR, TQ_SNAPSHOT_MIN_BYTES and TQ_SNAPSHOT_MAX_BYTES override the rest.
 */
export function snapshotSettings(env: NodeJS.ProcessEnv, flag = true): SnapshotSettings {
  const off = env.TQ_SNAPSHOT === '0' || env.TQ_SNAPSHOT === 'off' || env.TQ_SNAPSHOT === 'false';
  const cacheHome = env.XDG_CACHE_HOME || join(homedir(), '.cache');
  return {
    enabled: flag && !off,
    dir: env.TQ_SNAPSHOT_DIR || join(cacheHome, 'tq', 'snapshots'),
    minBytes: byteSetting(env, 'TQ_SNAPSHOT_MIN_BYTES', DEFAULT_MIN_BYTES),
    maxCacheBytes: byteSetting(env, 'TQ_SNAPSHOT_MAX_BYTES', DEFAULT_MAX_CACHE_BYTES),
  };
}

/** Marks a snapshot as just used (eviction goes by mtime). */
export function touchSnapshot(path: string): void {
  try {
    const now = new Date();
    utimesSync(path, now, now);
  } catch {
    // Read-only cache: eviction order is then by write time, which is fine.
  }
}

/**
 * Deletes the least recently used snapshots until the directory holds at most `maxBytes`
 * (`keep` is never deleted), and temporary files abandoned by writers that died. Returns the
 * names deleted.
 */
export function evictSnapshots(dir: string, maxBytes: number, keep?: string): string[] {
  const now = Date.now();
  const snapshots: Array<{ name: string; size: number; mtimeMs: number }> = [];
  const deleted: string[] = [];
  for (const name of readdirSync(dir)) {
    let s;
    try {
      s = statSync(join(dir, name));
    } catch {
      continue; // removed meanwhile by another tq
    }
    if (!s.isFile()) continue;
    if (/\.tqsnap\.tmp-/.test(name)) {
      if (now - s.mtimeMs > ABANDONED_MS) {
        rmSync(join(dir, name), { force: true });
        deleted.push(name);
      }
    } else if (name.endsWith('.tqsnap')) snapshots.push({ name, size: s.size, mtimeMs: s.mtimeMs });
  }
  let total = snapshots.reduce((n, s) => n + s.size, 0);
  for (const s of snapshots.sort((a, b) => a.mtimeMs - b.mtimeMs)) {
    if (total <= maxBytes) break;
    if (s.name === keep) continue;
    rmSync(join(dir, s.name), { force: true });
    deleted.push(s.name);
    total -= s.size;
  }
  return deleted;
}
