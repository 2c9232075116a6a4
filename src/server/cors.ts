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

/** `flag` is `--cors` (true), `--no-cors` (false) or neither (undefined). */
export function corsEnabled(host: string, flag: boolean | undefined): boolean {
  return flag ?? isLoopbackHost(host);
}
