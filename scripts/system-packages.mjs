// The Debian packages some tests drive for real (tmux for the CLI's terminal test, nginx as the reverse proxy in
// front of serveHttp, chromium for the browser CORS test, redis-server under the Redis stores, openssl for a test CA). `npm test` runs this first:
// a package whose command is missing is installed with apt-get when we are root and apt-get exists; otherwise one
// line names what to install, and the tests that need it skip with the same words. CI (`.ci/run`) runs this with
// `--require`: there a package that cannot be installed fails the run, so those tests always run in CI.
import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import path from 'node:path';

/**
 * Debian package → the command that proves it is installed, the tests that need it, and folders to look in besides
 * PATH (daemons live in /usr/sbin, which is not on a non-root user's PATH).
 * @type {{ name: string, command: string, tests: string, dirs?: string[] }[]}
 */
const PACKAGES = [
  { name: 'tmux', command: 'tmux', tests: 'the CLI terminal test (test/cli-doctor-tmux.test.ts)' },
  // Debian 12's `nginx` package holds /usr/sbin/nginx (`nginx-light` is only a transitional name there).
  { name: 'nginx', command: 'nginx', tests: 'the reverse-proxy test (test/reliability/proxy.test.ts)', dirs: ['/usr/sbin', '/sbin'] },
  { name: 'chromium', command: 'chromium', tests: 'the browser CORS test (test/cors-browser.test.ts)' },
  // Debian's `redis-server` package holds /usr/bin/redis-server; the tests start their own on a port they pick.
  { name: 'redis-server', command: 'redis-server', tests: 'the Redis store tests (test/redis-*.test.ts, test/cli-redis-url.test.ts)', dirs: ['/usr/bin', '/usr/sbin'] },
  // `openssl` makes the test CAs and server certificates of the HTTPS tests (node:crypto cannot sign one).
  { name: 'openssl', command: 'openssl', tests: 'the HTTPS tests (test/auth-cimd-https.test.ts, test/nodefetch-tls.test.ts)' },
];

/**
 * @param {string} command
 * @param {string[]} [extra] folders to look in besides PATH
 */
function onPath(command, extra = []) {
  for (const dir of [...(process.env.PATH ?? '').split(path.delimiter), ...extra]) {
    if (dir === '') continue;
    try {
      accessSync(path.join(dir, command), constants.X_OK);
      return true;
    } catch {
      // not in this folder
    }
  }
  return false;
}

const required = process.argv.includes('--require');
const missing = PACKAGES.filter((p) => !onPath(p.command, p.dirs));
if (missing.length === 0) process.exit(0);

const names = missing.map((p) => p.name);
const canInstall = process.getuid?.() === 0 && onPath('apt-get');
if (canInstall) {
  console.error(`system-packages: installing ${names.join(', ')} with apt-get`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  // `apt-get update` only when the install fails on a stale or empty package index.
  const install = () => spawnSync('apt-get', ['install', '-y', '--no-install-recommends', ...names], { stdio: ['ignore', 'ignore', 'inherit'], env }).status === 0;
  if (!install()) {
    spawnSync('apt-get', ['update'], { stdio: ['ignore', 'ignore', 'inherit'], env });
    install();
  }
  const still = missing.filter((p) => !onPath(p.command, p.dirs));
  if (still.length === 0) process.exit(0);
  console.error(`system-packages: apt-get could not install ${still.map((p) => p.name).join(', ')}`);
}
for (const p of missing.filter((m) => !onPath(m.command, m.dirs))) {
  console.error(`system-packages: skipping ${p.tests}: install ${p.name} (Debian: apt-get install ${p.name})`);
}
process.exit(required ? 1 : 0);
