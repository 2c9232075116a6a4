/**
 * `obj_read` and the `ObjSchema` an object version is answered as (by /obj/read and
 * /objs/query): reads, so below the writes that store versions.
 */
import type { Engine, FieldPrefix } from '../../api/types.ts';
import { formatMicros } from '../../core/datetime.ts';
import { tqError } from '../../core/errors.ts';
import { parseSpelled } from '../../core/json/exact.ts';
import type { ObjectVersion } from '../../store/project.ts';
import { objectDeleted } from './versions.ts';

/** An object version as tq stores it: the store's record plus the user who wrote it. */
export interface StoredObjectVersion extends ObjectVersion {
  userId: string | null;
}

/** Finds a version by digest, `latest` or `v<N>` (Weave's `digest_is_version_like`). */
function findVersion(versions: readonly ObjectVersion[], ref: string): ObjectVersion | undefined {
  if (ref === 'latest') return versions.find((v) => v.isLatest);
  const index = /^v(\d+)$/.exec(ref);
  if (index) return versions.find((v) => v.versionIndex === Number(index[1]));
  return versions.find((v) => v.digest === ref);
}

/**
 * `ObjSchema` as the SDK reads it from `obj/read` (semantics.md#sdk-wire,
 * semantics.md#sdk-dataset).
 */
export function objectSchema(v: ObjectVersion, prefix: FieldPrefix, metadataOnly = false): Record<string, unknown> {
  return {
    project_id: v.projectId,
    object_id: v.objectId,
    created_at: formatMicros(v.createdAtUs),
    deleted_at: v.deletedAtUs === null ? null : formatMicros(v.deletedAtUs),
    digest: v.digest,
    version_index: v.versionIndex,
    is_latest: v.isLatest ? 1 : 0,
    kind: v.kind,
    base_object_class: v.baseObjectClass,
    leaf_object_class: v.leafObjectClass,
    // From the stored text, so that a float reads back as one (semantics.md#writes-number-spelling).
    val: metadataOnly ? {} : parseSpelled(v.valText),
    [`${prefix}user_id`]: 'userId' in v ? (v as StoredObjectVersion).userId : null,
    size_bytes: null,
  };
}

/** `obj_read`: `{obj: ObjSchema}`; an unknown version is a 404 naming it, a deleted one production's ObjectDeletedError. */
export function readObject(
  engine: Engine,
  projectId: string,
  objectId: string,
  digest: string,
  metadataOnly = false,
): { obj: Record<string, unknown> } {
  const versions = engine.store.project(projectId)?.objects.get(objectId) ?? [];
  const v = findVersion(versions, digest);
  if (!v) throw tqError('TQ_OBJECT_NOT_FOUND', { object: objectId, digest });
  if (v.deletedAtUs !== null) throw objectDeleted(v);
  return { obj: objectSchema(v, engine.options.fieldPrefix, metadataOnly) };
}
