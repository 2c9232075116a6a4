/**
 * The copy ceiling of a result: its lines (UTF-8, each newline-terminated, one buffer per line
 * as a store of rendered lines would hold them) gathered into one buffer. The floor of any
 * renderer that must touch every byte it sends; op_wildcard's target is a multiple of it.
 */

/**
 * A measurer of the copy of `texts` (made into buffers once, the target allocated once and
 * touched, so that no run pays page faults): each call times one copy, wall and CPU ms.
 */
export function copyMeasurer(texts: readonly string[]): { bytes: number; measure: () => { ms: number; cpu: number } } {
  const bufs = texts.map((t) => Buffer.from(t + '\n', 'utf8'));
  const bytes = bufs.reduce((a, b) => a + b.length, 0);
  const out = Buffer.alloc(bytes);
  return {
    bytes,
    measure() {
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      let at = 0;
      for (const b of bufs) at += b.copy(out, at);
      const ms = performance.now() - t0;
      const c = process.cpuUsage(c0);
      return { ms, cpu: (c.user + c.system) / 1000 };
    },
  };
}
