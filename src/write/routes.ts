/**
 * The write routes (semantics.md#wire-routes, semantics.md#writes). Each route validates the whole
 * request (422 for the model), authorizes every project it names (src/api/run-route.ts checks the
 * id's form first: 400), and only then writes. Bodies that feed a digest (tables, objects) are
 * parsed losslessly so that `1` and `1.0` digest differently (semantics.md#digest-lossless); the
 * others are plain JSON.
 */
import { stringifyExact } from '../core/json/exact.ts';
import { losslessBody, plainBody } from '../api/body.ts';
import type { Engine, FieldPrefix, RequestBody, RequestContext, Route, RouteResult } from '../api/types.ts';
import { RequestSchemaError } from '../core/errors.ts';
import { LosslessObject, toPlain, type LosslessValue } from '../core/json/lossless.ts';
import { validateBody } from '../core/schema.ts';
import { batchItem, deleteCalls, endCall, startCall, updateCall, upsertBatch, type CallEndInput, type CallStartInput } from './calls.ts';
import { createCosts, type CostInput } from './costs.ts';
import { createFeedback, type FeedbackInput } from './feedback.ts';
import { createFile } from './files.ts';
import { writeModels } from './models.ts';
import { createObject, readObject } from './objects.ts';
import { createTable, createTableFromDigests, updateTable, type TableUpdate } from './tables.ts';
import type { UnionMatch } from './schemas.ts';

type Obj = Record<string, unknown>;

/** Renames the prefixed user/run fields of a validated call part to the engine's neutral names. */
export function neutral(part: Obj, p: FieldPrefix): Obj {
  const out: Obj = { ...part };
  for (const f of ['user_id', 'run_id', 'run_step', 'run_step_end']) {
    if (`${p}${f}` in out) {
      out[f] = out[`${p}${f}`];
      delete out[`${p}${f}`];
    }
  }
  return out;
}

const startOf = (req: Obj, p: FieldPrefix) => neutral(req.start as Obj, p) as unknown as CallStartInput;
const endOf = (req: Obj, p: FieldPrefix) => neutral(req.end as Obj, p) as unknown as CallEndInput;

// Written here so that values holding big integers (object `val`s) keep every digit.
const json = (body: unknown): RouteResult => ({ kind: 'json', body, text: stringifyExact(body) });

/** The lossless value at a path of object keys (the parts validated as dicts above). */
function at(v: LosslessValue, ...keys: Array<string | number>): LosslessValue {
  let cur: LosslessValue | undefined = v;
  for (const k of keys) cur = typeof k === 'number' ? (cur as LosslessValue[])[k] : (cur as LosslessObject).get(k);
  return cur as LosslessValue;
}

/** Validates a lossless body against a model (checked on its plain form). */
function validateLossless<T>(schema: Parameters<typeof validateBody<T>>[0], body: LosslessValue): T {
  return validateBody(schema, toPlain(body));
}

export const callStartRoute: Route = {
  path: '/call/start',
  mutates: true,
  method: 'POST',
  body: 'json',
  run(engine, body, ctx) {
    const p = engine.options.fieldPrefix;
    const start = startOf(validateBody(writeModels(p).callStartReq, plainBody(body)) as Obj, p);
    ctx.authorize(start.project_id);
    return json(startCall(engine, start, ctx.userId));
  },
};

export const callEndRoute: Route = {
  path: '/call/end',
  mutates: true,
  method: 'POST',
  body: 'json',
  run(engine, body, ctx) {
    const p = engine.options.fieldPrefix;
    const end = endOf(validateBody(writeModels(p).callEndReq, plainBody(body)) as Obj, p);
    ctx.authorize(end.project_id);
    return json(endCall(engine, end));
  },
};

