/**
 * The one test for "a JSON object" on parsed values. Exact parsing keeps integers beyond 2^53 as
 * LosslessNumber instances, which are objects to `typeof` but numbers to JSON, so they are not
 * JSON objects here.
 */
import { LosslessNumber } from './json/lossless.ts';

export const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof LosslessNumber);
