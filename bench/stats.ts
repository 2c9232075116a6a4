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

/**
 * Lines in a chunk of a stream answer (its newlines), counted through a Buffer view: Buffer's
 * indexOf is a native memchr, Uint8Array's about ten times slower per byte (Node 20), which
 * would make the bench's consumer cost more than the rendering it measures. The bench's own,
 * so that an older tree measured with it is measured alike.
 */
export function chunkLines(chunk: Uint8Array): number {
  const b = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  let n = 0;
  for (let i = b.indexOf(0x0a); i >= 0; i = b.indexOf(0x0a, i + 1)) n++;
  return n;
}