export const callUpsertBatchRoute: Route = {
  path: '/call/upsert_batch',
  mutates: true,
  method: 'POST',
  body: 'json',
  run(engine, body, ctx) {
    const p = engine.options.fieldPrefix;
    const req = validateBody(writeModels(p).callBatchReq, plainBody(body)) as { batch: Array<UnionMatch<Obj>> };
    const items = req.batch.map(({ member, value }) => {
      const isStart = member === 'CallBatchStartMode';
      const mode = typeof value.mode === 'string' ? value.mode : isStart ? 'start' : 'end';
      const r = value.req as Obj;
      return batchItem(mode, isStart ? startOf(r, p) : null, isStart ? null : endOf(r, p));
    });
    for (const item of items) ctx.authorize(item.mode === 'start' ? item.start.project_id : item.end.project_id);
    return json(upsertBatch(engine, items, ctx.userId));
  },
};

export const callUpdateRoute: Route = {
  path: '/call/update',
  mutates: true,
  method: 'POST',
  body: 'json',
  run(engine, body, ctx) {
    const req = validateBody(writeModels(engine.options.fieldPrefix).callUpdateReq, plainBody(body)) as Obj;
    const projectId = req.project_id as string;
    ctx.authorize(projectId);
    return json(updateCall(engine, projectId, req.call_id as string, req.display_name as string | null | undefined));
  },
};

export const objCreateRoute: Route = {
  path: '/obj/create',
  mutates: true,
  method: 'POST',
  body: 'json',
  run(engine, body, ctx) {
    const p = engine.options.fieldPrefix;
    const lossless = losslessBody(body);
    const obj = (validateLossless(writeModels(p).objCreateReq, lossless) as Obj).obj as Obj;
    const projectId = obj.project_id as string;
    ctx.authorize(projectId);
    return json(
      createObject(engine, {
        projectId,
        objectId: obj.object_id as string,
        val: at(lossless, 'obj', 'val'),
        builtinObjectClass: (obj.builtin_object_class ?? obj.set_base_object_class ?? null) as string | null,
        expectedDigest: (obj.expected_digest ?? null) as string | null,
        userId: (obj[`${p}user_id`] as string | null | undefined) ?? ctx.userId,
      }),
    );
  },
};

export const objReadRoute: Route = {
  path: '/obj/read',
  method: 'POST',
  body: 'json',
  run(engine, body, ctx) {
    const req = validateBody(writeModels(engine.options.fieldPrefix).objReadReq, plainBody(body)) as Obj;
    const projectId = req.project_id as string;
    ctx.authorize(projectId);
    return json(readObject(engine, projectId, req.object_id as string, req.digest as string, req.metadata_only === true));
  },
};

export const tableCreateRoute: Route = {
  path: '/table/create',
  mutates: true,
  method: 'POST',
  body: 'json',
  run(engine, body, ctx) {
    const lossless = losslessBody(body);
    const table = (validateLossless(writeModels(engine.options.fieldPrefix).tableCreateReq, lossless) as Obj).table as Obj;
    const projectId = table.project_id as string;
    ctx.authorize(projectId);
    const rows = at(lossless, 'table', 'rows') as LosslessObject[];
    return json(createTable(engine, projectId, rows, table.expected_digest as string | null | undefined));
  },
};

export const tableUpdateRoute: Route = {
  path: '/table/update',
  mutates: true,
  method: 'POST',
  body: 'json',
  run(engine, body, ctx) {
    const lossless = losslessBody(body);
    const req = validateLossless(writeModels(engine.options.fieldPrefix).tableUpdateReq, lossless) as {
      project_id: string;
      base_digest: string;
      updates: Array<UnionMatch<Obj>>;
    };
    ctx.authorize(req.project_id);
    const updates = req.updates.map(({ member, value }, i): TableUpdate => {
      if (member === 'TableAppendSpec') return { append: { row: at(lossless, 'updates', i, 'append', 'row') as LosslessObject } };
      if (member === 'TablePopSpec') return { pop: { index: (value.pop as Obj).index as number } };
      return { insert: { index: (value.insert as Obj).index as number, row: at(lossless, 'updates', i, 'insert', 'row') as LosslessObject } };
    });
    return json(updateTable(engine, req.project_id, req.base_digest, updates));
  },
};

