import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TqError } from '../../core/errors.ts';
import { parseQuery } from '../calls/expr/parse.ts';
import { runOrmQuery } from './request.ts';
import { RowTable } from './rows.ts';

interface R { id: string; at: number; n: number | null; doc: unknown }
const table = new RowTable<R>(
  [
    { id: 'a', at: 3_000_000, n: 2, doc: { s: 'x', v: 10, o: { k: [1, 2] } } },
    { id: 'b', at: 1_000_000, n: null, doc: { v: 9 } },
    { id: 'c', at: 2_000_000, n: 1, doc: { s: 'y', v: 'text', o: null } },
  ],
  [
    { name: 'id', kind: 'string', get: (r) => r.id },
    { name: 'at', kind: 'datetime', get: (r) => r.at },
    { name: 'n', kind: 'number', get: (r) => r.n },
    { name: 'doc', kind: 'json', get: (r) => r.doc },
  ],
);
const ids = (rows: Array<Record<string, unknown>>) => rows.map((r) => r.id);
const where = (expr: unknown) => parseQuery({ $expr: expr }, ['body', 'query']);

test('selects columns and JSON paths (JSON_VALUE text), datetimes as ISO', () => {
  assert.deepEqual(runOrmQuery(table, { fields: ['id', 'at', 'doc.s', 'doc.o.k', 'doc.o.k.1', 'doc'] }, null)[0], {
    id: 'a',
    at: '1970-01-01T00:00:03Z',
    'doc.s': 'x',
    'doc.o.k': '[1,2]',
    'doc.o.k.1': '2',
    doc: { s: 'x', v: 10, o: { k: [1, 2] } },
  });
  assert.deepEqual(runOrmQuery(table, { fields: ['doc.s'] }, null), [{ 'doc.s': 'x' }, { 'doc.s': '' }, { 'doc.s': 'y' }]);
});

test('filters with the calls compiler: typed casts on JSON paths, datetime literals', () => {
  assert.deepEqual(ids(runOrmQuery(table, {}, where({ $gt: [{ $getField: 'doc.v' }, { $literal: 9.5 }] }))), ['a']);
  assert.deepEqual(ids(runOrmQuery(table, {}, where({ $eq: [{ $getField: 'doc.s' }, { $literal: '' }] }))), ['b']);
  assert.deepEqual(ids(runOrmQuery(table, {}, where({ $gte: [{ $getField: 'at' }, { $literal: '1970-01-01T00:00:02Z' }] }))), ['a', 'c']);
  assert.deepEqual(ids(runOrmQuery(table, {}, where({ $gt: [{ $getField: 'n' }, { $literal: 1 }] }))), ['a']);
});

test('sorts JSON paths by existence, then number, then text; pages; checks names first', () => {
  // c's doc.o is JSON null: it exists (JSON_EXISTS), b has no doc.o at all.
  assert.deepEqual(ids(runOrmQuery(table, { sort_by: [{ field: 'doc.o', direction: 'asc' }] }, null)), ['c', 'a', 'b']);
  assert.deepEqual(ids(runOrmQuery(table, { sort_by: [{ field: 'doc.v', direction: 'desc' }] }, null)), ['a', 'b', 'c']);
  assert.deepEqual(ids(runOrmQuery(table, { sort_by: [{ field: 'at', direction: 'asc' }], limit: 1, offset: 1 }, null)), ['c']);
  assert.deepEqual(ids(runOrmQuery(table, { sort_by: [{ field: 'n', direction: 'asc' }] }, null)), ['c', 'a', 'b']);
  const fail = (f: () => unknown) => {
    try {
      f();
    } catch (e) {
      return [(e as TqError).status, (e as TqError).message];
    }
    return null;
  };
  assert.deepEqual(fail(() => runOrmQuery(table, { fields: ['nope'] }, null)), [400, 'Unknown field: nope']);
  assert.deepEqual(fail(() => runOrmQuery(table, { fields: ['id.x'] }, null)), [400, 'Unknown field: id.x']);
  assert.deepEqual(fail(() => runOrmQuery(table, { sort_by: [{ field: 'zz', direction: 'asc' }] }, null)), [400, 'Unknown field: zz']);
  assert.deepEqual(fail(() => runOrmQuery(table, {}, where({ $eq: [{ $getField: 'zz' }, { $literal: 1 }] }))), [400, 'Unknown field: zz']);
  assert.deepEqual(fail(() => runOrmQuery(table, { limit: -1 }, null)), [400, 'Limit must be non-negative']);
  assert.deepEqual(fail(() => runOrmQuery(table, { offset: -1 }, null)), [400, 'Offset must be non-negative']);
});
