// A stdio server whose process group outlives its leader: the leader starts a grandchild in its own group that
// ignores SIGTERM and the end of stdin, writes "grandchild <pid>" on stderr, and exits as soon as its stdin ends.
// The client's shutdown must wait for the group (SIGTERM, then SIGKILL) without spinning on /proc meanwhile.
import { spawn } from 'node:child_process';

const grandchild = spawn(process.execPath, ['-e', "process.on('SIGTERM', () => {}); setInterval(() => {}, 1000);"], { stdio: 'ignore' });
grandchild.unref();
process.stderr.write(`grandchild ${grandchild.pid}\n`);
process.stdin.resume();
process.stdin.on('end', () => process.exit(0));
