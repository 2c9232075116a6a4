// The worker thread of background compaction (background.ts). tq's sources are TypeScript,
// loaded through tsx as bin/tq loads them; a worker does not inherit the main thread's hooks.
import { parentPort, workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
const { compactSealed } = await import('./compact-sealed.ts');
try {
  const { calls } = await compactSealed(workerData.dir, workerData.through, workerData.fieldPrefix);
  parentPort.postMessage({ ok: true, calls });
} catch (e) {
  parentPort.postMessage({ ok: false, message: e instanceof Error ? e.message : String(e) });
}
