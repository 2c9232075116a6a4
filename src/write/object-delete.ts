/**
 * `POST /obj/delete` (ObjDeleteReq → `{num_deleted}`), as production's obj_delete: soft
 * deletion of an object's live versions, all of them or those named by `digests` (a digest,
 * `latest` or `v<N>`, as in reads). At most 100 names (400); nothing found is a 404 naming the
 * request; fewer versions found than distinct names given is a 404 listing the difference.
 * Deleted versions keep their `version_index`; "latest" moves to the newest live version.
 */
import type { Engine } from '../api/types.ts';
import { invalidRequest, tqError } from '../core/errors.ts';
import { pyStrRepr } from '../core/json/pyjson.ts';
import { list, maybe, model, str, type Infer } from '../core/schema.ts';
import { refreshLatest, selectsVersion } from '../query/objects/versions.ts';
import { defineRoute } from '../api/define-route.ts';

const MAX_DELETE = 100;

const deleteModel = model('ObjDeleteReq', { project_id: str(), object_id: str(), digests: maybe(list(str())) }, { strict: true });

const pyList = (items: readonly string[]) => `[${items.map(pyStrRepr).join(', ')}]`;
const pySet = (items: readonly string[]) => (items.length === 0 ? 'set()' : `{${items.map(pyStrRepr).join(', ')}}`);

/** At most MAX_DELETE names (400, before any grant is checked). */
function checkCount(req: Infer<typeof deleteModel>): Infer<typeof deleteModel> {
  const n = req.digests?.length ?? 0;
  if (n > MAX_DELETE) {
    throw invalidRequest('TQ_INVALID_REQUEST', {
      reason: `Object delete request contains ${n} objects. Please delete ${MAX_DELETE} or fewer objects at a time.`,
    });
  }
  return req;
}

function deleteObject(engine: Engine, req: Infer<typeof deleteModel>): { num_deleted: number } {
  const digests = req.digests ?? null;
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

export const objDeleteRoute = defineRoute({
  path: '/obj/delete',
  body: 'plain',
  mutates: true,
  answer: 'json',
  model: () => deleteModel,
  refine: checkCount,
  project: (req) => req.project_id,
  run: (req, { engine }) => deleteObject(engine, req),
});
