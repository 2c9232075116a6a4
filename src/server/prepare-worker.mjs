// The worker thread of off-loop.ts: runs prepare jobs (prepare-job.ts) one after another. A
// worker does not inherit the main thread's hooks: in the built package (dist/, where
// scripts/build.mjs copies this file) the compiled prepare-job.js sits beside it; from the
// sources, tsx is registered to load the TypeScript, as bin/tq does.
import { existsSync } from 'node:fs';
import { parentPort } from 'node:worker_threads';

const compiled = new URL('./prepare-job.js', import.meta.url);
let runPrepareJob;
if (existsSync(compiled)) {
  ({ runPrepareJob } = await import(compiled.href));
} else {
  const { register } = await import('tsx/esm/api');
  register();
  ({ runPrepareJob } = await import('./prepare-job.ts'));
}
parentPort.on('message', (job) => parentPort.postMessage(runPrepareJob(job)));
parentPort.postMessage({ ready: true });
