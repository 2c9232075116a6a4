/**
 * Object versions as production's ObjectMetadataQueryBuilder sees them: which versions are
 * live, which one is "latest", and how a version name (`latest`, `v<N>`, a digest) selects
 * versions. Shared by /objs/query, /obj/delete and /obj/read.
 */
import { formatMicros } from '../../core/datetime.ts';
import { ObjectDeletedError } from '../../core/errors.ts';
import type { ObjectVersion, ProjectStore } from '../../store/project.ts';

/** Weave's `digest_is_version_like`: `v` followed by digits. */
const VERSION_LIKE = /^v(\d+)$/;

/** Does `name` (`latest`, `v<N>` or a digest) select version `v` (production's digest condition)? */
export function selectsVersion(name: string, v: ObjectVersion): boolean {
  if (name === 'latest') return v.isLatest;
  const index = VERSION_LIKE.exec(name);
  return index ? v.versionIndex === Number(index[1]) : v.digest === name;
}

/**
 * Recomputes `isLatest` after a deletion: production ranks an object's versions by (not
 * deleted, newest write) first, so the newest live version is latest, and only when every
 * version is deleted is the newest deleted one. The store keeps an object's versions in write
 * order (a re-written version moves last), which is the order ProjectStore.objectVersion reads
 * "latest" in too.
 */
export function refreshLatest(versions: readonly ObjectVersion[]): void {
  let best: ObjectVersion | undefined;
  for (const v of versions) {
    v.isLatest = false;
    if (v.deletedAtUs === null || best === undefined || best.deletedAtUs !== null) best = v;
  }
  if (best) best.isLatest = true;
}

/** Python's `str(datetime)` and `datetime.isoformat()` of a UTC time. */
function pythonTimes(us: number): { str: string; iso: string } {
  const iso = formatMicros(us).replace(/Z$/, '+00:00');
  return { str: iso.replace('T', ' '), iso };
}

/** Production's ObjectDeletedError for a read that reached a deleted version (404). */
export function objectDeleted(v: ObjectVersion): ObjectDeletedError {
  const t = pythonTimes(v.deletedAtUs ?? 0);
  return new ObjectDeletedError({ object: v.objectId, index: v.versionIndex, when: t.str }, t.iso);
}

/** Every live version of the project, oldest first (created_at, then storage order). */
export function liveVersions(project: ProjectStore | undefined): ObjectVersion[] {
  if (!project) return [];
  const all: ObjectVersion[] = [];
  for (const versions of project.objects.values()) for (const v of versions) if (v.deletedAtUs === null) all.push(v);
  return all.sort((a, b) => a.createdAtUs - b.createdAtUs);
}
