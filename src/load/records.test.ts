import assert from 'node:assert/strict';
import { test } from 'node:test';
import { testEngine } from '../write/writes.testing.ts';
import { RecordProblem } from './calls/call-record.ts';
import { loadCostRecord, loadFeedbackRecord, loadObjectRecord, loadTableRecord } from './records.ts';

const T12 = 'ef58432d13add22b5a18d3888ccc0b83707cda76e23187022a4bc3eb42a8ec78';
const TABLE = '{"project_id":"acme/proj","rows":[{"a":1},{"b":"x","a":[1,2.5,null,true]}]}';

function problem(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    assert.ok(e instanceof RecordProblem, `expected a RecordProblem, got ${String(e)}`);
    return e.message;
  }
  assert.fail('expected a RecordProblem');
}

test('tables: a record is stored as /table/create stores it (semantics.md#digest-vectors digest)', () => {
  const e = testEngine();
  assert.deepEqual(loadTableRecord(e, TABLE), { digest: T12 });
  assert.equal(e.store.project('acme/proj')!.tables.get(T12)!.length, 2);
  assert.deepEqual(loadTableRecord(e, TABLE.replace('}]}', `}],"digest":"${T12}"}`)), { digest: T12 });
});

test('tables: a digest that does not match names both digests and stores nothing', () => {
  const e = testEngine();
  assert.equal(
    problem(() => loadTableRecord(e, TABLE.replace('}]}', '}],"digest":"abc"}'))),
    `table digest mismatch: the record says abc, its rows digest to ${T12}`,
  );
  assert.equal(e.store.project('acme/proj'), undefined);
});

test('every loader: bad JSON is reported with Python\'s json wording', () => {
  const e = testEngine();
  const msg = "invalid JSON: Expecting ',' delimiter: line 1 column 19 (char 18)";
  for (const load of [loadTableRecord, loadObjectRecord, loadFeedbackRecord, loadCostRecord]) {
    assert.equal(problem(() => load(e, '{"project_id":"a" "b"}')), msg);
  }
});

test('every loader: a missing or malformed project_id, and a record that is not an object', () => {
  const e = testEngine();
  assert.equal(problem(() => loadTableRecord(e, '{"rows":[]}')), 'missing project_id');
  assert.equal(problem(() => loadObjectRecord(e, '{"object_id":"o","val":1}')), 'missing project_id');
  assert.equal(problem(() => loadFeedbackRecord(e, '{"weave_ref":"r","feedback_type":"t","payload":{}}')), 'missing project_id');
  assert.equal(problem(() => loadCostRecord(e, '{"costs":{}}')), 'missing project_id');
  assert.equal(problem(() => loadTableRecord(e, '{"project_id":"noslash","rows":[]}')), "invalid project_id 'noslash': expected the form <entity>/<project>");
  assert.equal(problem(() => loadCostRecord(e, '[1]')), 'a cost record must be a JSON object');
});

test('tables: wrong types and unknown fields', () => {
  const e = testEngine();
  assert.equal(problem(() => loadTableRecord(e, '{"project_id":"a/b"}')), 'missing rows');
  assert.equal(problem(() => loadTableRecord(e, '{"project_id":"a/b","rows":{}}')), 'rows must be a list of JSON objects');
  assert.equal(problem(() => loadTableRecord(e, '{"project_id":"a/b","rows":[{},2]}')), 'rows[1] must be a JSON object');
  assert.equal(problem(() => loadTableRecord(e, '{"project_id":"a/b","rows":[],"digest":5}')), 'digest must be a string or null');
  assert.equal(
    problem(() => loadTableRecord(e, '{"project_id":"a/b","rows":[],"row":1}')),
    'unknown field row in a table record (allowed: project_id, rows, digest)',
  );
});

