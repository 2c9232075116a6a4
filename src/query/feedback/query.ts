/**
 * `POST /feedback/query` (FeedbackQueryReq → `{result: [...]}`), as production's feedback_query
 * runs it through its ORM: the project's feedback rows, `query` over columns and payload paths,
 * `sort_by`, `limit` / `offset`, and only the requested `fields` (all columns by default).
 */
import { defineRoute } from '../../api/define-route.ts';
import { ormQueryModel, parseOrmQuery, runOrmQuery } from '../orm/request.ts';
import { feedbackTable } from './table.ts';

const feedbackQueryModel = ormQueryModel('FeedbackQueryReq');

export const feedbackQueryRoute = defineRoute({
  path: '/feedback/query',
  body: 'query',
  mutates: false,
  answer: 'json',
  model: () => feedbackQueryModel,
  refine: (req) => ({ req, expr: parseOrmQuery(req.query) }),
  project: ({ req }) => req.project_id,
  run: ({ req, expr }, { engine }): { result: Array<Record<string, unknown>> } => {
    const rows = engine.store.project(req.project_id)?.feedback ?? [];
    return { result: runOrmQuery(feedbackTable(rows, engine.options.fieldPrefix), req, expr) };
  },
});
