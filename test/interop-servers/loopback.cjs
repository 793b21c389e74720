// Preloaded (`node --require test/interop-servers/loopback.cjs <program>`) into a third-party server that has no
// host option and calls `listen(port)`, which would bind every interface: a TCP listen without a host is bound to
// 127.0.0.1 instead, and once it accepts connections one line `INTEROP_LISTENING http://127.0.0.1:<port>` goes to
// stderr (the programs we start this way print the port they were asked for, which is `0` for "any").
// Listens on a path, a handle or with an explicit host are left alone.
'use strict';
const net = require('node:net');

const listen = net.Server.prototype.listen;

/** The port of a `listen(...)` call that names no host, or undefined when the call is something else. */
function portWithoutHost(args) {
  const [first, second] = args;
  if (typeof first === 'number' || (typeof first === 'string' && /^\d+$/.test(first))) {
    return typeof second === 'string' ? undefined : Number(first);
  }
  if (first !== null && typeof first === 'object' && !Array.isArray(first)) {
    const keys = ['path', 'fd', 'handle', '_handle', 'host'];
    return keys.some((k) => first[k] !== undefined) ? undefined : Number(first.port ?? 0);
  }
  return undefined;
}

net.Server.prototype.listen = function listenOnLoopback(...args) {
  const port = portWithoutHost(args);
  if (port === undefined) return listen.apply(this, args);
  const callback = typeof args[args.length - 1] === 'function' ? args[args.length - 1] : undefined;
  this.once('listening', () => {
    process.stderr.write(`INTEROP_LISTENING http://127.0.0.1:${this.address().port}\n`);
  });
  return callback ? listen.call(this, port, '127.0.0.1', callback) : listen.call(this, port, '127.0.0.1');
};
