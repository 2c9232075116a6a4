import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createEngine } from '../engine.ts';
import { runRoute } from '../api/run-route.ts';
import { callsStreamQueryRoute } from '../query/calls/route.ts';
import { boundEcho, boundString, DETAIL_MAX_CHARS, ECHO_MAX_CHARS, MAX_ISSUES } from './echo.ts';
import { RequestSchemaError, TqError } from './errors.ts';
import { LosslessNumber } from './json/lossless.ts';

test('echoes that fit are kept as they are', () => {
  const small = { a: [1, 'x', null, true, { b: 2 }] };
  assert.equal(boundEcho(small), small);
  assert.equal(boundEcho('short'), 'short');
  assert.equal(boundEcho(5), 5);
  assert.equal(boundEcho(null), null);
  assert.equal(boundEcho(undefined), undefined);
  const big = new LosslessNumber('123456789012345678901234567890');
  assert.equal(boundEcho(big), big);
  assert.equal(boundEcho([big, 'x'.repeat(20)], 30), '[1.2345678901234568e+29,"xxxxx…');
});

test('long strings are cut to ECHO_MAX_CHARS characters plus …, never inside a surrogate pair', () => {
  assert.equal(boundString('x'.repeat(5000)), 'x'.repeat(ECHO_MAX_CHARS) + '…');
  const emoji = 'x'.repeat(ECHO_MAX_CHARS - 1) + '😀'.repeat(10);
  assert.equal(boundString(emoji), 'x'.repeat(ECHO_MAX_CHARS - 1) + '…');
  assert.equal(boundString('abcdef', 3), 'abc…');
});

test('long arrays and objects become the start of their JSON text plus …', () => {
  assert.equal(boundEcho({ k: 'v'.repeat(50) }, 10), '{"k":"vvvv…');
  assert.equal(boundEcho([1, 2, 3, 4, 5, 6, 7, 8, 9], 6), '[1,2,3…');
  assert.equal(boundEcho([undefined, () => 1, 'a'], 8), '[null,nu…');
  assert.equal(boundEcho([[1], { a: {} }, 'x'.repeat(30)], 20), '[[1],{"a":{}},"xxxxx…');
  // Deep values are walked with a loop (no recursion), and only as far as the bound.
  let deep: unknown = 0;
  for (let i = 0; i < 200_000; i++) deep = [deep];
  assert.equal(boundEcho(deep), '['.repeat(ECHO_MAX_CHARS) + '…');
  const wide = Object.fromEntries(Array.from({ length: 100_000 }, (_, i) => [`k${i}`, i]));
  const echoed = boundEcho(wide) as string;
  assert.equal(echoed.length, ECHO_MAX_CHARS + 1);
  assert.ok(echoed.startsWith('{"k0":0,"k1":1,'));
});

test('a 422 lists at most MAX_ISSUES issues and DETAIL_MAX_CHARS of JSON, with bounded inputs and loc keys', () => {
  const many = new RequestSchemaError(Array.from({ length: 3000 }, (_, i) => ({ type: 't', loc: ['body', i], msg: 'm', input: i })));
  assert.equal(many.issues.length, MAX_ISSUES);
  const err = new RequestSchemaError(
    Array.from({ length: 1000 }, () => ({ type: 't', loc: ['body', 'k'.repeat(3000), 7], msg: 'm', input: 'v'.repeat(3000) })),
  );
  const detail = (err.body() as { detail: Array<{ loc: unknown[]; input: string }> }).detail;
  assert.deepEqual(detail[7].loc, ['body', 'k'.repeat(ECHO_MAX_CHARS) + '…', 7]);
  assert.equal(detail[7].input, 'v'.repeat(ECHO_MAX_CHARS) + '…');
  const each = JSON.stringify(detail[7]).length;
  assert.equal(detail.length, Math.floor(DETAIL_MAX_CHARS / each));
  // One issue larger than the budget is still listed.
  const huge = new RequestSchemaError([{ type: 't', loc: Array.from({ length: 1100 }, () => 'k'.repeat(1000)), msg: 'm' }, { type: 't', loc: [], msg: 'm' }]);
  assert.equal(huge.issues.length, 1);
});

test('issue 11: a 10 MB bad key gives a small 422, and 200k unknown keys do not make 200k issues', () => {
  const key = 'k'.repeat(10_000_000);
  const text = `{"project_id":"e/p","${key}":"${'v'.repeat(1_000_000)}"}`;
  let err: unknown;
  try {
    runRoute(callsStreamQueryRoute, createEngine(), { kind: 'text', text }, { userId: 'u', authorize() {}, canRead: () => true });
  } catch (e) {
    err = e;
  }
  assert.ok(err instanceof TqError && err.status === 422);
  const body = JSON.stringify(err.body());
  assert.ok(body.length < 2 * ECHO_MAX_CHARS + 200, `error body is ${body.length} characters`);
  assert.deepEqual(JSON.parse(body), {
    detail: [{ type: 'extra_forbidden', loc: ['body', 'k'.repeat(ECHO_MAX_CHARS) + '…'], msg: 'Extra inputs are not permitted', input: 'v'.repeat(ECHO_MAX_CHARS) + '…' }],
  });
  const many = `{"project_id":"e/p",${Array.from({ length: 200_000 }, (_, i) => `"x${i}":0`).join(',')}}`;
  try {
    runRoute(callsStreamQueryRoute, createEngine(), { kind: 'text', text: many }, { userId: 'u', authorize() {}, canRead: () => true });
  } catch (e) {
    err = e;
  }
  assert.ok(err instanceof RequestSchemaError);
  assert.equal(err.issues.length, MAX_ISSUES);
  assert.deepEqual(err.issues[MAX_ISSUES - 1].loc, ['body', `x${MAX_ISSUES - 1}`]);
});
