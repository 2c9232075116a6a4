/**
 * The write routes (semantics.md#wire-routes, semantics.md#writes). Each route validates the whole
 * request (422 for the model), authorizes every project it names (src/api/run-route.ts checks the
 * id's form first: 400), and only then writes (src/api/define-route.ts). Bodies that feed a
 * digest (tables, objects) are parsed losslessly so that `1` and `1.0` digest differently
 * (semantics.md#digest-lossless); the others are plain JSON.
 *
 * A new write route touches three files: its request model (models.ts), a `defineRoute` here
 * listed in `writeRoutes`, and the write itself in its own file (with its test beside it).
 */
import type { RequestBody, Route } from '../api/types.ts';
import { RequestSchemaError } from '../core/errors.ts';
import type { LosslessObject, LosslessValue } from '../core/json/lossless.ts';
import { batchItem, deleteCalls, updateCall } from './calls.ts';
import { prepareCallWrites, projectsOfCallWrites, storeCallWrites, type CallWrite } from './prepared-calls.ts';
import { createCosts } from './costs.ts';
import { defineRoute } from '../api/define-route.ts';
import { deriveFeedback, storeFeedback } from './prepared-feedback.ts';
import { createFile } from './files.ts';
import { writeModels } from './models.ts';
import { deriveObjectVersion, storeObjectVersion } from './objects.ts';
import { readObject } from '../query/objects/read.ts';
import { createTableFromDigests, deriveRows, deriveTableUpdates, storeCreatedTable, storeUpdatedTable, type TableUpdate } from './tables.ts';

/** The lossless value at a path of object keys (the parts validated as dicts by the model). */
function at(v: LosslessValue | undefined, ...keys: Array<string | number>): LosslessValue {
  let cur = v;
  for (const k of keys) cur = typeof k === 'number' ? (cur as LosslessValue[])[k] : (cur as LosslessObject).get(k);
  return cur as LosslessValue;
}

// The call writes are split routes (Route.prepare): their parts' stored texts and derived
// columns come from the body alone, off the event loop for a large body (prepared-calls.ts).
export const callStartRoute = defineRoute({
  path: '/call/start',
  body: 'lossless',
  mutates: true,
  answer: 'json',
  model: (p) => writeModels(p).callStartReq,
  project: (req) => req.start.project_id,
  derive: ({ start }, { storedText }) => ({ projectId: start.project_id, writes: prepareCallWrites([{ start }], storedText) }),
  run: ({ projectId, writes }, { engine, ctx }) => {
    ctx.assertLegacyCallWrite?.(projectId);
    return storeCallWrites(engine, writes, ctx.userId)[0];
  },
});

export const callEndRoute = defineRoute({
  path: '/call/end',
  body: 'lossless',
  mutates: true,
  answer: 'json',
  model: (p) => writeModels(p).callEndReq,
  project: (req) => req.end.project_id,
  derive: ({ end }, { storedText }) => ({ projectId: end.project_id, writes: prepareCallWrites([{ end }], storedText) }),
  run: ({ projectId, writes }, { engine, ctx }) => {
    ctx.assertLegacyCallWrite?.(projectId);
    storeCallWrites(engine, writes, ctx.userId);
    return {};
  },
});

export const callUpsertBatchRoute = defineRoute({
  path: '/call/upsert_batch',
  body: 'lossless',
  mutates: true,
  answer: 'json',
  model: (p) => writeModels(p).callBatchReq,
  // An item's `mode` must agree with its shape (400), checked before any grant.
  refine: (req) =>
    req.batch.map(({ member, value }): CallWrite => {
      const item = member === 'CallBatchStartMode' ? batchItem(value.mode ?? 'start', value.req.start, null) : batchItem(value.mode ?? 'end', null, value.req.end);
      return item.mode === 'start' ? { start: item.start } : { end: item.end };
    }),
  project: (writes) => projectsOfCallWrites(writes),
  derive: (writes, { storedText }) => ({ projects: projectsOfCallWrites(writes), writes: prepareCallWrites(writes, storedText) }),
  run: ({ projects, writes }, { engine, ctx }) => {
    // Every project is checked before the first item is written: a refused batch writes nothing.
    for (const projectId of projects) ctx.assertLegacyCallWrite?.(projectId);
    return { res: storeCallWrites(engine, writes, ctx.userId) };
  },
});

export const callUpdateRoute = defineRoute({
  path: '/call/update',
  body: 'plain',
  mutates: true,
  answer: 'json',
  model: (p) => writeModels(p).callUpdateReq,
  project: (req) => req.project_id,
  run: (req, { engine }) => updateCall(engine, req.project_id, req.call_id, req.display_name),
});

// A split route (Route.prepare): the digest and stored text come from the body alone, off the
// event loop for a large body; the checks against the store and the write are the store step.
export const objCreateRoute = defineRoute({
  path: '/obj/create',
  body: 'lossless',
  mutates: true,
  answer: 'json',
  model: (p) => writeModels(p).objCreateReq,
  project: (req) => req.obj.project_id,
  derive: ({ obj }, { lossless }) => ({
    projectId: obj.project_id,
    objectId: obj.object_id,
    expectedDigest: obj.expected_digest ?? null,
    userId: obj.user_id ?? null,
    version: deriveObjectVersion(at(lossless, 'obj', 'val'), obj.builtin_object_class ?? obj.set_base_object_class ?? null),
  }),
  run: ({ projectId, objectId, expectedDigest, userId, version }, { engine, ctx }) =>
    storeObjectVersion(engine, { projectId, objectId, expectedDigest, userId: userId ?? ctx.userId }, version),
});

