import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TqError } from '../core/errors.ts';
import { LosslessNumber } from '../core/json/lossless.ts';
import { losslessBody, plainBody, spelledBody } from './body.ts';
import type { RequestBody } from './types.ts';

const text = (t: string): RequestBody => ({ kind: 'text', text: t });
const parseError = (run: () => unknown) =>
  assert.throws(run, (e: unknown) => e instanceof TqError && e.status === 400 && JSON.stringify(e.body()) === '{"reason":"There was an error parsing the body"}');

test('semantics.md#writes-number-spelling: an integer of more than 4300 digits is the 400 FastAPI answers json.loads\'s ValueError with', () => {
  const digits = (n: number) => '7'.repeat(n);
  // 4300 digits, a long digit string and a long float are read.
  assert.equal((plainBody(text(`{"n":${digits(4300)},"s":"${digits(5000)}"}`)) as { n: LosslessNumber }).n.lexeme, digits(4300));
  assert.equal(Number.isFinite((plainBody(text(`[${digits(5000)}.0]`)) as number[])[0]), false);
  // 4301 digits, signed or not, anywhere in the body, through every parser.
  for (const parse of [plainBody, losslessBody, spelledBody]) {
    parseError(() => parse(text(`{"a":[1,{"n":-${digits(4301)}}]}`)));
    parseError(() => parse(text(`[NaN, ${digits(4301)}]`)));
  }
});
