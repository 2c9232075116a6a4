/**
 * The write endpoints' request models (semantics.md#writes, trace_server_interface.py).
 * Top-level requests are `BaseModelStrict` (unknown keys → 422); the inner insert schemas are
 * plain models that ignore unknown keys (semantics.md#wire-strict-models), which is why the TS SDK
 * may send `display_name` in a call end. The user and run fields are spelled with the engine's
 * prefix on the wire (semantics.md#wire-prefix) and neutrally inside (`user_id`): each is an
 * alias, so the models are built per prefix while their types are the same for both.
 */
import type { FieldPrefix } from '../api/types.ts';
import { datetime } from '../core/request/datetime.ts';
import { perPrefix } from '../core/request/per-prefix.ts';
import { alias, any, bool, dict, int, list, maybe, model, num, optional, str, type Infer } from '../core/schema.ts';
import { record, summaryInsertMap, unionOf } from './schemas.ts';

/** `user_id` read from `svc_user_id` / `wb_user_id`. */
const userId = (p: FieldPrefix) => alias(`${p}user_id`, maybe(str()));

/** The fields of StartedCallSchemaForInsert (CompleteCallSchemaForInsert extends them). */
export function startedCallShape(p: FieldPrefix) {
  return {
    project_id: str(),
    id: maybe(str()),
    op_name: str(),
    display_name: maybe(str()),
    trace_id: maybe(str()),
    parent_id: maybe(str()),
    thread_id: maybe(str()),
    turn_id: maybe(str()),
    started_at: datetime(),
    attributes: dict(),
    inputs: dict(),
    otel_dump: maybe(dict()),
    user_id: userId(p),
    run_id: alias(`${p}run_id`, maybe(str())),
    run_step: alias(`${p}run_step`, maybe(int())),
  };
}

/** The fields of EndedCallSchemaForInsert. */
export function endedCallShape(p: FieldPrefix) {
  return {
    project_id: str(),
    id: str(),
    ended_at: datetime(),
    exception: maybe(str()),
    output: optional(any()),
    summary: summaryInsertMap(),
    run_step_end: alias(`${p}run_step_end`, maybe(int())),
  };
}

function build(p: FieldPrefix) {
  const startedCall = model('StartedCallSchemaForInsert', startedCallShape(p), { strict: false });
  const endedCall = model('EndedCallSchemaForInsert', endedCallShape(p), { strict: false });
  const callStartReq = model('CallStartReq', { start: startedCall }, { strict: true });
  const callEndReq = model('CallEndReq', { end: endedCall }, { strict: true });
  const batchStart = model('CallBatchStartMode', { mode: optional(str()), req: callStartReq }, { strict: false });
  const batchEnd = model('CallBatchEndMode', { mode: optional(str()), req: callEndReq }, { strict: false });
  const batchItem = unionOf([
    ['CallBatchStartMode', batchStart],
    ['CallBatchEndMode', batchEnd],
  ]);
  const callBatchReq = model('CallCreateBatchReq', { batch: list(batchItem) }, { strict: true });
  const callUpdateReq = model(
    'CallUpdateReq',
    { project_id: str(), call_id: str(), display_name: maybe(str()), user_id: userId(p) },
    { strict: true },
  );
  const callsDeleteReq = model(
    'CallsDeleteReq',
    { project_id: str(), call_ids: list(str()), user_id: userId(p) },
    { strict: true },
  );

  const objCreateReq = model(
    'ObjCreateReq',
    {
      obj: model(
        'ObjSchemaForInsert',
        {
          project_id: str(),
          object_id: str(),
          val: any(),
          builtin_object_class: maybe(str()),
          // Deprecated alias of builtin_object_class, still accepted (`model_post_init`).
          set_base_object_class: maybe(str()),
          expected_digest: maybe(str()),
          user_id: userId(p),
        },
        { strict: false },
      ),
    },
    { strict: true },
  );
  const objReadReq = model(
    'ObjReadReq',
    {
      project_id: str(),
      object_id: str(),
      digest: str(),
      metadata_only: maybe(bool()),
      include_tags_and_aliases: maybe(bool()),
    },
    { strict: true },
  );

  const tableCreateReq = model(
    'TableCreateReq',
    {
      table: model(
        'TableSchemaForInsert',
        { project_id: str(), rows: list(dict()), expected_digest: maybe(str()) },
        { strict: false },
      ),
    },
    { strict: true },
  );
  const tableUpdate = unionOf([
    ['TableAppendSpec', model('TableAppendSpec', { append: model('TableAppendSpecPayload', { row: dict() }, { strict: false }) }, { strict: false })],
    ['TablePopSpec', model('TablePopSpec', { pop: model('TablePopSpecPayload', { index: int() }, { strict: false }) }, { strict: false })],
    [
      'TableInsertSpec',
      model('TableInsertSpec', { insert: model('TableInsertSpecPayload', { index: int(), row: dict() }, { strict: false }) }, { strict: false }),
    ],
  ]);
  const tableUpdateReq = model(
    'TableUpdateReq',
    { project_id: str(), base_digest: str(), updates: list(tableUpdate) },
    { strict: true },
  );
  const tableFromDigestsReq = model(
    'TableCreateFromDigestsReq',
    { project_id: str(), row_digests: list(str()), expected_digest: maybe(str()) },
    { strict: true },
  );

  const feedbackCreateReq = model(
    'FeedbackCreateReq',
    {
      id: maybe(str()),
      project_id: str(),
      weave_ref: str(),
      creator: maybe(str()),
      feedback_type: str(),
      payload: dict(),
      annotation_ref: maybe(str()),
      runnable_ref: maybe(str()),
      call_ref: maybe(str()),
      trigger_ref: maybe(str()),
      user_id: userId(p),
    },
    { strict: true },
  );

  const costInput = model(
    'CostCreateInput',
    {
      prompt_token_cost: num(),
      completion_token_cost: num(),
      prompt_token_cost_unit: maybe(str()),
      completion_token_cost_unit: maybe(str()),
      effective_date: maybe(datetime()),
      provider_id: maybe(str()),
    },
    { strict: true },
  );
  const costCreateReq = model(
    'CostCreateReq',
    { project_id: str(), costs: record(costInput), user_id: userId(p) },
    { strict: true },
  );

  return {
    callStartReq,
    callEndReq,
    callBatchReq,
    callUpdateReq,
    callsDeleteReq,
    objCreateReq,
    objReadReq,
    tableCreateReq,
    tableUpdateReq,
    tableFromDigestsReq,
    feedbackCreateReq,
    costCreateReq,
  };
}

export type WriteModels = ReturnType<typeof build>;
export type StartedCallInput = Infer<WriteModels['callStartReq']>['start'];
export type EndedCallInput = Infer<WriteModels['callEndReq']>['end'];
export type FeedbackCreateInput = Infer<WriteModels['feedbackCreateReq']>;
export type CostCreateInput = Infer<WriteModels['costCreateReq']>;

/** The models for one wire prefix (built once per prefix). */
export const writeModels: (prefix: FieldPrefix) => WriteModels = perPrefix(build);
