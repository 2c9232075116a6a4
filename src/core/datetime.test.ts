import assert from 'node:assert/strict';
import { test } from 'node:test';
import { floorMillis, formatMicros, parseDatetimeInput, parseIsoMicros, timedeltaMillis } from './datetime.ts';

test('parses Z, offsets and naive times (naive = UTC)', () => {
  const z = parseIsoMicros('2024-05-01T12:00:00Z');
  assert.equal(z, Date.UTC(2024, 4, 1, 12) * 1000);
  assert.equal(parseIsoMicros('2024-05-01T12:00:00'), z);
  assert.equal(parseIsoMicros('2024-05-01T14:30:00+02:30'), z);
  assert.equal(parseIsoMicros('2024-05-01T07:00:00-0500'), z);
  assert.equal(parseIsoMicros('2024-05-01 12:00:00z'), z);
});

test('keeps microseconds and truncates finer fractions', () => {
  assert.equal(parseIsoMicros('2024-05-01T12:00:00.123456789Z') % 1_000_000, 123456);
  assert.equal(parseIsoMicros('2024-05-01T12:00:00.5Z') % 1_000_000, 500000);
});

test('rejects impossible dates and junk', () => {
  for (const bad of ['2024-02-30T00:00:00Z', '2023-02-29', '2024-13-01', '2024-05-01T24:00:00Z', 'yesterday', '', '2024-05-01T12:00:00+25:00']) {
    assert.ok(Number.isNaN(parseIsoMicros(bad)), bad);
  }
  assert.equal(parseIsoMicros('2024-02-29'), Date.UTC(2024, 1, 29) * 1000);
});

test('formats as semantics.md#wire-datetimes: Z suffix, microseconds only when non-zero', () => {
  assert.equal(formatMicros(Date.UTC(2024, 4, 1, 12) * 1000), '2024-05-01T12:00:00Z');
  assert.equal(formatMicros(Date.UTC(2024, 4, 1, 12) * 1000 + 123456), '2024-05-01T12:00:00.123456Z');
  assert.equal(formatMicros(Date.UTC(2024, 4, 1, 12) * 1000 + 1000), '2024-05-01T12:00:00.001000Z');
  assert.equal(formatMicros(-1), '1969-12-31T23:59:59.999999Z');
  assert.equal(formatMicros(0), '1970-01-01T00:00:00Z');
});

test('round-trips through parse and format', () => {
  for (const s of ['2025-03-04T05:06:07.000008Z', '1999-12-31T23:59:59Z', '2400-02-29T00:00:00.5Z'.replace('.5', '.500000')]) {
    assert.equal(formatMicros(parseIsoMicros(s)), s);
  }
});

test('pydantic lax datetime input: unix seconds, milliseconds above 2e10, numeric strings', () => {
  assert.equal(parseDatetimeInput(1700000000), 1700000000 * 1e6);
  assert.equal(parseDatetimeInput(1700000000123), 1700000000123 * 1000);
  assert.equal(parseDatetimeInput('1700000000'), 1700000000 * 1e6);
  assert.equal(parseDatetimeInput(1.5), 1_500_000);
  assert.ok(Number.isNaN(parseDatetimeInput(true)));
  assert.ok(Number.isNaN(parseDatetimeInput(null)));
});

test('millisecond helpers: boundary counting vs timedelta floor', () => {
  // 12:00:00.999900 → 12:00:01.000100 is 0.2 ms: one ms boundary crossed, timedelta floors to 0.
  const a = parseIsoMicros('2024-01-01T12:00:00.999900Z');
  const b = parseIsoMicros('2024-01-01T12:00:01.000100Z');
  assert.equal(floorMillis(b) - floorMillis(a), 1);
  assert.equal(timedeltaMillis(a, b), 0);
  assert.equal(timedeltaMillis(b, a), -1);
});

test('the canonical-UTC fast path agrees with the general parser', () => {
  for (const text of ['2024-02-29T23:59:59Z', '2024-02-29T23:59:59.5Z', '2024-05-01T12:00:00.123456789Z', '1970-01-01T00:00:00.000001Z', '2099-12-31T00:00:00.1Z']) {
    const general = parseIsoMicros(text.replace('Z', '+00:00'));
    assert.equal(parseIsoMicros(text), general, text);
  }
  for (const text of ['2023-02-29T00:00:00Z', '2024-13-01T00:00:00Z', '2024-01-01T24:00:00Z', '2024-01-01T00:00:00.Z', '2024-01-01T00:00:00.1234567890Z']) {
    assert.ok(Number.isNaN(parseIsoMicros(text)), text);
  }
  assert.equal(parseIsoMicros('1969-12-31T23:59:59Z'), -1_000_000, 'before 1970 takes the general path');
});

test('property: parseCanonicalUtcBytes gives what parseIsoMicros gives, or -1', async () => {
  const { default: fc } = await import('fast-check');
  const { parseCanonicalUtcBytes } = await import('./datetime.ts');
  const d = (n: number, max: number) => fc.integer({ min: 0, max }).map((v) => String(v).padStart(n, '0'));
  const canonical = fc
    .tuple(d(4, 2200), d(2, 13), d(2, 32), d(2, 24), d(2, 60), d(2, 60), fc.option(fc.stringMatching(/^[0-9]{1,10}$/), { nil: undefined }))
    .map(([y, mo, day, h, mi, s, f]) => `${y}-${mo}-${day}T${h}:${mi}:${s}${f === undefined ? '' : '.' + f}Z`);
  const noisy = fc.string({ unit: fc.constantFrom(...'0123456789-T:.Z+ z'.split('')), maxLength: 32 });
  fc.assert(
    fc.property(fc.oneof(canonical, noisy), (text) => {
      const bytes = Buffer.from(`"${text}"`);
      const us = parseCanonicalUtcBytes(bytes, 1, bytes.length - 1);
      if (us !== -1) assert.equal(us, parseIsoMicros(text), text);
    }),
    { numRuns: 3000 },
  );
  assert.equal(parseCanonicalUtcBytes(Buffer.from('2024-01-01T00:00:00.5Z'), 0, 22), parseIsoMicros('2024-01-01T00:00:00.5Z'));
});
