/**
 * `tq serve` tries its address before the load, which can take minutes on a large data set:
 * a port in use (or a host it cannot listen on) is an error at once, not after the load. The
 * probe listens and closes again; the server itself listens once the data is loaded, and a
 * port taken in between is reported then.
 */
import { createServer } from 'node:net';

export function probeListen(host: string, port: number): Promise<void> {
  // Port 0 takes any free port: nothing to find out in advance.
  if (port === 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(port, host, () => probe.close(() => resolve()));
  });
}