export const tableCreateFromDigestsRoute: Route = {
  path: '/table/create_from_digests',
  mutates: true,
  method: 'POST',
  body: 'json',
  run(engine, body, ctx) {
    const req = validateBody(writeModels(engine.options.fieldPrefix).tableFromDigestsReq, plainBody(body)) as Obj;
    const projectId = req.project_id as string;
    ctx.authorize(projectId);
    return json(createTableFromDigests(engine, projectId, req.row_digests as string[], req.expected_digest as string | null | undefined));
  },
};

export const feedbackCreateRoute: Route = {
  path: '/feedback/create',
  mutates: true,
  method: 'POST',
  body: 'json',
  run(engine, body, ctx) {
    const p = engine.options.fieldPrefix;
    const req = neutral(validateBody(writeModels(p).feedbackCreateReq, plainBody(body)) as Obj, p) as unknown as FeedbackInput;
    ctx.authorize(req.project_id);
    return json(createFeedback(engine, req, ctx.userId));
  },
};

export const costCreateRoute: Route = {
  path: '/cost/create',
  mutates: true,
  method: 'POST',
  body: 'json',
  run(engine, body, ctx) {
    const p = engine.options.fieldPrefix;
    const req = validateBody(writeModels(p).costCreateReq, plainBody(body)) as Obj;
    const projectId = req.project_id as string;
    ctx.authorize(projectId);
    const userId = (req[`${p}user_id`] as string | null | undefined) ?? ctx.userId;
    return json(createCosts(engine, projectId, req.costs as Record<string, CostInput>, userId));
  },
};

/** The multipart form's missing part, worded as FastAPI words a missing form field. */
function missingFormField(field: string): RequestSchemaError {
  return new RequestSchemaError([{ type: 'missing', loc: ['body', field], msg: 'Field required', input: null }]);
}

/**
 * `/file/create` (alias `/files/create`): multipart form with `project_id` and `file`
 * (semantics.md#wire-routes).
 */
function fileUploadRoute(path: string): Route {
  return {
    path,
    mutates: true,
    method: 'POST',
    body: 'multipart',
    run(engine: Engine, body: RequestBody, ctx: RequestContext): RouteResult {
      if (body.kind !== 'multipart') throw missingFormField('project_id');
      const projectId = body.fields.get('project_id');
      const file = body.files.get('file');
      if (projectId === undefined && file === undefined) {
        throw new RequestSchemaError([
          { type: 'missing', loc: ['body', 'project_id'], msg: 'Field required', input: null },
          { type: 'missing', loc: ['body', 'file'], msg: 'Field required', input: null },
        ]);
      }
      if (projectId === undefined) throw missingFormField('project_id');
      if (file === undefined) throw missingFormField('file');
      ctx.authorize(projectId);
      return json(createFile(engine, projectId, file));
    },
  };
}

export const fileCreateRoute = fileUploadRoute('/file/create');
export const filesCreateRoute = fileUploadRoute('/files/create');

export const callsDeleteRoute: Route = {
  path: '/calls/delete',
  mutates: true,
  method: 'POST',
  body: 'json',
  run(engine, body, ctx) {
    const req = validateBody(writeModels(engine.options.fieldPrefix).callsDeleteReq, plainBody(body)) as Obj;
    const projectId = req.project_id as string;
    ctx.authorize(projectId);
    return json(deleteCalls(engine, projectId, req.call_ids as string[]));
  },
};

export const writeRoutes: Route[] = [
  callStartRoute,
  callEndRoute,
  callUpsertBatchRoute,
  callUpdateRoute,
  callsDeleteRoute,
  objCreateRoute,
  objReadRoute,
  tableCreateRoute,
  tableUpdateRoute,
  tableCreateFromDigestsRoute,
  feedbackCreateRoute,
  costCreateRoute,
  fileCreateRoute,
  filesCreateRoute,
];
