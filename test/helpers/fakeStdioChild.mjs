/**
 * The child program behind test/helpers/fakeStdioServer.ts: a stand-in MCP server process with no logic of its own.
 * It connects to the test on 127.0.0.1:<port> (argv[2]) and relays: every chunk read on stdin goes to the test as it
 * arrived (base64, so the test sees the exact bytes), and every frame the test sends is written to stdout or stderr
 * in one write, exactly as given (so chunk boundaries are the test's). It exits when its stdin closes (as a stdio
 * server does, MCP 2025-11-25 basic/lifecycle.mdx "Shutdown"), when told to, or when the test's socket goes away,
 * so it never outlives the test.
 *
 * Frames, one JSON object per line on the socket:
 *   child → test: {"stdin": "<base64>"}, {"stdinEnd": true}
 *   test → child: {"stdout": "<base64>"}, {"stderr": "<base64>"}, {"exit": <code>}
 */
import { connect } from 'node:net';
import process from 'node:process';

const port = Number(process.argv[2]);
const socket = connect({ host: '127.0.0.1', port });
const frame = (value) => `${JSON.stringify(value)}\n`;

process.stdin.on('data', (chunk) => socket.write(frame({ stdin: chunk.toString('base64') })));
process.stdin.on('end', () => socket.end(frame({ stdinEnd: true }), () => process.exit(0)));

let buffer = '';
socket.setEncoding('utf8');
socket.on('data', (text) => {
  buffer += text;
  for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
    const command = JSON.parse(buffer.slice(0, nl));
    buffer = buffer.slice(nl + 1);
    if (command.stdout !== undefined) process.stdout.write(Buffer.from(command.stdout, 'base64'));
    if (command.stderr !== undefined) process.stderr.write(Buffer.from(command.stderr, 'base64'));
    if (command.exit !== undefined) process.exit(command.exit);
  }
});
socket.on('close', () => process.exit(0));
socket.on('error', () => process.exit(1));
