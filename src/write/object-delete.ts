/**
 * `POST /obj/delete` (ObjDeleteReq → `{num_deleted}`), as production's obj_delete: soft
 * deletion of an object's live versions, all of them or those named by `digests` (a digest,
 * `latest` or `v<N>`, as in reads). At most 100 names (400); nothing found is a 404 naming the
 * request; fewer versions found than distinct names given is a 404 listing the difference.
 * Deleted versions keep their `version_index`; "latest" moves to the newest live version.
 */
import { jsonRoute } from '../api/json-route.ts';
import type { Engine, RequestContext } from '../api/types.ts';
import { invalidRequest, tqError } from '../core/errors.ts';
import { pyStrRepr } from '../core/json/pyjson.ts';
import { list, maybe, model, str, validateBody } from '../core/schema.ts';
import { refreshLatest, selectsVersion } from '../query/objects/versions.ts';

const MAX_DELETE = 100;

const deleteModel = model('ObjDeleteReq', { project_id: str(), object_id: str(), digests: maybe(list(str())) }, { strict: true });

const pyList = (items: readonly string[]) => `[${items.map(pyStrRepr).join(', ')}]`;
const pySet = (items: readonly string[]) => (items.length === 0 ? 'set()' : `{${items.map(pyStrRepr).join(', ')}}`);

export function deleteObject(engine: Engine, body: unknown, ctx: RequestContext): { num_deleted: number } {
  const req = validateBody(deleteModel, body);
  const digests = req.digests ?? null;
  if (digests && digests.length > MAX_DELETE) {
    throw invalidRequest('TQ_INVALID_REQUEST', {
      reason: `Object delete request contains ${digests.length} objects. Please delete ${MAX_DELETE} or fewer objects at a time.`,
    });
  }
  ctx.authorize(req.project_id);
  const versions = engine.store.project(req.project_id)?.objects.get(req.object_id) ?? [];
  const named = digests !== null && digests.length > 0;
  const targets = versions.filter((v) => v.deletedAtUs === null && (!named || digests.some((d) => selectsVersion(d, v))));
  if (targets.length === 0) {
    const shown = digests === null ? 'None' : pyList(digests);
    throw tqError('TQ_NOT_FOUND_REASON', { reason: `Object ${req.object_id} (${shown}) not found when deleting.` });
  }
  if (named) {
    const given = [...new Set(digests)];
    const found = new Set(targets.map((v) => v.digest));
    if (given.length !== found.size) {
      throw tqError('TQ_NOT_FOUND_REASON', {
        reason:
          `Delete request contains ${digests.length} digests, but found ${found.size} objects to delete. ` +
          `Diff digests: ${pySet(given.filter((d) => !found.has(d)))}`,
      });
    }
  }
  const now = engine.options.now();
  for (const v of targets) v.deletedAtUs = now;
  refreshLatest(versions);
  return { num_deleted: targets.length };
}

export const objDeleteRoute = jsonRoute('/obj/delete', deleteObject, { mutates: true });
