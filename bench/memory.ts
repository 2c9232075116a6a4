/**
 * Memory as the benchmarks count it: V8 heap plus ArrayBuffers (the typed-array columns and
 * the body arena live outside the V8 heap), measured after a full GC.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** A full GC, with or without --expose-gc on the command line. */
function gcFunction(): () => void {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (exposed) return exposed;
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

export const gc = gcFunction();

export function heapBytes(): number {
  gc();
  gc();
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}

/**
 * heapBytes() once the current job is over: what the running job still holds (values in
 * its registers and closures) survives a GC made inside it. In the bench, that and a
 * loop-scoped binding kept the dropped 100k-row table engine in the figure (2110 B per call
 * against 1698 B).
 */
export async function settledHeapBytes(): Promise<number> {
  await new Promise((resolve) => setImmediate(resolve));
  return heapBytes();
}
