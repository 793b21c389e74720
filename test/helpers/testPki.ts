/**
 * A test certificate authority and a server certificate it signed, made at test time with `openssl` (node:crypto
 * cannot sign one). Tests that need it skip where `openssl` is not on the PATH (scripts/system-packages.mjs
 * installs it where it can).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Whether `openssl` runs here. */
export const hasOpenssl = (() => {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

/**
 * A CA and a server certificate it signed (P-256, one day), in PEM, written in `dir`.
 * @param subjectAltName - the certificate's names, e.g. `IP:127.0.0.1` or `DNS:mcp.example` @default 'IP:127.0.0.1'
 */
export function makeTestPki(dir: string, subjectAltName = 'IP:127.0.0.1'): { ca: string; key: string; cert: string } {
  const run = (...args: string[]): void => {
    execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' });
  };
  run('req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '1', '-subj', '/CN=Switchboard test CA',
    '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign');
  run('req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'leaf.key', '-out', 'leaf.csr', '-subj', '/CN=Switchboard test server');
  writeFileSync(join(dir, 'leaf.ext'), `subjectAltName=${subjectAltName}\nextendedKeyUsage=serverAuth\nbasicConstraints=CA:FALSE\n`);
  run('x509', '-req', '-in', 'leaf.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'leaf.pem', '-days', '1', '-extfile', 'leaf.ext');
  return { ca: readFileSync(join(dir, 'ca.pem'), 'utf8'), key: readFileSync(join(dir, 'leaf.key'), 'utf8'), cert: readFileSync(join(dir, 'leaf.pem'), 'utf8') };
}
