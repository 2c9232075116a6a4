/**
 * A throwaway self-signed certificate for 127.0.0.1 / localhost, made with `openssl` at test
 * time (no private key is committed). `.ci/run` installs openssl where it is missing.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { tempDir } from '../io/temp-dir.testing.ts';

export interface TestCert {
  dir: string;
  certFile: string;
  keyFile: string;
}

export function makeTestCert(): TestCert {
  const dir = tempDir('tq-tls-');
  const certFile = join(dir, 'cert.pem');
  const keyFile = join(dir, 'key.pem');
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
    '-keyout', keyFile, '-out', certFile, '-days', '2', '-subj', '/CN=127.0.0.1',
    '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost',
  ], { stdio: 'ignore' });
  return { dir, certFile, keyFile };
}
