import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createEngine } from '../../engine.ts';
import { TqError } from '../../core/errors.ts';
import { parseCallRecord } from '../../load/calls/call-record.ts';
import { CallFieldResolver } from './call-fields.ts';

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
