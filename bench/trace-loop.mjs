// Loaded into `tq serve` by bench/upload-pressure.ts --trace (node --import): every event-loop
// gap over 200 ms, and every second the process's open sockets and CPU, as JSON lines appended
// to the file named by TQ_TRACE_FILE. Times (t) are ms since TQ_TRACE_ORIGIN (epoch ms: when
// the bench started the server).
import { appendFileSync } from 'node:fs';
const file = process.env.TQ_TRACE_FILE;
const origin = Number(process.env.TQ_TRACE_ORIGIN ?? Date.now());
let last = performance.now();
const log = (o) => appendFileSync(file, JSON.stringify({ t: Math.round(performance.timeOrigin + performance.now() - origin), ...o }) + '\n');
setInterval(() => {
  const now = performance.now();
  if (now - last > 200) log({ gap: Math.round(now - last) });
  last = now;
}, 20).unref();
let cpu = process.cpuUsage();
setInterval(() => {
  const c = process.cpuUsage(cpu);
  cpu = process.cpuUsage();
  log({ handles: process._getActiveHandles().length, cpu_ms: Math.round((c.user + c.system) / 1000), rss_mb: Math.round(process.memoryUsage.rss() / 2 ** 20) });
}, 1000).unref();
