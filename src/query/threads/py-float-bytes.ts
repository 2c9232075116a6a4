/**
 * Python's `repr` of a float (core/json/py-float.ts pyFloatRepr, the oracle) written into a
 * line's bytes, with a fast path for the values thread statistics produce: whole numbers and
 * short decimals between 1e-4 and 1e16.
 *
 * In that range Python's repr and JS's Number#toString agree digit for digit (both print the
 * shortest round-trip digits in positional notation: Python goes scientific below 1e-4 and from
 * 1e16, JS below 1e-7 and from 1e21); only whole numbers differ, by Python's `.0`. Anything
 * else (zeros, -0.0, NaN, infinities, tiny and huge values) goes through pyFloatRepr.
 */
import { utf8, type JsonLineWriter } from '../../core/json/line-writer.ts';
import { pyFloatRepr } from '../../core/json/py-float.ts';

const POINT_ZERO = utf8('.0');

/** Writes `v` exactly as `pyFloatRepr(v)` spells it. */
export function writePyFloat(w: JsonLineWriter, v: number): void {
  const a = v < 0 ? -v : v;
  if (a >= 1e-4 && a < 1e16) {
    if (Number.isInteger(v)) {
      w.num(v);
      w.bytes(POINT_ZERO);
    } else w.text(String(v));
    return;
  }
  w.text(pyFloatRepr(v));
}
