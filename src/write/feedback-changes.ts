/**
 * The feedback writes beyond `/feedback/create` (weave/trace_server/feedback.py and the
 * ClickHouse FeedbackRepository):
 *  - `/feedback/batch/create` (`{batch: [FeedbackCreateReq]}` → `{res: [FeedbackCreateRes]}`):
 *    every item is validated before any is stored, as production inserts the batch at the end;
 *  - `/feedback/purge` (`{project_id, query}` → `{}`): only by ids (`$eq` of `id` or an `$or`
 *    of those), anything else is production's 400;
 *  - `/feedback/replace` (FeedbackCreateReq + `feedback_id` → FeedbackCreateRes): removes the
 *    row `feedback_id` names, then creates the new one, whose id is the request's `id` or a new
 *    one (never `feedback_id` itself), as production does. Production purges before it
 *    validates the new row; tq validates first, so a bad replacement loses nothing.
 */
import { spelledBody } from '../api/body.ts';
import { jsonRoute } from '../api/json-route.ts';
import type { Engine, FieldPrefix, RequestContext, Route } from '../api/types.ts';
import { RequestSchemaError } from '../core/errors.ts';
import { isPlainObject } from '../core/plain-object.ts';
import { perPrefix } from '../core/request/per-prefix.ts';
import { list, model, validateBody } from '../core/schema.ts';
import { feedbackTable } from '../query/feedback/table.ts';
import { checkPurgeShape } from '../query/orm/purge-shape.ts';
import { matchingRows, ormPurgeModel, parseOrmQuery } from '../query/orm/request.ts';
import type { FeedbackRow, ProjectStore } from '../store/project.ts';
import { createFeedback, type FeedbackInput } from './feedback.ts';
import { writeModels } from './models.ts';

const MESSAGE_INVALID_FEEDBACK_PURGE = 'Can only purge feedback by specifying one or more feedback ids';

/** Replaces the project's feedback by `rows` (both the list and the per-ref index). */
function resetFeedback(project: ProjectStore, rows: readonly FeedbackRow[]): void {
  project.feedback.length = 0;
  project.feedbackByRef.clear();
  for (const f of rows) project.addFeedback(f);
}

/**
 * Runs `write`; if it throws, the feedback of every project named is put back as it was, and a
 * project the write created is removed again.
 */
function atomically<T>(engine: Engine, projectIds: Iterable<string>, write: () => T): T {
  const saved = [...new Set(projectIds)].map((id) => {
    const project = engine.store.project(id);
    return { id, project, rows: project ? [...project.feedback] : [] };
  });
  try {
    return write();
  } catch (e) {
    for (const { id, project, rows } of saved) {
      if (project) resetFeedback(project, rows);
      else engine.store.projects.delete(id);
    }
    throw e;
  }
}

const batchModel = perPrefix((p: FieldPrefix) => model('FeedbackCreateBatchReq', { batch: list(writeModels(p).feedbackCreateReq) }, { strict: true }));

function createFeedbackBatch(engine: Engine, body: unknown, ctx: RequestContext): { res: unknown[] } {
  const items = validateBody(batchModel(engine.options.fieldPrefix), body).batch;
  const projects = new Set(items.map((i) => i.project_id));
  for (const projectId of projects) ctx.authorize(projectId);
  return { res: atomically(engine, projects, () => items.map((item) => createFeedback(engine, item, ctx.userId))) };
}

const purgeModel = ormPurgeModel('FeedbackPurgeReq');

function purgeFeedback(engine: Engine, body: unknown, ctx: RequestContext): Record<string, never> {
  const req = validateBody(purgeModel, body);
  const expr = parseOrmQuery(req.query);
  ctx.authorize(req.project_id);
  checkPurgeShape(expr, MESSAGE_INVALID_FEEDBACK_PURGE, false);
  const project = engine.store.project(req.project_id);
  if (!project) return {};
  const table = feedbackTable(project.feedback, engine.options.fieldPrefix);
  const gone = new Set(matchingRows(table, expr).map((r) => table.rows[r]));
  resetFeedback(project, project.feedback.filter((f) => !gone.has(f)));
  return {};
}

/**
 * FeedbackReplaceReq: FeedbackCreateReq plus a required string `feedback_id`, whose issue comes
 * after the create model's (pydantic lists a subclass's own fields last).
 */
function parseReplace(p: FieldPrefix, body: unknown): { feedbackId: string; input: FeedbackInput } {
  const fields = isPlainObject(body) ? { ...body } : null;
  const feedbackId = fields?.feedback_id;
  if (fields) delete fields.feedback_id;
  let input: FeedbackInput;
  try {
    input = validateBody(writeModels(p).feedbackCreateReq, fields ?? body);
  } catch (e) {
    if (!(e instanceof RequestSchemaError) || typeof feedbackId === 'string') throw e;
    throw new RequestSchemaError([...e.issues, feedbackIdIssue(feedbackId)]);
  }
  if (typeof feedbackId !== 'string') throw new RequestSchemaError([feedbackIdIssue(feedbackId)]);
  return { feedbackId, input };
}

function feedbackIdIssue(value: unknown) {
  return value === undefined
    ? { type: 'missing', loc: ['body', 'feedback_id'], msg: 'Field required', input: null }
    : { type: 'string_type', loc: ['body', 'feedback_id'], msg: 'Input should be a valid string', input: value };
}

function replaceFeedback(engine: Engine, body: unknown, ctx: RequestContext): Record<string, unknown> {
  const { feedbackId, input } = parseReplace(engine.options.fieldPrefix, body);
  ctx.authorize(input.project_id);
  return atomically(engine, [input.project_id], () => {
    const project = engine.store.projectForWrite(input.project_id);
    resetFeedback(project, project.feedback.filter((f) => f.id !== feedbackId));
    return createFeedback(engine, input, ctx.userId);
  });
}

export const feedbackChangeRoutes: Route[] = [
  // Payloads keep their number spellings (semantics.md#writes-number-spelling).
  jsonRoute('/feedback/batch/create', createFeedbackBatch, { mutates: true, parse: spelledBody }),
  jsonRoute('/feedback/purge', purgeFeedback, { mutates: true }),
  jsonRoute('/feedback/replace', replaceFeedback, { mutates: true, parse: spelledBody }),
];
