import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseQuery } from '../calls/expr/parse.ts';
import { checkPurgeShape } from './purge-shape.ts';

const MSG = 'route message';
const reason = (expr: unknown, allowIn = false): string | undefined => {
  try {
    checkPurgeShape(parseQuery({ $expr: expr }, ['body', 'query']), MSG, allowIn);
    return undefined;
  } catch (e) {
    return (e as Error).message;
  }
};
const id = { $getField: 'id' };

test('only ids may be purged; each wrong part is worded as production words it', () => {
  assert.equal(reason({ $eq: [id, { $literal: 'a' }] }), undefined);
  assert.equal(reason({ $or: [{ $eq: [id, { $literal: 'a' }] }, { $eq: [id, { $literal: 'b' }] }] }), undefined);
  assert.equal(reason({ $in: [id, [{ $literal: 'a' }]] }), MSG);
  assert.equal(reason({ $in: [id, [{ $literal: 'a' }]] }, true), undefined);
  assert.equal(reason({ $in: [id, [{ $literal: 1 }]] }, true), "Expected value of type <class 'str'>, got <class 'int'>");
  assert.equal(reason({ $eq: [{ $getField: 'feedback_type' }, { $literal: 'a' }] }), MSG);
  assert.equal(reason({ $eq: [{ $literal: 'a' }, id] }), 'Expected key get_field_, got literal_');
  assert.equal(reason({ $eq: [id, { $getField: 'x' }] }), 'Expected key literal_, got get_field_');
  assert.equal(reason({ $eq: [id, { $literal: null }] }), "Expected value of type <class 'str'>, got <class 'NoneType'>");
  assert.equal(reason({ $or: [{ $in: [id, [{ $literal: 'a' }]] }] }), 'Expected key eq_, got in_');
  assert.equal(reason({ $or: [{ $eq: [{ $getField: 'x' }, { $literal: 'a' }] }] }), 'Can only purge by specifying one or more ids');
  assert.equal(reason({ $and: [{ $eq: [id, { $literal: 'a' }] }] }), MSG);
  assert.equal(reason({ $contains: { input: id, substr: { $literal: 'a' } } }), MSG);
});
