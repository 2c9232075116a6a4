/**
 * Whether `tq serve` answers browsers (CORS). On a loopback bind the only browsers that can
 * reach tq run on this machine (a local UI on another port), so CORS is on unless `--no-cors`,
 * as json-server and Prism do; on any other address it is off unless `--cors` asks for it,
 * because it lets every web page a user visits read what tq serves with credentials the page
 * knows.
 */
import { isIP } from 'node:net';

/** 127.0.0.0/8, ::1, ::ffff:127.x (IPv4-mapped) and the name `localhost`. */
export function isLoopbackHost(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[(.*)\]$/, '$1');
  if (h === 'localhost' || h.endsWith('.localhost')) return true;
  if (isIP(h) === 4) return h.startsWith('127.');
  if (isIP(h) === 6) return h === '::1' || h.startsWith('::ffff:127.');
  return false;
}

/**
 * Which browser origins may read tq's answers with credentials: pages served from this machine
 * (an `http(s)://` origin whose host is loopback, any port) and the exact origins given with
 * `--cors-origin`. Any other page gets no CORS headers, so the browser keeps tq's answers from
 * it (before issue 22 every origin was reflected: any web page could read a user's projects).
 */
export function corsOriginAllowed(origin: string, extra: readonly string[] = []): boolean {
  if (extra.includes(origin)) return true;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  return (url.protocol === 'http:' || url.protocol === 'https:') && url.origin === origin && isLoopbackHost(url.hostname);
}

/** `flag` is `--cors` (true), `--no-cors` (false) or neither (undefined). */
export function corsEnabled(host: string, flag: boolean | undefined): boolean {
  return flag ?? isLoopbackHost(host);
}