test('objects: versions, created_at and user as /obj/create; object id problems pass through', () => {
  const e = testEngine();
  loadObjectRecord(e, '{"project_id":"a/b","object_id":"o","val":{"x":1},"created_at":"2024-01-01T00:00:00Z","svc_user_id":"carol"}');
  loadObjectRecord(e, '{"project_id":"a/b","object_id":"o","val":{"x":1.0}}');
  const versions = e.store.project('a/b')!.objects.get('o')!;
  assert.deepEqual(versions.map((v) => [v.versionIndex, v.isLatest, v.createdAtUs]), [
    [0, false, Date.UTC(2024, 0, 1) * 1000],
    [1, true, 1_717_243_200_000_000],
  ]);
  assert.equal(problem(() => loadObjectRecord(e, '{"project_id":"a/b","object_id":"o"}')), 'missing val');
  assert.equal(problem(() => loadObjectRecord(e, '{"project_id":"a/b","object_id":7,"val":1}')), 'object_id must be a non-empty string');
  assert.equal(problem(() => loadObjectRecord(e, '{"project_id":"a/b","object_id":"o","val":1,"created_at":"later"}')), 'created_at must be an ISO 8601 date-time, got "later"');
  assert.match(problem(() => loadObjectRecord(e, '{"project_id":"a/b","object_id":"a b","val":1}')), /^Invalid object name: a b\. Contains invalid characters: \[' '\]/);
});

test('feedback: stored with the fixture\'s user and time; user required; payload an object', () => {
  const e = testEngine();
  loadFeedbackRecord(e, '{"project_id":"a/b","weave_ref":"weave:///a/b/call/c1","feedback_type":"custom","payload":{"s":1},"svc_user_id":"carol","id":"f1","created_at":"2024-01-01T00:00:00Z"}');
  const [row] = e.store.project('a/b')!.feedback;
  assert.deepEqual([row.id, row.user_id, row.created_at], ['f1', 'carol', Date.UTC(2024, 0, 1) * 1000]);
  assert.equal(problem(() => loadFeedbackRecord(e, '{"project_id":"a/b","weave_ref":"r","feedback_type":"t","payload":{}}')), 'missing svc_user_id');
  assert.equal(problem(() => loadFeedbackRecord(e, '{"project_id":"a/b","weave_ref":"r","feedback_type":"t","payload":[],"svc_user_id":"u"}')), 'payload must be a JSON object');
  // An integer beyond 2^53 is parsed as an exact number object; it is a number, not a JSON object.
  assert.equal(problem(() => loadFeedbackRecord(e, '{"project_id":"a/b","weave_ref":"r","feedback_type":"t","payload":12345678901234567890,"svc_user_id":"u"}')), 'payload must be a JSON object');
  assert.equal(problem(() => loadCostRecord(e, '{"project_id":"a/b","costs":{"m":12345678901234567890}}')), 'costs.m must be a JSON object');
  assert.equal(
    problem(() => loadFeedbackRecord(e, '{"project_id":"a/b","weave_ref":"r","feedback_type":"wandb.note.1","payload":{"note":""},"svc_user_id":"u"}')),
    'Invalid payload for feedback_type wandb.note.1: note: String should have at least 1 character',
  );
});

test('costs: project price rows as /cost/create makes them, cache prices allowed; type problems name the path', () => {
  const e = testEngine();
  loadCostRecord(e, '{"project_id":"a/b","costs":{"m":{"prompt_token_cost":1,"completion_token_cost":2,"cache_read_input_token_cost":0.5}},"created_at":"2024-01-01T00:00:00Z","svc_user_id":"ops"}');
  const [row] = e.store.prices;
  assert.deepEqual(
    [row.pricing_level, row.pricing_level_id, row.llm_id, row.effective_date, row.cache_read_input_token_cost, row.created_by],
    ['project', 'a/b', 'm', Date.UTC(2024, 0, 1) * 1000, 0.5, 'ops'],
  );
  assert.equal(problem(() => loadCostRecord(e, '{"project_id":"a/b"}')), 'missing costs');
  assert.equal(problem(() => loadCostRecord(e, '{"project_id":"a/b","costs":{"m":{"completion_token_cost":2}}}')), 'missing costs.m.prompt_token_cost');
  assert.equal(problem(() => loadCostRecord(e, '{"project_id":"a/b","costs":{"m":{"prompt_token_cost":"1","completion_token_cost":2}}}')), 'costs.m.prompt_token_cost must be a number');
  assert.equal(problem(() => loadCostRecord(e, '{"project_id":"a/b","costs":{"m":{"prompt_token_cost":1,"completion_token_cost":2,"provider_id":3}}}')), 'costs.m.provider_id must be a string or null');
  assert.equal(problem(() => loadCostRecord(e, '{"project_id":"a/b","costs":{"m":{"prompt_token_cost":1,"completion_token_cost":2,"x":3}}}')), 'unknown field costs.m.x');
});
