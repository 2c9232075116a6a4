/**
 * Where load snapshots live and how much room they may take. One directory (TQ_SNAPSHOT_DIR,
 * else $XDG_CACHE_HOME/tq/snapshots, else ~/.cache/tq/snapshots), private to its user: a
 * directory another user can write is refused (a snapshot planted there would be served as
 * data). One file per fixture file (a calls file, or a tables, objects or costs file's own
 * image) and field prefix, replaced when its fixtures change, removed once its file is gone. The directory is bounded (TQ_SNAPSHOT_MAX_BYTES, else sized to
 * the data: 4 GiB or twice the snapshot being written, whichever is larger, but never more than
 * half of what the cache and the free disk hold together): after a write, the least recently
 * used snapshots go first. A reuse touches its file, so "least recently used" is the file's
 * mtime. `tq cache` lists and clears it.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import { existsSync, lstatSync, readdirSync, rmSync, statfsSync, statSync, utimesSync } from 'node:fs';
import { readSnapshotHeader } from './file.ts';

export interface SnapshotSettings {
  enabled: boolean;
  dir: string;
  /** Calls files smaller than this load fast enough without one (bytes). */
  minBytes: number;
  /** The directory's bound (bytes), or `auto`: sized to the data and the free disk (cacheBound). */
  maxCacheBytes: number | 'auto';
  /**
   * Read and check every body at restore instead of when first needed (tq serve: a long-running
   * server reads them anyway, and a damaged snapshot is then found before the first request
   * and loaded from the fixture files instead of failing requests).
   */
  readBodies?: boolean;
}

export const DEFAULT_MIN_BYTES = 16 * 1024 * 1024;
const DEFAULT_MAX_CACHE_BYTES = 4 * 1024 * 1024 * 1024;
/** A temporary file this old was left by a writer that died. */
const ABANDONED_MS = 60 * 60 * 1000;

function byteSetting<T>(env: NodeJS.ProcessEnv, name: string, fallback: T): number | T {
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
    maxCacheBytes: byteSetting(env, 'TQ_SNAPSHOT_MAX_BYTES', 'auto' as const),
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
 * Deletes snapshots whose calls file is gone, then the least recently used snapshots until the
 * directory holds at most `maxBytes` (`keep` is never deleted), and temporary files abandoned
 * by writers that died. Returns the names deleted.
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
    } else if (name.endsWith('.tqsnap')) {
      const fixture = readSnapshotHeader(join(dir, name))?.key.files[0]?.path;
      if (name !== keep && fixture !== undefined && !existsSync(fixture)) {
        // Its calls file is gone: nothing can ever use it again.
        rmSync(join(dir, name), { force: true });
        deleted.push(name);
      } else snapshots.push({ name, size: s.size, mtimeMs: s.mtimeMs });
    }
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

/**
 * The bound of the cache when a snapshot of `snapshotBytes` is about to be written: the set
 * bound, or (auto) 4 GiB or twice the snapshot, whichever is larger, capped at half of what the
 * cache holds plus the free disk (a snapshot never takes the last of the disk).
 */
export function cacheBound(settings: SnapshotSettings, snapshotBytes: number, disk: { heldBytes: number; freeBytes: number }): number {
  if (settings.maxCacheBytes !== 'auto') return settings.maxCacheBytes;
  return Math.min(Math.max(DEFAULT_MAX_CACHE_BYTES, 2 * snapshotBytes), Math.floor((disk.heldBytes + disk.freeBytes) / 2));
}

/** What the cache directory holds (snapshot bytes) and the free bytes of its disk. */
export function diskRoom(dir: string): { heldBytes: number; freeBytes: number } {
  const stats = statfsSync(dir);
  return { heldBytes: listSnapshots(dir).reduce((n, s) => n + s.bytes, 0), freeBytes: Number(stats.bavail) * Number(stats.bsize) };
}

/**
 * Why the cache directory may not be used, or null when it may (or does not exist yet: it is
 * then made private). Another user able to write it could plant a snapshot that a load would
 * serve as data, so a directory that is not a real directory owned by this user, or that its
 * group or others may write, is refused.
 */
export function cacheDirProblem(dir: string): string | null {
  let s;
  try {
    s = lstatSync(dir);
  } catch {
    return null;
  }
  if (s.isSymbolicLink()) return `${dir} is a symbolic link`;
  if (!s.isDirectory()) return `${dir} is not a directory`;
  if (typeof process.getuid === 'function' && s.uid !== process.getuid()) return `${dir} belongs to another user`;
  if ((s.mode & 0o022) !== 0) return `${dir} is writable by other users (mode ${(s.mode & 0o777).toString(8)}; chmod go-w it)`;
  return null;
}

/** One snapshot of the cache, as `tq cache` lists it. */
export interface CachedSnapshot {
  name: string;
  /** The fixture file it was made from (null: not a readable snapshot of this tq's format). */
  fixture: string | null;
  /** That file's kind: `calls` (with the feedback rows it holds), or `tables`, `objects`, `costs` (kind-image.ts). */
  kind: string | null;
  bytes: number;
  /** Last written or used (ms since the epoch). */
  lastUseMs: number;
}

/** The snapshots in `dir`, most recently used first (none when it does not exist). */
export function listSnapshots(dir: string): CachedSnapshot[] {
  if (!existsSync(dir)) return [];
  const found: CachedSnapshot[] = [];
  for (const name of readdirSync(dir)) {
    if (!name.endsWith('.tqsnap')) continue;
    let s;
    try {
      s = statSync(join(dir, name));
    } catch {
      continue;
    }
    const header = readSnapshotHeader(join(dir, name));
    found.push({ name, fixture: header?.key.files[0]?.path ?? null, kind: header?.key.files[0]?.kind ?? null, bytes: s.size, lastUseMs: s.mtimeMs });
  }
  return found.sort((a, b) => b.lastUseMs - a.lastUseMs || (a.name < b.name ? -1 : 1));
}

/** Deletes every snapshot and temporary snapshot file in `dir`; returns the bytes freed. */
export function clearSnapshots(dir: string): { files: number; bytes: number } {
  if (!existsSync(dir)) return { files: 0, bytes: 0 };
  let files = 0, bytes = 0;
  for (const name of readdirSync(dir)) {
    if (!/\.tqsnap($|\.tmp-)/.test(name)) continue;
    try {
      bytes += statSync(join(dir, name)).size;
      rmSync(join(dir, name), { force: true });
      files++;
    } catch {
      // removed meanwhile
    }
  }
  return { files, bytes };
}
