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
import { defineRoute, type RouteCall } from '../api/define-route.ts';
import type { Engine, FieldPrefix, Route, RouteResult } from '../api/types.ts';
import { RequestSchemaError } from '../core/errors.ts';
import { isPlainObject } from '../core/plain-object.ts';
import { perPrefix } from '../core/request/per-prefix.ts';
import { list, model, validateBody, type Infer } from '../core/schema.ts';
import { feedbackTable } from '../query/feedback/table.ts';
import { checkPurgeShape } from '../query/orm/purge-shape.ts';
import { matchingRows, ormPurgeModel, parseOrmQuery } from '../query/orm/request.ts';
import type { FeedbackRow, ProjectStore } from '../store/project.ts';
import type { FeedbackInput } from './feedback.ts';
import { deriveFeedback, storeFeedback, type PreparedFeedback } from './prepared-feedback.ts';
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

/** Each project once, in the order the batch first names it. */
const batchProjects = (items: readonly FeedbackInput[]) => [...new Set(items.map((i) => i.project_id))];

const purgeModel = ormPurgeModel('FeedbackPurgeReq');

function purgeFeedback({ req, expr }: { req: Infer<typeof purgeModel>; expr: ReturnType<typeof parseOrmQuery> }, { engine }: RouteCall): Record<string, never> {
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

function replaceFeedback({ feedbackId, projectId, prepared }: { feedbackId: string; projectId: string; prepared: PreparedFeedback }, { engine, ctx }: RouteCall): RouteResult {
  return atomically(engine, [projectId], () => {
    const project = engine.store.projectForWrite(projectId);
    resetFeedback(project, project.feedback.filter((f) => f.id !== feedbackId));
    return storeFeedback(engine, prepared, ctx.userId, true);
  });
}

export const feedbackChangeRoutes: Route[] = [
  defineRoute({
    path: '/feedback/batch/create',
    // Payloads keep their number spellings (semantics.md#writes-number-spelling). A split route:
    // the checks and the payloads' texts are derived off the event loop for a large body.
    body: 'lossless',
    mutates: true,
    answer: 'result',
    model: batchModel,
    refine: (req) => req.batch,
    project: batchProjects,
    derive: deriveFeedback,
    run: (prepared, { engine, ctx }) => storeFeedback(engine, prepared, ctx.userId, false),
  }),
  defineRoute({
    path: '/feedback/purge',
    body: 'plain',
    mutates: true,
    answer: 'json',
    model: () => purgeModel,
    refine: (req) => ({ req, expr: parseOrmQuery(req.query) }),
    project: ({ req }) => req.project_id,
    run: purgeFeedback,
  }),
  defineRoute({
    path: '/feedback/replace',
    body: 'spelled',
    mutates: true,
    answer: 'result',
    // FeedbackCreateReq plus `feedback_id`, with pydantic's issue order (parseReplace).
    parse: (body, prefix) => parseReplace(prefix, body),
    project: ({ input }) => input.project_id,
    // A split route, as the feedback creates (prepared-feedback.ts).
    derive: ({ feedbackId, input }) => ({ feedbackId, projectId: input.project_id, prepared: deriveFeedback([input]) }),
    run: replaceFeedback,
  }),
];