export const objReadRoute = defineRoute({
  path: '/obj/read',
  body: 'plain',
  mutates: false,
  answer: 'json',
  model: (p) => writeModels(p).objReadReq,
  project: (req) => req.project_id,
  run: (req, { engine }) => readObject(engine, req.project_id, req.object_id, req.digest, req.metadata_only === true),
});

// The table writes are split routes (Route.prepare): their rows' digests and stored texts are
// derived from the body alone, off the event loop for a large body (src/server/off-loop.ts).
export const tableCreateRoute = defineRoute({
  path: '/table/create',
  body: 'lossless',
  mutates: true,
  answer: 'json',
  model: (p) => writeModels(p).tableCreateReq,
  project: (req) => req.table.project_id,
  derive: ({ table }, { lossless }) => ({
    projectId: table.project_id,
    expectedDigest: table.expected_digest ?? null,
    rows: deriveRows(at(lossless, 'table', 'rows') as LosslessObject[]),
  }),
  run: (derived, { engine }) => storeCreatedTable(engine, derived.projectId, derived.rows, derived.expectedDigest),
});

export const tableUpdateRoute = defineRoute({
  path: '/table/update',
  body: 'lossless',
  mutates: true,
  answer: 'json',
  model: (p) => writeModels(p).tableUpdateReq,
  project: (req) => req.project_id,
  derive: (req, { lossless }) => {
    const updates = req.updates.map((u, i): TableUpdate => {
      if (u.member === 'TableAppendSpec') return { append: { row: at(lossless, 'updates', i, 'append', 'row') as LosslessObject } };
      if (u.member === 'TablePopSpec') return { pop: { index: u.value.pop.index } };
      return { insert: { index: u.value.insert.index, row: at(lossless, 'updates', i, 'insert', 'row') as LosslessObject } };
    });
    return { projectId: req.project_id, baseDigest: req.base_digest, ...deriveTableUpdates(updates) };
  },
  run: (derived, { engine }) => storeUpdatedTable(engine, derived.projectId, derived.baseDigest, derived.updates, derived.rows),
});

export const tableCreateFromDigestsRoute = defineRoute({
  path: '/table/create_from_digests',
  body: 'plain',
  mutates: true,
  answer: 'json',
  model: (p) => writeModels(p).tableFromDigestsReq,
  project: (req) => req.project_id,
  run: (req, { engine }) => createTableFromDigests(engine, req.project_id, req.row_digests, req.expected_digest),
});

export const feedbackCreateRoute = defineRoute({
  path: '/feedback/create',
  body: 'lossless', // the payload keeps its number spellings (semantics.md#writes-number-spelling)
  mutates: true,
  answer: 'result',
  model: (p) => writeModels(p).feedbackCreateReq,
  project: (req) => req.project_id,
  // A split route, as /feedback/batch/create (prepared-feedback.ts).
  derive: (req) => deriveFeedback([req]),
  run: (prepared, { engine, ctx }) => storeFeedback(engine, prepared, ctx.userId, true),
});

export const costCreateRoute = defineRoute({
  path: '/cost/create',
  body: 'plain',
  mutates: true,
  answer: 'json',
  model: (p) => writeModels(p).costCreateReq,
  project: (req) => req.project_id,
  run: (req, { engine, ctx }) => createCosts(engine, req.project_id, req.costs, req.user_id ?? ctx.userId),
});

export const callsDeleteRoute = defineRoute({
  path: '/calls/delete',
  body: 'plain',
  mutates: true,
  answer: 'json',
  model: (p) => writeModels(p).callsDeleteReq,
  project: (req) => req.project_id,
  run: (req, { engine }) => deleteCalls(engine, req.project_id, req.call_ids),
});

/** The multipart form's missing parts, worded as FastAPI words missing form fields. */
function missingFormFields(fields: readonly string[]): RequestSchemaError {
  return new RequestSchemaError(fields.map((field) => ({ type: 'missing', loc: ['body', field], msg: 'Field required', input: null })));
}

/**
 * `/file/create` (alias `/files/create`): multipart form with `project_id`, `file` and an
 * optional `expected_digest` (semantics.md#wire-routes, semantics.md#writes-file-expected-digest).
 */
function fileUploadRoute(path: string): Route {
  return defineRoute({
    path,
    body: 'multipart',
    mutates: true,
    answer: 'json',
    parse(raw) {
      const body = raw as RequestBody;
      if (body.kind !== 'multipart') throw missingFormFields(['project_id']);
      const projectId = body.fields.get('project_id');
      const file = body.files.get('file');
      if (projectId === undefined || file === undefined) {
        throw missingFormFields([...(projectId === undefined ? ['project_id'] : []), ...(file === undefined ? ['file'] : [])]);
      }
      return { projectId, file, expectedDigest: body.fields.get('expected_digest') ?? null };
    },
    project: (req) => req.projectId,
    run: (req, { engine }) => createFile(engine, req.projectId, req.file, req.expectedDigest),
  });
}

export const fileCreateRoute = fileUploadRoute('/file/create');
export const filesCreateRoute = fileUploadRoute('/files/create');

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
