import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseTableQuery, parseTableQueryStats } from './request.ts';
import { errorOf } from '../../core/errors.testing.ts';

const base = { project_id: 'e/p', digest: 'd' };


test('semantics.md#table-request: a minimal request; absent optionals mean no filter, no sort, no paging', () => {
  assert.deepEqual(parseTableQuery(base), {
    project_id: 'e/p',
    digest: 'd',
    row_digests: null,
    limit: null,
    offset: null,
    sort_by: [],
  });
});

test('semantics.md#empty-list-means-all: filter.row_digests [] and sort_by [] mean "no filter" and "default order"', () => {
  const req = parseTableQuery({ ...base, filter: { row_digests: [] }, sort_by: [] });
  assert.equal(req.row_digests, null);
  assert.deepEqual(req.sort_by, []);
  assert.deepEqual(parseTableQuery({ ...base, filter: { row_digests: ['x'] } }).row_digests, ['x']);
  assert.equal(parseTableQuery({ ...base, filter: null }).row_digests, null);
});

test('seed: sort items are {field, order}; the field is split on dots', () => {
  const req = parseTableQuery({ ...base, sort_by: [{ field: 'a.b c.0', order: 'desc' }] });
  assert.deepEqual(req.sort_by, [{ field: 'a.b c.0', path: ['a', 'b c', '0'], order: 'desc' }]);
});

test('semantics.md#table-sort-item: `direction` is an alias of `order`', () => {
  assert.deepEqual(parseTableQuery({ ...base, sort_by: [{ field: 'a', direction: 'asc' }] }).sort_by, [
    { field: 'a', path: ['a'], order: 'asc' },
  ]);
});

test('semantics.md#table-sort-item: both `order` and `direction` is a 422', () => {
  const e = errorOf(() => parseTableQuery({ ...base, sort_by: [{ field: 'a', order: 'asc', direction: 'asc' }] }));
  assert.equal(e.status, 422);
  assert.deepEqual(e.body(), {
    detail: [{ type: 'extra_forbidden', loc: ['body', 'sort_by', 0, 'direction'], msg: 'Extra inputs are not permitted', input: 'asc' }],
  });
});

test('semantics.md#table-sort-field: a sort item without an order is a 422 naming `order`', () => {
  const e = errorOf(() => parseTableQuery({ ...base, sort_by: [{ field: 'a' }] }));
  assert.equal(e.status, 422);
  assert.deepEqual(e.body(), {
    detail: [{ type: 'missing', loc: ['body', 'sort_by', 0, 'order'], msg: 'Field required', input: { field: 'a' } }],
  });
});

test('semantics.md#table-sort-field: an order other than asc/desc is a 422 literal_error', () => {
  const e = errorOf(() => parseTableQuery({ ...base, sort_by: [{ field: 'a', order: 'up' }] }));
  assert.equal(e.status, 422);
  assert.deepEqual(e.body(), {
    detail: [
      {
        type: 'literal_error',
        loc: ['body', 'sort_by', 0, 'order'],
        msg: "Input should be 'asc' or 'desc'",
        input: 'up',
        ctx: { expected: "'asc' or 'desc'" },
      },
    ],
  });
});

test('semantics.md#wire-strict-models: unknown keys are 422 on the strict models (row_digests belongs inside filter)', () => {
  const top = errorOf(() => parseTableQuery({ ...base, row_digests: ['x'] }));
  assert.equal(top.status, 422);
  assert.deepEqual(top.body(), {
    detail: [{ type: 'extra_forbidden', loc: ['body', 'row_digests'], msg: 'Extra inputs are not permitted', input: ['x'] }],
  });
  const inFilter = errorOf(() => parseTableQuery({ ...base, filter: { digests: [] } }));
  assert.equal(inFilter.status, 422);
  assert.deepEqual((inFilter.body() as { detail: Array<{ loc: unknown }> }).detail[0].loc, ['body', 'filter', 'digests']);
  const inSort = errorOf(() => parseTableQuery({ ...base, sort_by: [{ field: 'a', order: 'asc', nulls: 'last' }] }));
  assert.equal(inSort.status, 422);
});

