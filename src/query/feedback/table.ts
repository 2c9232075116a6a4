/**
 * Feedback rows as Weave's TABLE_FEEDBACK columns (weave/trace_server/feedback.py), for the
 * ORM-style queries of /feedback/query and /feedback/purge. The user column is spelled with
 * the engine's field prefix (semantics.md#wire-prefix).
 */
import type { FieldPrefix } from '../../api/types.ts';
import type { FeedbackRow } from '../../store/project.ts';
import { RowTable, type Column } from '../orm/rows.ts';

export function feedbackTable(rows: readonly FeedbackRow[], prefix: FieldPrefix): RowTable<FeedbackRow> {
  const s = (name: string, get: (f: FeedbackRow) => unknown): Column<FeedbackRow> => ({ name, kind: 'string', get });
  return new RowTable(rows, [
    s('id', (f) => f.id),
    s('project_id', (f) => f.project_id),
    s('weave_ref', (f) => f.weave_ref),
    s(`${prefix}user_id`, (f) => f.user_id),
    s('creator', (f) => f.creator),
    { name: 'created_at', kind: 'datetime', get: (f) => f.created_at },
    s('feedback_type', (f) => f.feedback_type),
    { name: 'payload', kind: 'json', get: (f) => f.payload },
    s('annotation_ref', (f) => f.annotation_ref),
    s('runnable_ref', (f) => f.runnable_ref),
    s('call_ref', (f) => f.call_ref),
    s('trigger_ref', (f) => f.trigger_ref),
  ]);
}
