/**
 * `POST /feedback/query` (FeedbackQueryReq → `{result: [...]}`), as production's feedback_query
 * runs it through its ORM: the project's feedback rows, `query` over columns and payload paths,
 * `sort_by`, `limit` / `offset`, and only the requested `fields` (all columns by default).
 */
import { jsonRoute } from '../../api/json-route.ts';
import type { Engine, RequestContext } from '../../api/types.ts';
import { validateBody } from '../../core/schema.ts';
import { queryBody } from '../../api/body.ts';
import { ormQueryModel, parseOrmQuery, runOrmQuery } from '../orm/request.ts';
import { feedbackTable } from './table.ts';

const feedbackQueryModel = ormQueryModel('FeedbackQueryReq');

function queryFeedback(engine: Engine, body: unknown, ctx: RequestContext): { result: Array<Record<string, unknown>> } {
  const req = validateBody(feedbackQueryModel, body);
  const expr = parseOrmQuery(req.query);
  ctx.authorize(req.project_id);
  const rows = engine.store.project(req.project_id)?.feedback ?? [];
  return { result: runOrmQuery(feedbackTable(rows, engine.options.fieldPrefix), req, expr) };
}

export const feedbackQueryRoute = jsonRoute('/feedback/query', queryFeedback, { parse: queryBody });
