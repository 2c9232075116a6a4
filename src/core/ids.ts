/**
 * UUIDv7 ids, as Weave's `generate_id` makes for server-assigned call, trace and feedback ids:
 * time-ordered, so ids generated later sort later.
 *
 * A write draws its ids on the event loop, one per row a batch names none for: the random bytes
 * come from a pool filled 4,096 ids at a time, and the text is written from a table of byte
 * pairs (one `randomBytes(16)`, BigInt shifts and a hex string per id took 10 µs: a third of a
 * second for a 32 MiB feedback batch).
 */
import { randomFillSync } from 'node:crypto';

let lastMs = 0;
let counter = 0;

const IDS_PER_FILL = 4096;
const pool = Buffer.alloc(16 * IDS_PER_FILL);
/** The next unused id's random bytes in `pool` (at the end: refill first). */
let poolAt = pool.length;
const HEX = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, '0'));

export function uuidv7(nowMs: number = Date.now()): string {
  if (poolAt === pool.length) {
    randomFillSync(pool);
    poolAt = 0;
  }
  const at = poolAt;
  poolAt += 16;
  // Monotonic within a millisecond: a 12-bit counter in rand_a keeps ids ordered.
  if (nowMs <= lastMs) {
    nowMs = lastMs;
    counter = (counter + 1) & 0xfff;
    if (counter === 0) nowMs = ++lastMs;
  } else {
    counter = 0;
  }
  lastMs = nowMs;
  // The 48-bit millisecond time, big-endian: its high 16 bits and low 32 bits (exact in doubles).
  const high = Math.floor(nowMs / 2 ** 32);
  const low = nowMs >>> 0;
  return (
    HEX[(high >>> 8) & 0xff] + HEX[high & 0xff] + HEX[low >>> 24] + HEX[(low >>> 16) & 0xff] + '-' +
    HEX[(low >>> 8) & 0xff] + HEX[low & 0xff] + '-' +
    HEX[0x70 | ((counter >> 8) & 0x0f)] + HEX[counter & 0xff] + '-' +
    HEX[(pool[at + 8] & 0x3f) | 0x80] + HEX[pool[at + 9]] + '-' +
    HEX[pool[at + 10]] + HEX[pool[at + 11]] + HEX[pool[at + 12]] + HEX[pool[at + 13]] + HEX[pool[at + 14]] + HEX[pool[at + 15]]
  );
}
