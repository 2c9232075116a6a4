/**
 * What a load snapshot is keyed by: everything that changes what loading its calls file
 * produces. The calls file's real path, size, mtime and ctime (in nanoseconds), inode and device;
 * the field prefix; tq's version and a stamp of the code that ran (the build stamp of dist/, or
 * the sources' sizes and mtimes when running from src/); the snapshot format. Any difference
 * means the snapshot is not used (and is rewritten by the load that follows). The snapshot is
 * per calls file: a directory and the calls file in it share one, whichever kinds a command
 * loads. Feedback rows kept in it carry their own file's identity (the header's
 * feedbackSource), checked when a load wants them. The tables, objects and costs files have
 * snapshots of their own (kind-image.ts), keyed the same way by their own file (fileSnapshotKey).
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FieldPrefix } from '../../api/types.ts';
import { TQ_VERSION } from '../../version.ts';
import { FIXTURE_KIND_REGISTRY, isFixtureKind } from '../../load/fixture-kinds.ts';

/** Bumped whenever the file layout or the meaning of a block changes. */
export const SNAPSHOT_FORMAT = 3;

export interface FileIdentity {
  kind: string;
  path: string;
  size: string;
  mtimeNs: string;
  ctimeNs: string;
  ino: string;
  dev: string;
}

export interface SnapshotKey {
  format: number;
  tq: string;
  /** null: the running code cannot be identified (no snapshot is then used). */
  code: string | null;
  prefix: FieldPrefix;
  /** The calls file (the one file whose load the snapshot replaces in every case). */
  files: FileIdentity[];
}

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** The file's identity now (bigint stat, so nanoseconds are exact). */
export function fileIdentity(kind: string, file: string): FileIdentity {
  const path = realpathSync(file);
  const s = statSync(path, { bigint: true });
  return { kind, path, size: String(s.size), mtimeNs: String(s.mtimeNs), ctimeNs: String(s.ctimeNs), ino: String(s.ino), dev: String(s.dev) };
}

let codeStampMemo: string | null | undefined;

/**
 * Which code is running: a built package is stamped when built (dist/BUILT); running from the
 * sources, any edit to a source file changes the stamp (a snapshot is never read by code other
 * than the code that wrote it).
 */
function codeStamp(): string | null {
  if (codeStampMemo !== undefined) return codeStampMemo;
  const fromDist = fileURLToPath(import.meta.url).startsWith(join(ROOT, 'dist') + '/');
  const built = join(ROOT, 'dist', 'BUILT');
  if (fromDist) return (codeStampMemo = existsSync(built) ? `dist:${readFileSync(built, 'utf8').trim()}` : null);
  const src = join(ROOT, 'src');
  if (!existsSync(src)) return (codeStampMemo = null);
  const files: string[] = [];
  for (const entry of readdirSync(src, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.ts') || entry.name.endsWith('.test.ts')) continue;
    const dir = entry as unknown as { parentPath?: string; path: string }; // parentPath: Node >= 20.12
    files.push(join(dir.parentPath ?? dir.path, entry.name));
  }
  const hash = createHash('sha256');
  for (const file of files.sort()) {
    const s = statSync(file);
    hash.update(`${file.slice(src.length)}\0${s.size}\0${s.mtimeMs}\n`);
  }
  return (codeStampMemo = `src:${hash.digest('hex').slice(0, 32)}`);
}

/** The key of the snapshot of `files`' calls file (the other files are not part of it). */
export function snapshotKey(files: ReadonlyArray<{ kind: string; file: string }>, prefix: FieldPrefix): SnapshotKey {
  const calls = files.filter((f) => isFixtureKind(f.kind) && FIXTURE_KIND_REGISTRY[f.kind].snapshot === 'calls');
  return { format: SNAPSHOT_FORMAT, tq: TQ_VERSION, code: codeStamp(), prefix, files: calls.map((f) => fileIdentity(f.kind, f.file)) };
}

/** The key of one tables, objects or costs file's own snapshot (its image, kind-image.ts). */
export function fileSnapshotKey(kind: string, file: string, prefix: FieldPrefix): SnapshotKey {
  return { format: SNAPSHOT_FORMAT, tq: TQ_VERSION, code: codeStamp(), prefix, files: [fileIdentity(kind, file)] };
}

/** Two file identities are the same file, unchanged. */
export function sameIdentity(a: FileIdentity | null, b: FileIdentity | null): boolean {
  return a !== null && b !== null && JSON.stringify(a) === JSON.stringify(b);
}

/** Two keys are the same key (compared as canonical JSON: the fields are in a fixed order). */
export function sameKey(a: SnapshotKey, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** The cache file of one calls file and prefix: one snapshot per source, replaced when stale. */
export function snapshotFileName(key: SnapshotKey): string {
  return createHash('sha256').update(`${key.files[0].path}\0${key.prefix}`).digest('hex').slice(0, 40) + '.tqsnap';
}
