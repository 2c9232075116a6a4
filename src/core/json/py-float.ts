// Python's float spelling, on its own: both the conversions (convert.ts) and Python's
// json.dumps (pyjson.ts) use it, and neither needs the other.

/**
 * Python's `repr(x)` for a float: shortest digits that round-trip, `.0` on integral values,
 * scientific notation when the decimal exponent is < -4 or >= 16 (`1e-05`, `1.5e+16`), and
 * `NaN`, `Infinity`, `-Infinity`, `-0.0`.
 */
export function pyFloatRepr(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (x === Infinity) return 'Infinity';
  if (x === -Infinity) return '-Infinity';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';

  // JS's Number#toString also yields the shortest round-trip digits (and picks the closest
  // when several are shortest, as Python does); only the layout differs. Pull out the digits
  // and the decimal exponent, then lay them out Python's way.
  const sign = x < 0 ? '-' : '';
  const s = String(Math.abs(x)); // "123.45", "1e+21", "1.5e-7", "0.000001"
  const e = s.indexOf('e');
  const mantissa = e < 0 ? s : s.slice(0, e);
  const exp10 = e < 0 ? 0 : Number(s.slice(e + 1));
  const dot = mantissa.indexOf('.');
  let digits = dot < 0 ? mantissa : mantissa.slice(0, dot) + mantissa.slice(dot + 1);
  // Position of the decimal point within `digits`.
  let point = (dot < 0 ? mantissa.length : dot) + exp10;
  const leadingZeros = digits.length - digits.replace(/^0+/, '').length;
  digits = digits.slice(leadingZeros);
  point -= leadingZeros;
  digits = digits.replace(/0+$/, '');
  const exponent = point - 1; // x = d.ddd × 10^exponent

  if (exponent < -4 || exponent >= 16) {
    const m = digits.length > 1 ? digits[0] + '.' + digits.slice(1) : digits;
    const absExp = Math.abs(exponent);
    return `${sign}${m}e${exponent < 0 ? '-' : '+'}${absExp < 10 ? '0' : ''}${absExp}`;
  }
  if (point <= 0) return `${sign}0.${'0'.repeat(-point)}${digits}`;
  if (point >= digits.length) return `${sign}${digits}${'0'.repeat(point - digits.length)}.0`;
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}
