// The worker thread of background compaction (background.ts). A worker does not inherit the
// main thread's hooks: in the built package (dist/, where scripts/build.mjs copies this file)
// the compiled compact-sealed.js sits beside it; from the sources, tsx is registered to load
// the TypeScript, as bin/tq does.
import { existsSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';

const compiled = new URL('./compact-sealed.js', import.meta.url);
let compactSealed;
if (existsSync(compiled)) {
  ({ compactSealed } = await import(compiled.href));
} else {
  const { register } = await import('tsx/esm/api');
  register();
  ({ compactSealed } = await import('./compact-sealed.ts'));
}
try {
  const { calls } = await compactSealed(workerData.dir, workerData.through, workerData.fieldPrefix);
  parentPort.postMessage({ ok: true, calls });
} catch (e) {
  parentPort.postMessage({ ok: false, message: e instanceof Error ? e.message : String(e) });
}
