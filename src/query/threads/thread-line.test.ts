import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decodeLines, rowChunks } from '../../api/line-stream.ts';
import { parseIsoMicros } from '../../core/datetime.ts';
import { JsonLineWriter } from '../../core/json/line-writer.ts';
import type { ThreadStats } from './aggregate.ts';
import { threadLine, ThreadLineWriter } from './thread-line.ts';
import { threadLineOracle } from './thread-line.testing.ts';

/** Deterministic pseudo-random integers below `n` (xorshift), so a failure can be replayed. */
function randomInts(seed: number): (n: number) => number {
  let s = seed >>> 0 || 1;
  return (n) => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s % n;
  };
}

const IDS = ['th-1', '', 'a"b', 'back\\slash', 'tab\there', 'line\nbreak', 'ünïcödé', '😀 emoji', '\u0000\u001f', '\u007f', 'lone \ud800 surrogate', 'x'.repeat(300)];
const T0 = parseIsoMicros('2024-05-01T12:00:00Z');
const TIMES = [T0, 0, -1, -86_400_000_001, parseIsoMicros('1969-12-31T23:59:59.999999Z'), parseIsoMicros('9999-12-31T23:59:59.999999Z'), T0 + 1, T0 + 999_999, T0 + 1_000_000];
const FLOATS = [0, -0, 0.5, 1, 150, 1234.5600000000002, 1e-5, 9.999e-5, 1e-4, 1e15 + 0.5, 1e16, 1e21, 2 ** 53, 2 ** 53 + 2, -3.25, Number.MAX_VALUE, NaN, Infinity, -Infinity];

function randomThread(rand: (n: number) => number, i: number): ThreadStats {
  const pick = <T>(xs: readonly T[]) => xs[rand(xs.length)];
  const time = () => (rand(3) === 0 ? pick(TIMES) : T0 + (rand(40) - 20) * 86_400_000_000 + rand(86_400_000) * 1000 + (rand(2) ? rand(1_000_000) : 0));
  const float = () => (rand(3) === 0 ? pick(FLOATS) : rand(2) ? rand(10_000_000) : rand(10_000_000) + rand(1000) / rand(1000 + 1));
  const unfinished = rand(5) === 0;
  return {
    thread_id: rand(2) ? `thread-${i}` : pick(IDS),
    turn_count: rand(4) === 0 ? pick([1, 0, 2 ** 31, Number.MAX_SAFE_INTEGER]) : 1 + rand(500),
    start_time: time(),
    last_updated: unfinished ? NaN : time(),
    first_turn_id: rand(2) ? `turn-${rand(1e6)}` : pick(IDS),
    last_turn_id: unfinished ? null : rand(2) ? `turn-${rand(1e6)}` : pick(IDS),
    p50_turn_duration_ms: unfinished || rand(10) === 0 ? null : float(),
    p99_turn_duration_ms: unfinished || rand(10) === 0 ? null : float(),
  };
}

test('thread lines written as bytes equal the string-built lines, over generated threads', () => {
  const rand = randomInts(2024);
  const threads = Array.from({ length: 20_000 }, (_, i) => randomThread(rand, i));
  // One writer for the whole answer, small chunks: lines cross chunk boundaries and the datetime
  // writers carry their day from line to line, as in a real stream.
  const lines = new ThreadLineWriter();
  const got = [...decodeLines(rowChunks(threads, (t, w) => lines.write(w, t), new JsonLineWriter(4096)))];
  assert.equal(got.length, threads.length);
  threads.forEach((t, i) => {
    const want = threadLineOracle(t);
    if (got[i] !== want) assert.fail(`thread ${i}: ${JSON.stringify(t)}\n got: ${got[i]}\nwant: ${want}`);
  });
});

test('threadLine gives the same text as the stream', () => {
  const t: ThreadStats = {
    thread_id: 'th "1"',
    turn_count: 3,
    start_time: T0,
    last_updated: T0 + 1_500_123,
    first_turn_id: 'a',
    last_turn_id: null,
    p50_turn_duration_ms: 150,
    p99_turn_duration_ms: 1234.5600000000002,
  };
  assert.equal(
    threadLine(t),
    '{"thread_id":"th \\"1\\"","turn_count":3,"start_time":"2024-05-01T12:00:00Z","last_updated":"2024-05-01T12:00:01.500123Z",' +
      '"first_turn_id":"a","last_turn_id":null,"p50_turn_duration_ms":150.0,"p99_turn_duration_ms":1234.5600000000002}',
  );
  assert.equal(threadLine(t), threadLineOracle(t));
});
