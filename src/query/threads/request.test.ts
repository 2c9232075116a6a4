import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseIsoMicros } from '../../core/datetime.ts';
import { parseThreadsQuery } from './request.ts';
import { errorOf } from '../../core/errors.testing.ts';


test('semantics.md#threads-request: a minimal request', () => {
  assert.deepEqual(parseThreadsQuery({ project_id: 'e/p' }), {
    project_id: 'e/p',
    after_us: null,
    before_us: null,
    thread_ids: null,
    limit: null,
    offset: null,
    sort_by: [],
  });
});

test('semantics.md#threads-window: datetime bounds accept any ISO offset (converted to UTC µs) and unix seconds', () => {
  const req = parseThreadsQuery({
    project_id: 'e/p',
    filter: { after_datetime: '2024-05-01T14:00:00.5+02:00', before_datetime: 1714564800 },
  });
  assert.equal(req.after_us, parseIsoMicros('2024-05-01T12:00:00.500000Z'));
  assert.equal(req.before_us, parseIsoMicros('2024-05-01T12:00:00Z'));
});

test('semantics.md#empty-list-means-all: thread_ids [] means all threads; listed ids are de-duplicated; sort_by [] is the default', () => {
  assert.equal(parseThreadsQuery({ project_id: 'e/p', filter: { thread_ids: [] } }).thread_ids, null);
  assert.deepEqual(parseThreadsQuery({ project_id: 'e/p', filter: { thread_ids: ['b', 'a', 'b'] } }).thread_ids, ['b', 'a']);
  assert.deepEqual(parseThreadsQuery({ project_id: 'e/p', sort_by: [] }).sort_by, []);
});

test('semantics.md#threads-sort: each of the six fields is sortable, both directions', () => {
  for (const field of ['thread_id', 'turn_count', 'start_time', 'last_updated', 'p50_turn_duration_ms', 'p99_turn_duration_ms']) {
    assert.deepEqual(parseThreadsQuery({ project_id: 'e/p', sort_by: [{ field, direction: 'asc' }] }).sort_by, [{ field, direction: 'asc' }]);
  }
});

test('semantics.md#threads-sort, semantics.md#errors-catalogue: first_turn_id and unknown sort fields → 400 "Unsupported sort field"', () => {
  for (const field of ['first_turn_id', 'last_turn_id', 'foo', '']) {
    const e = errorOf(() => parseThreadsQuery({ project_id: 'e/p', sort_by: [{ field, direction: 'desc' }] }));
    assert.equal(e.status, 400);
    assert.equal(e.code, 'TQ_THREAD_SORT_FIELD');
    assert.deepEqual(e.body(), {
      reason: `Unsupported sort field: ${field}. Supported fields: ['thread_id', 'turn_count', 'start_time', 'last_updated', 'p50_turn_duration_ms', 'p99_turn_duration_ms']`,
    });
  }
});

test('semantics.md#threads-request, semantics.md#errors-422: a direction other than asc/desc, or `order` instead of `direction`, is a 422', () => {
  const bad = errorOf(() => parseThreadsQuery({ project_id: 'e/p', sort_by: [{ field: 'turn_count', direction: 'DESC' }] }));
  assert.equal(bad.status, 422);
  assert.deepEqual(bad.body(), {
    detail: [
      {
        type: 'literal_error',
        loc: ['body', 'sort_by', 0, 'direction'],
        msg: "Input should be 'asc' or 'desc'",
        input: 'DESC',
        ctx: { expected: "'asc' or 'desc'" },
      },
    ],
  });
  const order = errorOf(() => parseThreadsQuery({ project_id: 'e/p', sort_by: [{ field: 'turn_count', order: 'desc' }] }));
  assert.equal(order.status, 422);
  assert.deepEqual(
    (order.body() as { detail: Array<{ type: string; loc: unknown[] }> }).detail.map((d) => [d.type, d.loc]),
    [
      ['missing', ['body', 'sort_by', 0, 'direction']],
      ['extra_forbidden', ['body', 'sort_by', 0, 'order']],
    ],
  );
});

test('semantics.md#wire-strict-models: thread_ids at the top level is an unknown key (422); so is an unknown filter key', () => {
  const e = errorOf(() => parseThreadsQuery({ project_id: 'e/p', thread_ids: ['t'] }));
  assert.equal(e.status, 422);
  assert.deepEqual(e.body(), {
    detail: [{ type: 'extra_forbidden', loc: ['body', 'thread_ids'], msg: 'Extra inputs are not permitted', input: ['t'] }],
  });
  const f = errorOf(() => parseThreadsQuery({ project_id: 'e/p', filter: { turn_ids: [] } }));
  assert.equal(f.status, 422);
  assert.deepEqual((f.body() as { detail: Array<{ loc: unknown }> }).detail[0].loc, ['body', 'filter', 'turn_ids']);
});

test('semantics.md#errors-422: a datetime that does not parse is a 422 on its location', () => {
  const e = errorOf(() => parseThreadsQuery({ project_id: 'e/p', filter: { after_datetime: 'yesterday' } }));
  assert.equal(e.status, 422);
  const [issue] = (e.body() as { detail: Array<{ type: string; loc: unknown[]; input: unknown }> }).detail;
  assert.equal(issue.type, 'datetime_from_date_parsing');
  assert.deepEqual(issue.loc, ['body', 'filter', 'after_datetime']);
  assert.equal(issue.input, 'yesterday');
  const t = errorOf(() => parseThreadsQuery({ project_id: 'e/p', filter: { before_datetime: true } }));
  assert.equal((t.body() as { detail: Array<{ type: string }> }).detail[0].type, 'datetime_type');
});

test('semantics.md#errors-422: thread datetimes are refused in speedate\'s words, as call writes are', () => {
  const detail = (v: unknown) => (errorOf(() => parseThreadsQuery({ project_id: 'e/p', filter: { after_datetime: v } })).body() as { detail: unknown[] }).detail;
  assert.deepEqual(detail('2024-13-01'), [
    {
      type: 'datetime_from_date_parsing',
      loc: ['body', 'filter', 'after_datetime'],
      msg: 'Input should be a valid datetime or date, month value is outside expected range of 1-12',
      input: '2024-13-01',
      ctx: { error: 'month value is outside expected range of 1-12' },
    },
  ]);
  // pydantic takes no surrounding blanks (the bound used to be trimmed).
  assert.equal((detail(' 2024-01-01')[0] as { msg: string }).msg, 'Input should be a valid datetime or date, invalid character in year');
  assert.equal((detail('2024-01-01T00:00:00 Z')[0] as { msg: string }).msg, 'Input should be a valid datetime or date, unexpected extra characters at the end of the input');
});

test('semantics.md#paging-limits: negative limit or offset → 400', () => {
  const l = errorOf(() => parseThreadsQuery({ project_id: 'e/p', limit: -1 }));
  assert.equal(l.status, 400);
  assert.deepEqual(l.body(), { reason: 'Limit must be a positive integer' });
  const o = errorOf(() => parseThreadsQuery({ project_id: 'e/p', offset: -1 }));
  assert.equal(o.status, 400);
  assert.deepEqual(o.body(), { reason: 'Offset must be a positive integer' });
});
