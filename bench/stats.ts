/** Timing helpers of the benchmark: median, geometric mean, rounding. */

export function median(samples: readonly number[]): number {
  const s = [...samples].sort((a, b) => a - b);
  const n = s.length;
  if (n === 0) return NaN;
  return n % 2 === 1 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

export function geometricMean(values: readonly number[]): number {
  const ok = values.filter((v) => Number.isFinite(v) && v > 0);
  if (ok.length === 0) return NaN;
  return Math.exp(ok.reduce((a, v) => a + Math.log(v), 0) / ok.length);
}

/** Milliseconds to 3 decimals (µs resolution), enough for any figure printed. */
export function round(ms: number, digits = 3): number {
  const f = 10 ** digits;
  return Math.round(ms * f) / f;
}
