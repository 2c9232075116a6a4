/**
 * `POST /file/content` (FileContentReadReq `{project_id, digest}`): the bytes `/file/create`
 * stored under that digest, sent as they are (`application/octet-stream`); an unknown digest is
 * production's 404 "File with digest … not found".
 */
import { defineRoute } from '../../api/define-route.ts';
import type { Engine, RouteResult } from '../../api/types.ts';
import { tqError } from '../../core/errors.ts';
import { model, str, type Infer } from '../../core/schema.ts';

const contentModel = model('FileContentReadReq', { project_id: str(), digest: str() }, { strict: true });

function readFileContent(req: Infer<typeof contentModel>, engine: Engine): Uint8Array {
  const bytes = engine.store.project(req.project_id)?.files.get(req.digest);
  if (!bytes) throw tqError('TQ_NOT_FOUND_REASON', { reason: `File with digest ${req.digest} not found` });
  return bytes;
}

/** The route at `path` (`/file/content`, and the newest Python client's `/files/content`). */
export const fileContentRouteAt = (path: string) =>
  defineRoute({
    path,
    body: 'plain',
    mutates: false,
    answer: 'result',
    model: () => contentModel,
    project: (req) => req.project_id,
    run: (req, { engine }): RouteResult => ({ kind: 'bytes', bytes: readFileContent(req, engine), contentType: 'application/octet-stream' }),
  });

export const fileContentRoute = fileContentRouteAt('/file/content');
