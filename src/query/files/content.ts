/**
 * `POST /file/content` (FileContentReadReq `{project_id, digest}`): the bytes `/file/create`
 * stored under that digest, sent as they are (`application/octet-stream`); an unknown digest is
 * production's 404 "File with digest … not found".
 */
import { plainBody } from '../../api/body.ts';
import type { Engine, RequestBody, RequestContext, Route } from '../../api/types.ts';
import { tqError } from '../../core/errors.ts';
import { model, str, validateBody } from '../../core/schema.ts';

const contentModel = model('FileContentReadReq', { project_id: str(), digest: str() }, { strict: true });

function readFileContent(engine: Engine, body: unknown, ctx: RequestContext): Uint8Array {
  const req = validateBody(contentModel, body);
  ctx.authorize(req.project_id);
  const bytes = engine.store.project(req.project_id)?.files.get(req.digest);
  if (!bytes) throw tqError('TQ_NOT_FOUND_REASON', { reason: `File with digest ${req.digest} not found` });
  return bytes;
}

export const fileContentRoute: Route = {
  path: '/file/content',
  method: 'POST',
  body: 'json',
  run(engine: Engine, body: RequestBody, ctx: RequestContext) {
    return { kind: 'bytes', bytes: readFileContent(engine, plainBody(body), ctx), contentType: 'application/octet-stream' };
  },
};
