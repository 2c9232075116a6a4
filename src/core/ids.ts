/**
 * UUIDv7 ids, as Weave's `generate_id` makes for server-assigned call, trace and feedback ids:
 * time-ordered, so ids generated later sort later.
 */
import { randomBytes } from 'node:crypto';

let lastMs = 0;
let counter = 0;

export function uuidv7(nowMs: number = Date.now()): string {
  const bytes = randomBytes(16);
  // Monotonic within a millisecond: a 12-bit counter in rand_a keeps ids ordered.
  if (nowMs <= lastMs) {
    nowMs = lastMs;
    counter = (counter + 1) & 0xfff;
    if (counter === 0) nowMs = ++lastMs;
  } else {
    counter = 0;
  }
  lastMs = nowMs;
  const ms = BigInt(nowMs);
  for (let i = 0; i < 6; i++) bytes[i] = Number((ms >> BigInt(8 * (5 - i))) & 0xffn);
  bytes[6] = 0x70 | ((counter >> 8) & 0x0f);
  bytes[7] = counter & 0xff;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
