/**
 * Timing helpers of the benchmark: repeated runs after warm-up, summarised as median and p95
 * (nearest rank), and the geometric mean of ratios.
 */

export interface Timing {
  median_ms: number;
  p95_ms: number;
  min_ms: number;
  /** The very first (cold) run, before any warm-up: caches and JIT empty. */
  first_ms: number;
  runs: number;
}

export function median(samples: readonly number[]): number {
  const s = [...samples].sort((a, b) => a - b);
  const n = s.length;
  if (n === 0) return NaN;
  return n % 2 === 1 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

/** Nearest-rank percentile. */
export function percentile(samples: readonly number[], p: number): number {
  const s = [...samples].sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
}

export function geometricMean(values: readonly number[]): number {
  const ok = values.filter((v) => Number.isFinite(v) && v > 0);
  if (ok.length === 0) return NaN;
  return Math.exp(ok.reduce((a, v) => a + Math.log(v), 0) / ok.length);
}

export function summarise(first: number, samples: readonly number[]): Timing {
  return {
    median_ms: round(median(samples)),
    p95_ms: round(percentile(samples, 95)),
    min_ms: round(Math.min(...samples)),
    first_ms: round(first),
    runs: samples.length,
  };
}

/** Milliseconds to 3 decimals (µs resolution), enough for any figure printed. */
export function round(ms: number, digits = 3): number {
  const f = 10 ** digits;
  return Math.round(ms * f) / f;
}

/**
 * Runs `fn` once cold, `warmup` more times untimed, then `runs` timed times. Returns the
 * timing and the result of the last run. `fn` reports its own elapsed time (so it can leave
 * out work that is not part of the measurement).
 */
export async function measure<R>(
  fn: () => Promise<{ ms: number; result: R }> | { ms: number; result: R },
  warmup: number,
  runs: number,
): Promise<{ timing: Timing; result: R; samples: number[] }> {
  const cold = await fn();
  let result = cold.result;
  for (let i = 0; i < warmup; i++) result = (await fn()).result;
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const r = await fn();
    samples.push(r.ms);
    result = r.result;
  }
  return { timing: summarise(cold.ms, samples), result, samples };
}