test('semantics.md#table-request: project_id and digest are required', () => {
  const e = errorOf(() => parseTableQuery({ project_id: 'e/p' }));
  assert.equal(e.status, 422);
  assert.deepEqual(e.body(), {
    detail: [{ type: 'missing', loc: ['body', 'digest'], msg: 'Field required', input: { project_id: 'e/p' } }],
  });
});

test('semantics.md#table-sort-field: empty or whitespace-only sort field → 400 "Sort field cannot be empty"', () => {
  for (const field of ['', '   ', '\t\n']) {
    const e = errorOf(() => parseTableQuery({ ...base, sort_by: [{ field, order: 'asc' }] }));
    assert.equal(e.status, 400);
    assert.equal(e.code, 'TQ_TABLE_SORT_EMPTY');
    assert.deepEqual(e.body(), { reason: 'Sort field cannot be empty' });
  }
});

test('semantics.md#table-sort-field: leading, trailing or doubled dots → 400 with the field named', () => {
  for (const field of ['.a', 'a.', 'a..b', '.']) {
    const e = errorOf(() => parseTableQuery({ ...base, sort_by: [{ field, order: 'desc' }] }));
    assert.equal(e.status, 400);
    assert.deepEqual(e.body(), {
      reason: `Invalid sort field '${field}': field names cannot start/end with dots or contain consecutive dots`,
    });
  }
});

test('semantics.md#table-sort-field: a whitespace-only path component → 400 "field path components cannot be empty"', () => {
  const e = errorOf(() => parseTableQuery({ ...base, sort_by: [{ field: 'a. .b', order: 'asc' }] }));
  assert.equal(e.status, 400);
  assert.equal(e.code, 'TQ_TABLE_SORT_COMPONENT');
  assert.deepEqual(e.body(), { reason: "Invalid sort field 'a. .b': field path components cannot be empty" });
});

test('semantics.md#table-sort-field: the second sort term is validated too', () => {
  const e = errorOf(() =>
    parseTableQuery({ ...base, sort_by: [{ field: 'ok', order: 'asc' }, { field: 'x..y', order: 'asc' }] }),
  );
  assert.equal(e.status, 400);
  assert.deepEqual(e.path, ['body', 'sort_by', 1, 'field']);
});

test('semantics.md#paging-limits: negative limit or offset → 400; zero is allowed', () => {
  const l = errorOf(() => parseTableQuery({ ...base, limit: -1 }));
  assert.equal(l.status, 400);
  assert.deepEqual(l.body(), { reason: 'Limit must be a positive integer' });
  const o = errorOf(() => parseTableQuery({ ...base, offset: -3 }));
  assert.equal(o.status, 400);
  assert.deepEqual(o.body(), { reason: 'Offset must be a positive integer' });
  assert.equal(parseTableQuery({ ...base, limit: 0, offset: 0 }).limit, 0);
});

test('pydantic lax ints: "5" is a limit, 1.5 is a 422', () => {
  assert.equal(parseTableQuery({ ...base, limit: '5' }).limit, 5);
  assert.equal(errorOf(() => parseTableQuery({ ...base, limit: 1.5 })).status, 422);
});

test('semantics.md#table-stats: TableQueryStatsReq is strict', () => {
  assert.deepEqual(parseTableQueryStats(base), base);
  const e = errorOf(() => parseTableQueryStats({ ...base, limit: 1 }));
  assert.equal(e.status, 422);
  assert.deepEqual(e.body(), {
    detail: [{ type: 'extra_forbidden', loc: ['body', 'limit'], msg: 'Extra inputs are not permitted', input: 1 }],
  });
});
