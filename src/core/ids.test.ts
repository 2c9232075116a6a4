/** UUIDv7 ids (ids.ts): the layout, the time they carry, their order, and fresh random bits for each. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { uuidv7 } from './ids.ts';

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
/** The millisecond time in an id's first 48 bits. */
const timeOf = (id: string) => parseInt(id.slice(0, 8) + id.slice(9, 13), 16);

test('uuidv7: version 7, variant 10, the time in the first 48 bits, ordered, random bits fresh across pool refills', () => {
  // Later than any id drawn before in this process: the time is taken as given.
  const ms = Date.now() + 10 * 365 * 86_400_000 + 0x1234567;
  const first = uuidv7(ms);
  assert.match(first, UUID_V7);
  assert.equal(timeOf(first), ms);
  assert.equal(first.slice(14, 18), '7000');
  // Within one millisecond the 12-bit counter keeps them ordered; past 4096 the time moves on.
  const ids = [first];
  for (let i = 0; i < 10_000; i++) ids.push(uuidv7(ms));
  for (const id of ids) assert.match(id, UUID_V7);
  assert.deepEqual([...ids].sort(), ids);
  assert.equal(new Set(ids).size, ids.length);
  assert.equal(timeOf(ids[4095]), ms);
  assert.equal(timeOf(ids[4096]), ms + 1);
  // The random tails differ (drawn from three fills of the pool).
  assert.equal(new Set(ids.map((id) => id.slice(19))).size, ids.length);
  // An earlier time does not go back.
  assert.ok(uuidv7(ms - 1000) > ids[ids.length - 1]);
});
