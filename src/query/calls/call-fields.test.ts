import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createEngine } from '../../engine.ts';
import { TqError } from '../../core/errors.ts';
import { parseCallRecord } from '../../load/calls/call-record.ts';
import { CallFieldResolver } from './call-fields.ts';
import { MISSING, readPath } from './json-path.ts';
import { parseExact } from '../../core/json/exact.ts';
import { jsonValueString } from '../../core/ch/values.ts';

function resolver() {
  const engine = createEngine();
  const rec = { id: 'a', project_id: 'e/p', op_name: 'weave:///e/p/op/chat:abc', trace_id: 't', started_at: '2024-01-01T00:00:00Z', ended_at: '2024-01-01T00:00:01.5Z', inputs: { x: 1 } };
  const { projectId, record } = parseCallRecord(rec, 'svc_');
  const bytes = Buffer.from(JSON.stringify(rec));
  const project = engine.store.projectForWrite(projectId);
  project.calls.load(record, bytes, 0, bytes.length);
  return new CallFieldResolver({ store: engine.store, project, fieldPrefix: 'svc_', expandColumns: [], canRead: () => true });
}

const refusal = (path: string) => {
  try {
    resolver().resolve(path, ['body', 'sort_by', 0, 'field']);
  } catch (e) {
    assert.ok(e instanceof TqError);
    return { status: e.status, code: e.code, body: e.body(), path: e.path };
  }
  assert.fail(`${path} resolved`);
};

test('semantics.md#errors-422-field: names of Object.prototype members are unknown fields (422), not methods', () => {
  for (const path of ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf']) {
    assert.deepEqual(refusal(path), { status: 422, code: 'TQ_FIELD_NOT_ALLOWED', body: { reason: `Field ${path} is not allowed` }, path: ['body', 'sort_by', 0, 'field'] });
  }
});

test('semantics.md#calls-summary-filter: the three computed summary fields read from columns', () => {
  const r = resolver();
  const status = r.resolve('summary.weave.status');
  const latency = r.resolve('summary.weave.latency_ms');
  const name = r.resolve('summary.weave.trace_name');
  assert.ok(status.kind === 'string' && latency.kind === 'number' && name.kind === 'string');
  assert.deepEqual([status.get(0), latency.get(0), name.get(0)], ['success', 1500, 'chat']);
});

test('semantics.md#calls-summary-filter: any other summary.weave field is a 422 listing the supported ones', () => {
  for (const field of ['costs', 'feedback', 'display_name', 'constructor', '']) {
    assert.deepEqual(refusal(`summary.weave.${field}`), {
      status: 422,
      code: 'TQ_SUMMARY_FIELD_NOT_ALLOWED',
      body: { reason: `Summary field '${field}' is not allowed. Supported fields are: latency_ms, status, trace_name` },
      path: ['body', 'sort_by', 0, 'field'],
    });
  }
});

test('readsJson: paths under a dynamic root or feedback parse JSON per row; columns and computed summary fields do not', () => {
  const r = resolver();
  for (const path of ['inputs', 'inputs.x', 'output', 'attributes.env', 'summary', 'summary.usage', 'summary.weave', 'feedback.[*].payload.x']) assert.equal(r.readsJson(path), true, path);
  for (const path of ['id', 'op_name', 'summary.weave.status', 'inputsx.y', 'started_at', 'outputs']) assert.equal(r.readsJson(path), false, path);
});

test('paths below one part share one walk per row and each reads what parsing the part gives (repeated and escaped keys, nesting, missing, non-objects)', () => {
  const engine = createEngine();
  const project = engine.store.projectForWrite('e/p');
  const inputsTexts = [
    '{"model":"a","max_tokens":1,"model":"b"}',
    '{ "m\\u006fdel" : "esc", "max_tokens" : "512" , "cfg":{"x":{"y":[1,2]},"x":{"y":"last"}}}',
    '{"cfg":{"x":null},"n":[{"model":"deep"}]}',
    '{}',
    'null',
    '{"model":{"inner":1},"max_tokens":-1.5e3,"é":"clef 𝄞"}',
  ];
  inputsTexts.forEach((inputs, i) => {
    const text = `{"id":"c${i}","project_id":"e/p","op_name":"weave:///e/p/op/f:abc","trace_id":"t","started_at":"2024-01-01T00:00:00Z","inputs":${inputs}}`;
    const { record } = parseCallRecord(JSON.parse(text), 'svc_');
    const bytes = Buffer.from(text);
    project.calls.load(record, bytes, 0, bytes.length);
  });
  const r = new CallFieldResolver({ store: engine.store, project, fieldPrefix: 'svc_', expandColumns: [], canRead: () => true });
  const paths = ['inputs.model', 'inputs.max_tokens', 'inputs.cfg.x.y', 'inputs.cfg.x', 'inputs.é', 'inputs.n.0.model'];
  const accessors = paths.map((p) => r.resolve(p));
  const expected = (inputs: string, path: string): string => {
    const v = readPath(parseExact(inputs), path.split('.').slice(1), 'json-value');
    const s = v === MISSING ? '' : jsonValueString(v);
    return s === 'null' ? '' : s;
  };
  // Rows read in turn, every path per row (the shared walk), then again backwards.
  const got: string[][] = inputsTexts.map(() => []);
  for (let row = 0; row < inputsTexts.length; row++) for (const [j, a] of accessors.entries()) got[row][j] = a.kind === 'json' ? a.str(row) : 'not json';
  assert.deepEqual(got, inputsTexts.map((inputs) => paths.map((p) => expected(inputs, p))));
  assert.deepEqual(got.map((g) => g.slice(0, 3)), [['b', '1', ''], ['esc', '512', 'last'], ['', '', ''], ['', '', ''], ['', '', ''], ['{"inner":1}', '-1500', '']]);
  const floats = inputsTexts.map((_, row) => (accessors[1].kind === 'json' ? accessors[1].float(row) : NaN));
  assert.deepEqual(floats, [1, 512, null, null, null, -1500]);
});
