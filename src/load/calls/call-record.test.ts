import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LosslessNumber } from '../../core/json/lossless.ts';
import { parseCallRecord, RecordProblem } from './call-record.ts';

const base = { id: 'a', project_id: 'e/p', op_name: 'op', trace_id: 't', started_at: '2024-01-01T00:00:00Z' };

test('fixture records may spell user/run fields svc_ or wb_ whatever the engine prefix', () => {
  assert.equal(parseCallRecord({ ...base, svc_user_id: 'u' }, 'wb_').record.user_id, 'u');
  assert.equal(parseCallRecord({ ...base, wb_user_id: 'u', wb_run_step: 3 }, 'svc_').record.run_step, 3);
  assert.throws(() => parseCallRecord({ ...base, wb_user_id: 'u', svc_user_id: 'v' }, 'svc_'), new RecordProblem('both svc_user_id and wb_user_id are given'));
});

test('call record problems name the field', () => {
  assert.throws(() => parseCallRecord([], 'svc_'), new RecordProblem('a call record must be a JSON object'));
  assert.throws(() => parseCallRecord({ ...base, project_id: 'nope' }, 'svc_'), new RecordProblem("invalid project_id 'nope': expected the form <entity>/<project>"));
  assert.throws(() => parseCallRecord({ ...base, started_at: 'yesterday' }, 'svc_'), new RecordProblem('started_at must be an ISO 8601 date-time, got "yesterday"'));
  assert.throws(() => parseCallRecord({ ...base, inputs: [] }, 'svc_'), new RecordProblem('inputs must be an object or null'));
  assert.throws(() => parseCallRecord({ ...base, inputs: new LosslessNumber('12345678901234567890') }, 'svc_'), new RecordProblem('inputs must be an object or null'));
  assert.throws(() => parseCallRecord({ ...base, svc_run_step: 1.5 }, 'svc_'), new RecordProblem('svc_run_step must be an integer or null'));
  assert.throws(() => parseCallRecord({ ...base, id: '' }, 'svc_'), new RecordProblem('id must be a non-empty string'));
});
