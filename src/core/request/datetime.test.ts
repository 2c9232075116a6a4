import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ValidationIssue } from '../errors.ts';
import { LosslessNumber } from '../json/lossless.ts';
import { INVALID } from '../schema.ts';
import { datetime } from './datetime.ts';

/** The µs a value validates to, or `type|msg` of its one issue. */
function outcome(value: unknown): string {
  const issues: ValidationIssue[] = [];
  const r = datetime().check(value, ['body', 'd'], issues);
  if (r === INVALID) {
    assert.equal(issues.length, 1);
    assert.deepEqual(issues[0].loc, ['body', 'd']);
    assert.equal(issues[0].input, value);
    return `${issues[0].type}|${issues[0].msg}`;
  }
  assert.equal(issues.length, 0);
  return `us ${r}`;
}

const text = (error: string) => `datetime_from_date_parsing|Input should be a valid datetime or date, ${error}`;
const parsing = (error: string) => `datetime_parsing|Input should be a valid datetime, ${error}`;
const SHORT = text('input is too short');
const EXTRA = text('unexpected extra characters at the end of the input');
const AFTER_9999 = 'dates after 9999 are not supported as unix timestamps';
const BEFORE_0000 = 'dates before 0000 are not supported as unix timestamps';
const JAN_1_2024 = 1_704_067_200_000_000;

// Every expectation was produced by pydantic 2.13.4 (`class M(BaseModel): d: datetime`),
// aware results converted to UTC and naive ones taken as UTC, as Weave does.
const CASES: Array<[unknown, string]> = [
  ['2024-01-01', `us ${JAN_1_2024}`],
  ['2024-01-01T00:00:00Z', `us ${JAN_1_2024}`],
  ['2024-01-01t00:00:00z', `us ${JAN_1_2024}`],
  ['2024-01-01_00:00:00', `us ${JAN_1_2024}`],
  ['2024-01-01 00:00', `us ${JAN_1_2024}`],
  ['2024-01-01T00:00Z', `us ${JAN_1_2024}`],
  ['2024-01-01T05:30:00+05:30', `us ${JAN_1_2024}`],
  ['2024-01-01T05:30:00+0530', `us ${JAN_1_2024}`],
  ['2024-01-01T00:00:00,5Z', `us ${JAN_1_2024 + 500_000}`],
  ['2024-01-01T00:00:00.1234567890123456789012Z', `us ${JAN_1_2024 + 123_456}`],
  ['0001-01-01T00:00:00+01:00', 'us -62135600400000000'],
  [' 2024-01-01', text('invalid character in year')],
  ['2024-01-01 ', EXTRA],
  ['2024-1-01', SHORT],
  ['202a-01-01', text('invalid character in year')],
  ['2024/01/01', text('invalid date separator, expected `-`')],
  ['2024-13-01', text('month value is outside expected range of 1-12')],
  ['2024-00-10', text('month value is outside expected range of 1-12')],
  ['2024-02-30', text('day value is outside expected range')],
  ['2024-01-00', text('day value is outside expected range')],
  ['2024-01-01X', EXTRA],
  ['2024-01-01Z', EXTRA],
  ['2024-01-01T', EXTRA],
  ['2024-01-01T25:00:00Z', EXTRA],
  ['2024-01-01T23:59:60Z', EXTRA],
  ['2024-01-01T00:00:00.', EXTRA],
  ['2024-01-01T00:00:00+05', EXTRA],
  ['2024-01-01T00:00:00 Z', EXTRA],
  ['2024-01-01T00:00:00+25:00', EXTRA],
  ['0000-01-01', parsing('year 0 is out of range')],
  ['0000-01-01T00:00:00+01:00', parsing('year 0 is out of range')],
  ['0000-13-01', text('month value is outside expected range of 1-12')],
  // Unix timestamps: seconds, or milliseconds above 2e10; as numbers or as text.
  [5.5, 'us 5500000'],
  [-1, 'us -1000000'],
  [20_000_000_000, 'us 20000000000000000'],
  [20_000_000_001, 'us 20000000001000'],
  ['123.5', 'us 123500000'],
  ['1.', 'us 1000000'],
  ['+.5', 'us 500000'],
  ['-.5', 'us -500000'],
  ['00000000000000000000001', 'us 1000000'],
  [' 123', SHORT],
  ['1e5', SHORT],
  ['.', SHORT],
  ['', SHORT],
  [253_402_300_799_999, 'us 253402300799999000'],
  [253_402_300_800_000, parsing(AFTER_9999)],
  ['253402300800000', text(AFTER_9999)],
  ['9223372036854775807', text(AFTER_9999)],
  // An integer part beyond i64 is no number to speedate: the text is read as a date.
  ['9223372036854775808', text('invalid date separator, expected `-`')],
  ['-9223372036854775809', text('invalid character in year')],
  [-62_135_596_800_000, 'us -62135596800000000'],
  [-62_135_596_800_001, parsing('year 0 is out of range')],
  ['-62135596800001', parsing('year 0 is out of range')],
  [-62_167_219_200_000, parsing('year 0 is out of range')],
  [-62_167_219_200_001, parsing(BEFORE_0000)],
  ['-62167219200001', text(BEFORE_0000)],
  [1e20, parsing(AFTER_9999)],
  [Infinity, parsing(AFTER_9999)],
  [-Infinity, parsing(BEFORE_0000)],
  [NaN, parsing('NaN values not permitted')],
  [true, 'datetime_type|Input should be a valid datetime'],
  [null, 'datetime_type|Input should be a valid datetime'],
  [[], 'datetime_type|Input should be a valid datetime'],
  [{}, 'datetime_type|Input should be a valid datetime'],
];

test('datetime: pydantic 2 lax datetime, with speedate and Python wording for every refusal', () => {
  for (const [value, expected] of CASES) assert.equal(outcome(value), expected, `for ${JSON.stringify(value)}`);
});

test('datetime: an exact big integer (beyond 2^53) is a timestamp like any number', () => {
  assert.equal(outcome(new LosslessNumber('12345678901234567890')), parsing(AFTER_9999));
});

test('datetime: the ctx of a refusal holds the bare reason', () => {
  const issues: ValidationIssue[] = [];
  datetime().check('2024-13-01', ['d'], issues);
  assert.deepEqual(issues[0].ctx, { error: 'month value is outside expected range of 1-12' });
});
